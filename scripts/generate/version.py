#!/usr/bin/env python3
"""Stamps the one version in `VERSION` into every place that states it: the binary
(`BridgeVersion.current`), the Python package (pyproject.toml and `__version__`) and the npm
package (package.json, and the version the TypeScript client sends at `initialize`).

Usage: version.py [--check]   (--check: fail, naming the file, where a place disagrees)
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VERSION_PATTERN = r"\d+\.\d+\.\d+(?:[-.][0-9A-Za-z.]+)?"

# (file, pattern with one group around the version)
PLACES = [
    ("Sources/SuperwallCore/SuperwallCore.swift", rf'public static let current = "({VERSION_PATTERN})"'),
    ("clients/python/pyproject.toml", rf'^version = "({VERSION_PATTERN})"'),
    ("clients/python/superwall_bridge/__init__.py", rf'^__version__ = "({VERSION_PATTERN})"'),
    ("clients/typescript/package.json", rf'^  "version": "({VERSION_PATTERN})"'),
    ("clients/typescript/src/superwall.ts", rf'^export const CLIENT_VERSION = "({VERSION_PATTERN})";'),
]


def main() -> int:
    check = "--check" in sys.argv[1:]
    version = (ROOT / "VERSION").read_text().strip()
    if not re.fullmatch(VERSION_PATTERN, version):
        sys.exit(f"VERSION holds {version!r}, not a version like 1.2.3")
    stale = []
    for name, pattern in PLACES:
        path = ROOT / name
        text = path.read_text()
        match = re.search(pattern, text, re.MULTILINE)
        if match is None:
            sys.exit(f"{name}: no version found where {pattern!r} expects it")
        if match.group(1) == version:
            continue
        stale.append(name)
        if not check:
            path.write_text(text[:match.start(1)] + version + text[match.end(1):])
            print(f"wrote {version} into {name}")
    if check and stale:
        sys.exit(f"these do not state VERSION's {version}: {', '.join(stale)} (run python3 scripts/generate/version.py)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
