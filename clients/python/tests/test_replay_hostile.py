"""``superwall-bridge replay`` given recordings a stranger wrote, and recordings of sessions that
bind a delegate: the replay writes only in a directory of its own, keeps a crafted file's
control characters off the terminal, refuses a file over its size limit, and replays a
delegate's events identically."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

TIME = "2026-12-01T10:00:00.000Z"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "1.0", "client": {"name": "x", "version": "0"}, "capabilities": {}}}


def frame(direction: str, message: Any) -> str:
    text = json.dumps(message, separators=(",", ":"))
    return json.dumps({"time": TIME, "direction": direction, "bytes": len(text), "frame": text})


def write_recording(path: Path, lines: list[str]) -> Path:
    header = json.dumps({"time": TIME, "direction": "note", "recording": 1, "randomSeed": 1, "redacted": False})
    path.write_text("\n".join([header, *lines]) + "\n")
    return path


def replay(bridge: str, recording: Path, *arguments: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([bridge, "replay", *arguments, str(recording)], capture_output=True, text=True,
                          timeout=120, env=env)


def serve_one_call_at_a_time(bridge: str, arguments: list[str], lines: list[str]) -> int:
    """Sends each request once the one before it is answered, as a client awaiting each call does."""
    process = subprocess.Popen([bridge, "serve", *arguments], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    assert process.stdin is not None and process.stdout is not None
    for line in lines:
        process.stdin.write(line + "\n")
        process.stdin.flush()
        request_id = json.loads(line).get("id")
        while request_id is not None:
            answer = json.loads(process.stdout.readline())
            if answer.get("id") == request_id and "method" not in answer:
                break
    process.stdin.close()
    process.stdout.read()
    return process.wait(timeout=60)


def test_a_configure_inside_a_batch_opens_neither_the_directory_it_names_nor_the_default_one(
        bridge: str, tmp_path: Path) -> None:
    home, named = tmp_path / "xdg", tmp_path / "named"
    env = dict(os.environ, XDG_DATA_HOME=str(home))
    crafted = write_recording(tmp_path / "crafted.jsonl", [
        frame("in", INITIALIZE),
        frame("in", [{"jsonrpc": "2.0", "id": 2, "method": "configure",
                      "params": {"apiKey": "pk_app", "options": {"configSource": {"type": "embedded"}}}}]),
        frame("in", [{"jsonrpc": "2.0", "id": 3, "method": "configure",
                      "params": {"apiKey": "pk_app", "options": {"configSource": {"type": "embedded"},
                                                                 "dataDirectory": str(named)}}}]),
        frame("in", {"jsonrpc": "2.0", "id": 4, "method": "reset"}),
        frame("in", {"jsonrpc": "2.0", "id": 5, "method": "shutdown"}),
        frame("in", {"jsonrpc": "2.0", "method": "exit"}),
    ])
    replay(bridge, crafted, env=env)
    assert not (home / "superwall-bridge").exists(), list(home.rglob("*"))
    assert not named.exists(), list(named.rglob("*"))


def test_a_session_with_a_delegate_replays_identically(bridge: str, tmp_path: Path) -> None:
    recording = tmp_path / "delegate.jsonl"
    messages: list[dict[str, Any]] = [
        {**INITIALIZE, "params": {**INITIALIZE["params"], "capabilities": {"delegate": True}}},
        {"jsonrpc": "2.0", "id": 2, "method": "configure",
         "params": {"apiKey": "pk_x", "options": {"configSource": {"type": "embedded"},
                                                  "dataDirectory": str(tmp_path / "data")}}},
        {"jsonrpc": "2.0", "id": 3, "method": "register", "params": {"placement": "workout_shared"}},
        {"jsonrpc": "2.0", "id": 4, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    served = subprocess.run([bridge, "serve", "--record", str(recording)], capture_output=True, text=True, timeout=120,
                            input="".join(json.dumps(m) + "\n" for m in messages))
    assert served.returncode == 0, served.stderr
    assert "fetch_duration" in recording.read_text(), "the delegate was told of the config's refresh"
    replayed = replay(bridge, recording)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert replayed.stdout.startswith("identical: "), replayed.stdout


def test_a_recordings_control_characters_reach_the_terminal_escaped(bridge: str, tmp_path: Path) -> None:
    escape = "\u001b]0;pwned\u0007\u001b[2K\ridentical: 22 frames\u009b"
    crafted = write_recording(tmp_path / "escapes.jsonl", [
        frame("in", INITIALIZE),
        frame("out", {"jsonrpc": "2.0", "method": escape, "params": {}}),
    ])
    replayed = replay(bridge, crafted, "--frame-timeout", "1")
    assert replayed.returncode == 1, replayed.stdout + replayed.stderr
    output = replayed.stdout + replayed.stderr
    assert not any(ord(c) < 0x20 and c != "\n" or 0x7F <= ord(c) <= 0x9F for c in output), repr(output)
    assert "\\u{1b}]0;pwned" in output, output


def test_a_recording_over_the_size_limit_is_refused_before_it_is_read(bridge: str, tmp_path: Path) -> None:
    recording = write_recording(tmp_path / "large.jsonl", [frame("in", INITIALIZE)] * 100)
    refused = replay(bridge, recording, "--max-recording-size", "4096")
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "larger than 4096 bytes" in refused.stderr, refused.stderr
    assert replay(bridge, recording).returncode != 2


def test_a_redacted_recording_holds_no_secret_a_session_sent_in_any_spelling_and_still_replays(
        bridge: str, tmp_path: Path) -> None:
    secrets = {
        "key": "pk_PLANTEDKEY0a1b2c3d4e5f6a7b8",
        "trimmed id": "uid-PLANTED-TRIM-41",
        "escaped name": "Zo\u00eb PLANTEDESC",
        "email": "planted-mail-3@example.com",
        "phone": "15551234567",
        "integration": "ADJ-PLANTED-5",
        "placement param": "param-PLANTED-6@example.com",
        "deep link code": "REDEEM-PLANTED-8",
        "protocol-looking value": "2.0",
    }
    recording = tmp_path / "redacted.jsonl"
    lines = [
        json.dumps({**INITIALIZE, "params": {**INITIALIZE["params"], "capabilities": {"delegate": True}}}),
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "configure", "params": {
            "apiKey": secrets["key"], "options": {"configSource": {"type": "embedded"},
                                                  "dataDirectory": str(tmp_path / "data"),
                                                  "recordDecisions": True, "logging": {"level": "debug"}}}}),
        json.dumps({"jsonrpc": "2.0", "id": 3, "method": "identify",
                    "params": {"userId": f"  {secrets['trimmed id']} "}}),
        # As Python's json.dumps writes it by default: every non-ASCII character escaped.
        json.dumps({"jsonrpc": "2.0", "id": 4, "method": "setUserAttributes", "params": {"attributes": {
            "name": secrets["escaped name"], "email": secrets["email"], "phone": int(secrets["phone"]),
            "appVersion": secrets["protocol-looking value"], "workouts_completed": 5}}}, ensure_ascii=True),
        json.dumps({"jsonrpc": "2.0", "id": 5, "method": "setIntegrationAttributes",
                    "params": {"attributes": {"adjustId": secrets["integration"]}}}),
        json.dumps({"jsonrpc": "2.0", "id": 6, "method": "register", "params": {
            "placement": "workout_shared", "params": {"coupon_email": secrets["placement param"]}}}),
        json.dumps({"jsonrpc": "2.0", "id": 7, "method": "handleDeepLink",
                    "params": {"url": f"fitapp://promo?offer=summer&code={secrets['deep link code']}"}}),
        json.dumps({"jsonrpc": "2.0", "id": 8, "method": "shutdown"}),
        json.dumps({"jsonrpc": "2.0", "method": "exit"}),
    ]
    assert serve_one_call_at_a_time(bridge, ["--record", str(recording), "--record-redact"], lines) == 0
    text = recording.read_text()
    for name, secret in secrets.items():
        if name == "protocol-looking value":
            continue
        spellings = {secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1],
                     json.dumps(json.dumps(secret))[1:-1]}
        for spelling in spellings:
            assert spelling not in text, f"{name} ({spelling!r}) is in the recording"
    # A value that looks like protocol is a value: the protocol's own strings are kept.
    frames = [json.loads(json.loads(line)["frame"]) for line in text.splitlines()
              if json.loads(line)["direction"] in ("in", "out")]
    assert all(frame.get("jsonrpc") == "2.0" for frame in frames if isinstance(frame, dict))
    replayed = replay(bridge, recording)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert replayed.stdout.startswith("identical: "), replayed.stdout
