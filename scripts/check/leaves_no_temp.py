#!/usr/bin/env python3
"""Runs a test command with a temp folder of its own and fails if the command leaves anything in it.

    leaves_no_temp.py -- COMMAND [ARGUMENT...]

A test suite that creates data directories, config files or traces must remove them when it
ends: a user's suite built on the toolkits runs hundreds of times a day, and what it leaves in
the temp folder stays there. The command runs with ``TMPDIR`` set to a fresh folder; when it
ends that folder must hold no file. What is left is listed and the folder removed, so the run that
finds a leak does not add to it. The command's own exit status wins when it fails.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def leftovers(folder: Path) -> list[str]:
    """What is in ``folder``, one line a top-level entry, with its size."""
    lines = []
    for entry in sorted(folder.iterdir()):
        if entry.is_dir() and not any(path.is_file() or path.is_symlink() for path in entry.rglob("*")):
            # Folders that hold no file: pytest's base folder after a passing run removed its
            # tests' folders, and the profile folder Chromium leaves behind when it quits.
            continue
        size = sum(path.stat().st_size for path in entry.rglob("*") if path.is_file()) if entry.is_dir() else entry.stat().st_size
        lines.append(f"  {entry.name}{'/' if entry.is_dir() else ''} ({size} bytes)")
    return lines


def main(arguments: list[str]) -> int:
    if "--" not in arguments or arguments.index("--") == len(arguments) - 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    command = arguments[arguments.index("--") + 1:]
    folder = Path(tempfile.mkdtemp(prefix="leaves-no-temp-"))
    try:
        status = subprocess.call(command, env={**os.environ, "TMPDIR": str(folder)})
        left = leftovers(folder)
        if status != 0:
            return status
        if left:
            print(f"{' '.join(command)} left {len(left)} entries in its temp folder:", file=sys.stderr)
            print("\n".join(left), file=sys.stderr)
            return 1
        return 0
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
