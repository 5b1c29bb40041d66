#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (Tests/Fuzz/corpus/TARGET/, one input a file named by
its SHA-1, as libFuzzer names them) from the repo's own test data: the rule language's
conformance cases, the patterns they match with, the configs, and framed JSON-RPC messages.
Run it again when that data changes; `make fuzz` reads the folders as they are."""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def write(target: str, inputs: list[bytes]) -> None:
    folder = HERE / "corpus" / target
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    for data in dict.fromkeys(inputs):
        (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)
    print(f"{target}: {len(list(folder.iterdir()))} seeds")


def rules() -> list[str]:
    cases = []
    for name in ("rules-cases.json", "cel-spec-cases.json"):
        cases += json.loads((ROOT / "Tests/RulesTests/Fixtures" / name).read_text())
    return [case["expr"] for case in cases if isinstance(case.get("expr"), str) and len(case["expr"]) <= 4096]


def patterns(expressions: list[str]) -> list[bytes]:
    found = [b"^(a+)+$\x00" + b"a" * 40 + b"!", b"\\bw\\w+\x00hello world\x85", b"(?i)caf[e\xc3\xa9]\x00Caf\xc3\xa9"]
    for expression in expressions:
        for pattern in re.findall(r"matches\(\s*['\"]((?:[^'\"\\]|\\.)*)['\"]", expression):
            found.append(pattern.encode() + b"\x00" + b"user@example.com 2026-12-01 abc_123")
    return found


def framed() -> list[bytes]:
    ping = b'{"jsonrpc":"2.0","id":1,"method":"$/ping"}'
    batch = b'[{"jsonrpc":"2.0","id":1,"method":"$/ping"},{"jsonrpc":"2.0","method":"exit"}]'
    inputs = []
    for limit in (0x3F, 0x10, 0x05):
        inputs.append(bytes([limit, 7]) + ping + b"\n" + batch + b"\r\n\n")
        inputs.append(bytes([limit | 0x40, 3]) + b"Content-Length: %d\r\n\r\n" % len(ping) + ping)
        inputs.append(bytes([limit | 0x80, 5]) + b"  \n" + ping + b"\n" + b" " * 70 + b"\n" + ping)
    return inputs


def main() -> None:
    expressions = rules()
    write("rules", [e.encode() for e in expressions])
    write("regex", patterns(expressions))
    configs = [ROOT / "config/demo.json", *sorted((ROOT / "protocol/conformance/configs").glob("*.json"))]
    contexts = [json.dumps(case["ctx"]).encode() for case in json.loads(
        (ROOT / "Tests/RulesTests/Fixtures/rules-cases.json").read_text()) if "ctx" in case]
    write("json", [path.read_bytes() for path in configs] + contexts[:100])
    write("framing", framed())


if __name__ == "__main__":
    main()
