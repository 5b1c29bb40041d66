#!/usr/bin/env python3
"""Writes the functions a bridge runs from exec to its answer to `initialize`, in the order it
first runs them: the symbol ordering file the release link (lld) lays `.text` out by.

Usage: startup_order.py BRIDGE ORDER_FILE

Placing them together is what keeps the resident set small at start. The kernel maps a binary's
pages 64 KiB around each one touched, so ~1,800 small functions spread over 29 MB of code made
7.5 MB of it resident; packed, they fill a few hundred KiB. The trace comes from callgrind, which
names every function that runs and numbers them as first met. Names the binary does not define
(the C library's) are left out. A stale entry only costs its place: regenerate after changes to
startup (`make startup-order`).
"""
from __future__ import annotations

import pathlib
import re
import subprocess
import sys
import tempfile

INITIALIZE = b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"1.0","client":{"name":"order","version":"1"}}}\n'
FUNCTION = re.compile(r"^c?fn=\((\d+)\)(?: (.+))?$")


def functions_run(bridge: pathlib.Path, directory: pathlib.Path) -> list[str]:
    """The functions callgrind saw, by the number it gave each as it first met it."""
    # valgrind 3.19 cannot read DWARF 5.
    binary = directory / "bridge"
    subprocess.run(["strip", "--strip-debug", str(bridge), "-o", str(binary)], check=True)
    out = directory / "callgrind.out"
    subprocess.run(["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}", str(binary)],
                   input=INITIALIZE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    names: dict[int, str] = {}
    for line in out.read_text(errors="replace").splitlines():
        match = FUNCTION.match(line)
        if match and match.group(2):
            names.setdefault(int(match.group(1)), re.sub(r"'\d+$", "", match.group(2)))
    return [names[number] for number in sorted(names)]


def defined_functions(bridge: pathlib.Path) -> set[str]:
    listing = subprocess.run(["nm", "--defined-only", str(bridge)], capture_output=True, text=True, check=True).stdout
    return {fields[2] for fields in (line.split(None, 2) for line in listing.splitlines())
            if len(fields) == 3 and fields[1] in "tTwW"}


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    bridge, order_file = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    with tempfile.TemporaryDirectory(prefix="superwall-order-") as directory:
        run = functions_run(bridge, pathlib.Path(directory))
    defined = defined_functions(bridge)
    ordered = list(dict.fromkeys(name for name in run if name in defined))
    order_file.write_text("".join(name + "\n" for name in ordered))
    print(f"{order_file}: {len(ordered)} functions run at startup")
    return 0


if __name__ == "__main__":
    sys.exit(main())
