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
