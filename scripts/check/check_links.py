#!/usr/bin/env python3
"""Checks the repository's documentation stands on its own.

- Every relative link in a tracked Markdown file resolves to a file or folder inside the
  repository (anchors are not checked, external links are not followed).
- No tracked Markdown file names a relative path that is not in the repository, and no
  tracked file names `DESIGN.md` / `PROTOCOL.md` unless such a file is tracked.

Prints each problem as FILE:LINE: MESSAGE and exits 1 when there is any.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# [text](target) and [text]: target, skipping images' and links' titles.
INLINE = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*(\S+)")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)
OUTSIDE_NAMES = ("DESIGN.md", "PROTOCOL.md")
# `../name`, `../../name`: a relative path, which must name something in the checkout.
RELATIVE_PATH = re.compile(r"(?<![\w./$)])((?:\.\./)+[A-Za-z][\w.-]*)")


def tracked_files() -> list[Path]:
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True).stdout.decode().split("\0")
    return [ROOT / name for name in names if name]


def link_problems(path: Path) -> list[str]:
    problems = []
    in_code = False
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        targets = [match.group(1) for match in INLINE.finditer(line)]
        reference = REFERENCE.match(line)
        if reference:
            targets.append(reference.group(1))
        for target in targets:
            if EXTERNAL.match(target) or target.startswith("#"):
                continue
            relative = target.split("#", 1)[0]
            if not relative:
                continue
            resolved = (path.parent / relative).resolve()
            if not resolved.is_relative_to(ROOT):
                problems.append(f"{path.relative_to(ROOT)}:{number}: {target} leads outside the repository")
            elif not resolved.exists():
                problems.append(f"{path.relative_to(ROOT)}:{number}: {target} does not exist")
    return problems


def outside_name_problems(files: list[Path]) -> list[str]:
    tracked_names = {path.name for path in files}
    names = [name for name in OUTSIDE_NAMES if name not in tracked_names]
    problems = []
    for path in files:
        if path.resolve() == Path(__file__).resolve() or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        in_code = False
        for number, line in enumerate(text.splitlines(), start=1):
            # A Markdown example's paths are the example's (`../dist`, built), not the repository's.
            if path.suffix == ".md" and line.lstrip().startswith("```"):
                in_code = not in_code
            # Code's relative paths may name what a build makes (`../dist`); the text for people is checked.
            for match in RELATIVE_PATH.finditer(line) if path.suffix == ".md" and not in_code else []:
                target = (path.parent / match.group(1)).resolve()
                if not target.is_relative_to(ROOT) or not target.exists():
                    problems.append(f"{path.relative_to(ROOT)}:{number}: {match.group(1)} is not in the repository")
            for name in names:
                if name in line:
                    problems.append(f"{path.relative_to(ROOT)}:{number}: names {name}, which the repository does not have")
    return problems


def main() -> int:
    files = tracked_files()
    problems = [problem for path in files if path.suffix == ".md" and path.is_file() for problem in link_problems(path)]
    problems += outside_name_problems(files)
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print(f"links: {sum(1 for path in files if path.suffix == '.md')} Markdown files, every relative link resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
