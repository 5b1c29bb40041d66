#!/usr/bin/env python3
"""The release link's ICU data, without what the bridge never reads.

Foundation on Linux links ICU with all its data built in (`icudt<N>_dat`, 32 MiB of the
binary's 75). This reads that data out of the toolchain's `lib_FoundationICU.a`, drops the
items below, and writes an object defining the same symbol. Linked as an object, it is the
definition the ICU code uses, and the archive's own data member is never pulled in: the object
names it `superwall_bridge_icu_data`, and the link defines ICU's symbol as that
(`--defsym`) before any archive is read. FLAGS gets the release link's flags for it.

Dropped (the bridge formats numbers, currencies, dates and durations in the paywall's locale,
so locale data, currencies, units, time zones and the root collation stay):
- legacy codepage converters (`*.cnv`): the bridge reads and writes UTF-8 only, and UTF-8,
  UTF-16, UTF-32, Latin-1 and ASCII are algorithmic in ICU, needing no data;
- collation tailorings for each language (`coll/*` but the root): the bridge never sorts by
  a language's rules;
- the dictionaries of dictionary-based word breaking (`brkitr/*.dict`), transliteration
  (`translit/`), character names (`unames.icu`), and the display names of languages and
  regions (`lang/`, `region/`): none is read by anything the bridge calls.

Usage: trim_icu.py OUT.o FLAGS [--archive lib_FoundationICU.a]
"""
import argparse
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

OWN_SYMBOL = "superwall_bridge_icu_data"

DROPPED = [
    re.compile(r"[^/]+\.cnv$"),
    re.compile(r"coll/(?!root\.res$|ucadata\.icu$|res_index\.res$).*"),
    re.compile(r"brkitr/.*\.dict$"),
    re.compile(r"translit/.*"),
    re.compile(r"unames\.icu$"),
    re.compile(r"lang/.*"),
    re.compile(r"region/.*"),
]


def toolchain_archive() -> Path:
    swift = shutil.which("swift")
    if swift is None:
        sys.exit("trim_icu: no swift on PATH to find lib_FoundationICU.a beside")
    archive = Path(swift).resolve().parent.parent / "lib/swift_static/linux/lib_FoundationICU.a"
    if not archive.is_file():
        sys.exit(f"trim_icu: no {archive}")
    return archive


def packaged_data(archive: Path, folder: Path) -> tuple[str, bytes]:
    """The data symbol's name and bytes, from the archive's member that defines it."""
    members = subprocess.run(["ar", "t", str(archive)], capture_output=True, text=True, check=True).stdout.split()
    (member,) = [name for name in members if "packaged_data" in name]
    subprocess.run(["ar", "x", str(archive), member], cwd=folder, check=True)
    symbols = subprocess.run(["nm", member], cwd=folder, capture_output=True, text=True, check=True).stdout
    (symbol,) = re.findall(r"\bR (icudt\d+_dat)$", symbols, re.MULTILINE)
    subprocess.run(["objcopy", "-O", "binary", "--only-section=.rodata", member, "data.bin"], cwd=folder, check=True)
    return symbol, (folder / "data.bin").read_bytes()


def items(data: bytes) -> tuple[bytes, list[tuple[str, bytes]]]:
    """ICU's common data format: a header, then a table of contents of (name, data) offsets
    from the table's start, the items in the table's order, each 16-byte aligned."""
    header_size = struct.unpack_from("<H", data, 0)[0]
    if data[2:4] != b"\xda\x27":
        sys.exit("trim_icu: the data does not start with ICU's magic")
    count = struct.unpack_from("<I", data, header_size)[0]
    offsets = [struct.unpack_from("<II", data, header_size + 4 + 8 * i) for i in range(count)]
    starts = [header_size + data_offset for _, data_offset in offsets] + [len(data)]
    listed = []
    for index, (name_offset, _) in enumerate(offsets):
        name_start = header_size + name_offset
        name = data[name_start:data.index(b"\0", name_start)].decode()
        listed.append((name, data[starts[index]:starts[index + 1]]))
    return data[:header_size], listed


def package(header: bytes, kept: list[tuple[str, bytes]]) -> bytes:
    names = b"".join(name.encode() + b"\0" for name, _ in kept)
    table_size = 4 + 8 * len(kept)
    names_end = table_size + len(names)
    first_item = (len(header) + names_end + 15) // 16 * 16 - len(header)
    table = bytearray(struct.pack("<I", len(kept)))
    body = bytearray()
    name_offset = table_size
    for name, content in kept:
        table += struct.pack("<II", name_offset, first_item + len(body))
        name_offset += len(name) + 1
        body += content
        body += b"\0" * (-len(body) % 16)
    return header + bytes(table) + names + b"\0" * (first_item - names_end) + bytes(body)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("flags", type=Path)
    parser.add_argument("--archive", type=Path)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="trim-icu-") as name:
        folder = Path(name)
        symbol, data = packaged_data(arguments.archive or toolchain_archive(), folder)
        header, listed = items(data)
        prefix = listed[0][0].split("/")[0] + "/"
        kept = [(item, content) for item, content in listed
                if not any(rule.match(item[len(prefix):]) for rule in DROPPED)]
        trimmed = package(header, kept)
        if items(trimmed)[1] != kept:
            sys.exit("trim_icu: the trimmed package does not read back as written")
        (folder / "trimmed.dat").write_bytes(trimmed)
        (folder / "data.s").write_text(
            f'.section .rodata.{OWN_SYMBOL},"a"\n.globl {OWN_SYMBOL}\n.balign 16\n{OWN_SYMBOL}:\n.incbin "trimmed.dat"\n'
            '.section .note.GNU-stack,"",@progbits\n')
        arguments.out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["clang", "-c", "data.s", "-o", str(arguments.out.resolve())], cwd=folder, check=True)
    out = arguments.out.resolve()
    arguments.flags.write_text(f"-Xlinker --defsym={symbol}={OWN_SYMBOL} -Xlinker {out}\n")
    print(f"ICU data: {len(listed)} items, {len(data) / 2**20:.2f} MiB; kept {len(kept)}, "
          f"{len(trimmed) / 2**20:.2f} MiB ({symbol})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
