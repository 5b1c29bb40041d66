#!/usr/bin/env python3
"""The size of a `make dist` binary by component, read from the linker's map.

Usage: dist_sizes.py LINK.map [BINARY]

Each input section the map places in the file (code, read-only data, data, unwind tables) is
counted for the component its object came from: this package's modules, the Swift runtime and
standard library, Foundation and its ICU data, the SwiftPM dependencies, and jansson, SQLite
and zlib. Prints a Markdown table (MiB), largest first; with BINARY, its stripped size too.
"""
from __future__ import annotations

import collections
import os
import re
import sys

# lld's map: `VMA LMA Size Align` (hex, hex, hex, decimal), then the output section's name in one
# column, an input section (`/path/file.o:(.text.name)`) one column further in, or a symbol
# further still.
ENTRY = re.compile(r"^\s*[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+ (\s*)(\S.*)$")
OUTPUT_COLUMN, INPUT_COLUMN = 0, 8
INPUT_SECTION = re.compile(r"^(.*):\((\S+)\)$")
# Sections that take no room in the file, or that `strip` removes.
NOT_IN_FILE = (".bss", ".tbss", ".debug", ".comment", ".note.GNU-stack", ".stab", ".gnu.warning", ".symtab", ".strtab")

COMPONENTS = [
    ("jansson (static)", re.compile(r"libjansson\.a")),
    ("SQLite (static)", re.compile(r"libsqlite3\.a")),
    ("zlib (static)", re.compile(r"libz\.a")),
    ("Foundation's ICU data (trimmed by trim_icu.py) and code", re.compile(r"lib_FoundationICU\.a|libicu|/icu/icu-data\.o")),
    ("Foundation", re.compile(r"libFoundation\w*\.a|lib_Foundation\w*\.a|libswiftFoundation\w*\.a|libCoreFoundation\.a")),
    ("Swift runtime and standard library", re.compile(r"libswift\w*\.a|libBlocksRuntime|libdispatch|swiftrt")),
    ("TLS: BoringSSL and swift-crypto (AsyncHTTPClient's HTTPS)",
     re.compile(r"/(NIOSSL|CNIOBoringSSL\w*|Crypto\w*|CCryptoBoringSSL\w*|_Crypto\w*)\.build/")),
    ("SwiftNIO and AsyncHTTPClient", re.compile(r"/(NIO\w*|AsyncHTTPClient|_NIO\w*|CNIO\w*)\.build/")),
    ("GRDB", re.compile(r"/GRDB\w*\.build/")),
    ("other packages (argument parser, logging, collections, algorithms, ...)", re.compile(r"/release/[^/]+\.build/")),
    ("the linker's own: unwind index, merged constants, dynamic symbols", re.compile(r"^<internal>$")),
    ("libstdc++ (static) and the C startup files", re.compile(r"crt\w*\.o|libc_nonshared|libgcc|libstdc")),
]
OWN_MODULES = re.compile(r"/(JSONRPC|JSONText|Rules|SuperwallCore|BridgeServer|superwall_bridge|CJansson)\.build/")


def component(path: str) -> str:
    if OWN_MODULES.search(path):
        return "superwall-bridge's own modules"
    for name, pattern in COMPONENTS:
        if pattern.search(path):
            return name
    return "other"


def sizes(map_path: str) -> collections.Counter[str]:
    totals: collections.Counter[str] = collections.Counter()
    output_section = ""
    with open(map_path, errors="replace") as lines:
        for line in lines:
            entry = ENTRY.match(line.rstrip("\n"))
            if not entry:
                continue
            size, indent, text = int(entry.group(1), 16), len(entry.group(2)), entry.group(3)
            if indent == OUTPUT_COLUMN:
                output_section = text
                continue
            section = INPUT_SECTION.match(text)
            if indent != INPUT_COLUMN or not section or size == 0 or output_section.startswith(NOT_IN_FILE):
                continue
            totals[component(section.group(1))] += size
    return totals


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    totals = sizes(sys.argv[1])
    print("| component | MiB |")
    print("|---|---|")
    for name, size in totals.most_common():
        print(f"| {name} | {size / 2**20:.2f} |")
    print(f"| **sections in the file, total** | **{sum(totals.values()) / 2**20:.2f}** |")
    if len(sys.argv) > 2:
        print(f"| the stripped binary on disk | {os.path.getsize(sys.argv[2]) / 2**20:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
