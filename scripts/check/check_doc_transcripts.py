"""The JSON-RPC transcripts of docs/writing-a-client.md, checked against the bridge (`make
docs-test`): every line is a JSON-RPC 2.0 message (`...` written as `…` aside), and the block of
first calls is sent as written to a bridge, each answer having at least the members shown.

Usage: check_doc_transcripts.py BRIDGE"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "writing-a-client.md"
SETUP = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "1.0"}},
    {"jsonrpc": "2.0", "id": 2, "method": "configure", "params": {"apiKey": "pk_minimal", "options": {
        "configSource": {"type": "embedded"}, "dataDirectory": tempfile.mkdtemp(prefix="doc-transcript-")}}},
]


def parsed(line: str) -> dict:
    """A transcript line as JSON: `{…}` and `[…]` are empty, a `, …` member is left out."""
    text = line[3:].replace("{…}", "{}").replace("[…]", "[]")
    text = re.sub(r",\s*…", "", text).replace(": …", ": null")
    return json.loads(text)


def blocks() -> list[list[str]]:
    found, current, inside = [], [], False
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            if inside and current:
                found.append(current)
            current, inside = [], not inside
        elif inside and line.startswith(("-> ", "<- ")):
            current.append(line)
    return found


def main() -> None:
    transcripts = blocks()
    for block in transcripts:
        for line in block:
            message = parsed(line)
            if message.get("jsonrpc") != "2.0":
                sys.exit(f"{DOC.name}: not JSON-RPC 2.0 (no \"jsonrpc\": \"2.0\"): {line}")
    first_calls = next(block for block in transcripts if any('"method": "identify"' in line for line in block))
    bridge = subprocess.Popen([sys.argv[1]], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
    assert bridge.stdin is not None and bridge.stdout is not None
    expected = {parsed(line)["id"]: parsed(line) for line in first_calls if line.startswith("<- ") and "id" in parsed(line)}
    for message in SETUP + [parsed(line) for line in first_calls if line.startswith("-> ")]:
        bridge.stdin.write(json.dumps(message) + "\n")
        bridge.stdin.flush()
        while True:
            answer = json.loads(bridge.stdout.readline())
            if answer.get("id") == message["id"]:
                break
        if "error" in answer:
            sys.exit(f"{DOC.name}: {message['method']} answered an error: {answer['error']}")
        shown = expected.get(message["id"])
        if shown is not None:
            missing = set(shown["result"]) - set(answer["result"])
            if missing:
                sys.exit(f"{DOC.name}: {message['method']}'s answer has no {sorted(missing)}: {answer['result']}")
    bridge.stdin.close()
    bridge.wait(timeout=30)
    print(f"{DOC.name}: {sum(map(len, transcripts))} transcript lines are JSON-RPC 2.0; "
          f"{len(expected)} first calls answered as shown")


if __name__ == "__main__":
    main()
