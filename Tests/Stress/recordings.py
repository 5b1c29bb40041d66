"""The surfaces a user hands to a stranger or receives from one, replayed for `make stress`:
crafted recordings given to `replay`, redacted recordings of sessions that carry secrets in
every input, explanations of deep rules, and rules that do heavy work.
Imported by stress.py, whose Bridge, Tally and helpers these share."""
from __future__ import annotations

import json
import os
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from stress import Bridge, Tally, initialize, request

TIME = "2026-12-01T10:00:00.000Z"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "1.0", "client": {"name": "stress", "version": "0"}, "capabilities": {}}}


def frame(direction: str, message: Any) -> str:
    text = json.dumps(message, separators=(",", ":"))
    return json.dumps({"time": TIME, "direction": direction, "bytes": len(text), "frame": text})


def write_recording(path: Path, lines: list[str]) -> Path:
    header = json.dumps({"time": TIME, "direction": "note", "recording": 1, "randomSeed": 1, "redacted": False})
    with open(path, "w") as file:
        file.write(header + "\n")
        for line in lines:
            file.write(line + "\n")
    return path


def replay(binary: str, recording: Path, tally: Tally, *arguments: str, env: dict[str, str] | None = None,
           bound: float = 120) -> subprocess.CompletedProcess[str] | None:
    """`replay`, its peak RSS (and its bridge's, which it waits for) counted in the tally."""
    tally.tries += 1
    with tempfile.TemporaryFile("w+") as stdout, tempfile.TemporaryFile("w+") as stderr:
        process = subprocess.Popen([binary, "replay", *arguments, str(recording)], stdout=stdout, stderr=stderr,
                                   text=True, env=env)
        timer = threading.Timer(bound, process.kill)
        timer.start()
        _, status, usage = os.wait4(process.pid, 0)
        timer.cancel()
        process.returncode = os.waitstatus_to_exitcode(status)
        stdout.seek(0)
        stderr.seek(0)
        result = subprocess.CompletedProcess(process.args, process.returncode, stdout.read(), stderr.read())
    tally.peak_rss_kib = max(tally.peak_rss_kib, usage.ru_maxrss)
    if result.returncode == -9:
        tally.hangs += 1
        tally.note(f"replay of {recording.name} did not end within {bound:.0f} s")
        return None
    if result.returncode < 0:
        tally.crashes += 1
        tally.note(f"replay of {recording.name} died of signal {-result.returncode}")
    return result


def crafted_recordings(binary: str) -> Tally:
    """Recordings a stranger wrote: a configure in a batch naming a directory (and none, the
    default one), control characters, a recording over the size limit, a large one."""
    tally = Tally("crafted recordings")
    work = Path(tempfile.mkdtemp(prefix="stress-replay-"))
    home, named = work / "xdg", work / "named"
    env = dict(os.environ, XDG_DATA_HOME=str(home))
    for options in ({}, {"dataDirectory": str(named)}):
        crafted = write_recording(work / "batch.jsonl", [
            frame("in", INITIALIZE),
            frame("in", [{"jsonrpc": "2.0", "id": 2, "method": "configure",
                          "params": {"apiKey": "pk_app", "options": {"configSource": {"type": "embedded"}, **options}}}]),
            frame("in", {"jsonrpc": "2.0", "id": 3, "method": "reset"}),
            frame("in", {"jsonrpc": "2.0", "id": 4, "method": "shutdown"}),
            frame("in", {"jsonrpc": "2.0", "method": "exit"}),
        ])
        replay(binary, crafted, tally, env=env)
        if (home / "superwall-bridge").exists() or named.exists():
            tally.lost += 1
            tally.note(f"a batched configure ({options or 'no directory'}) wrote outside the replay's own directory")
    escapes = write_recording(work / "escapes.jsonl", [
        frame("in", INITIALIZE),
        frame("out", {"jsonrpc": "2.0", "method": "\u001b]0;title\u0007\u001b[2K\ridentical: 9 frames\u009b", "params": {}}),
    ])
    result = replay(binary, escapes, tally, "--frame-timeout", "1")
    if result and any(ord(c) < 0x20 and c != "\n" or 0x7F <= ord(c) <= 0x9F for c in result.stdout + result.stderr):
        tally.wrong += 1
        tally.note("a recording's control characters reached the terminal")
    pings = [frame("in", {"jsonrpc": "2.0", "id": index, "method": "$/ping"}) for index in range(2, 400_000)]
    large = write_recording(work / "large.jsonl", [frame("in", INITIALIZE), *pings])
    size = large.stat().st_size
    refused = replay(binary, large, tally, "--max-recording-size", str(size // 2))
    if refused and (refused.returncode != 2 or "larger than" not in refused.stderr):
        tally.wrong += 1
        tally.note(f"a recording over --max-recording-size was not refused: {refused.returncode}")
    played = replay(binary, large, tally, bound=300)
    if played and played.returncode not in (0, 1):
        tally.wrong += 1
        tally.note(f"the {size >> 20} MiB recording could not be replayed: {played.stderr[:200]}")
    tally.note(f"a {size >> 20} MiB recording replayed, the largest process at {tally.peak_rss_kib >> 10} MiB")
    return tally


def redacted_sessions(binary: str) -> Tally:
    """A session that sends a distinct secret down every input, recorded with --record-redact:
    no secret in the file in any spelling, and the file replays identically."""
    tally = Tally("redacted recordings")
    work = Path(tempfile.mkdtemp(prefix="stress-redact-"))
    for round_number in range(5):
        marker = f"R{round_number}X"
        secrets = {
            "key": f"pk_{marker}KEY0a1b2c3d4e5f6", "id": f"uid-{marker}-trimmed", "name": f"Zo\u00eb {marker}ESC",
            "email": f"{marker.lower()}-mail@example.com", "integration": f"ADJ-{marker}-INT",
            "param": f"param-{marker}@example.com", "code": f"REDEEM-{marker}-CODE",
        }
        recording = work / f"session-{round_number}.jsonl"
        bridge = Bridge(binary, "serve", "--record", str(recording), "--record-redact")
        initialize(bridge)
        calls: list[tuple[str, dict[str, Any]]] = [
            ("configure", {"apiKey": secrets["key"], "options": {"configSource": {"type": "embedded"},
                                                                "dataDirectory": str(work / f"data-{round_number}"),
                                                                "recordDecisions": True, "logging": {"level": "debug"}}}),
            ("identify", {"userId": f" {secrets['id']} "}),
            ("setUserAttributes", {"attributes": {"name": secrets["name"], "email": secrets["email"],
                                                  "appVersion": "2.0", "workouts_completed": 5}}),
            ("setIntegrationAttributes", {"attributes": {"adjustId": secrets["integration"]}}),
            ("register", {"placement": "workout_shared", "params": {"coupon": secrets["param"]}}),
            ("handleDeepLink", {"url": f"fitapp://promo?offer=summer&code={secrets['code']}"}),
            ("shutdown", {}),
        ]
        for index, (method, params) in enumerate(calls):
            tally.tries += 1
            if request(bridge, f"r{index}", method, params, bound=30) is None:
                tally.hangs += 1
                tally.note(f"{method} was not answered")
        bridge.send({"jsonrpc": "2.0", "method": "exit"})
        bridge.finish(tally)
        text = recording.read_text()
        for name, secret in secrets.items():
            for spelling in {secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]}:
                if spelling in text:
                    tally.wrong += 1
                    tally.note(f"round {round_number}: {name} is in the redacted recording")
        result = replay(binary, recording, tally)
        if result and not result.stdout.startswith("identical"):
            tally.wrong += 1
            tally.note(f"round {round_number}: the redacted recording did not replay: {result.stdout[:200]}")
    return tally


def rule_config(work: Path, rule: str) -> Path:
    config = json.loads(subprocess.run([os.environ.get("STRESS_BINARY", "superwall-bridge"), "demo-config"],
                                       capture_output=True, check=True).stdout)
    for trigger in config["trigger_options"]:
        if trigger["event_name"] == "daily_limit_reached":
            trigger["rules"][0]["expression_cel"] = rule
    path = work / f"config-{abs(hash(rule))}.json"
    path.write_text(json.dumps(config))
    return path


def heavy_rules(binary: str) -> Tally:
    """Explanations of deep member chains, and rules that make or search megabytes: each
    answered within its bound, with bounded memory, and another placement answered meanwhile."""
    tally = Tally("heavy rules and explanations")
    os.environ["STRESS_BINARY"] = binary
    work = Path(tempfile.mkdtemp(prefix="stress-rules-"))
    big = "[" + "'" + "a" * 1000 + "'" + "]" + ".map(s, s + s)" * 10
    ones = "[" + ",".join("1" for _ in range(245)) + "]"
    rules = [" user." + ".".join(f"f{depth}" for depth in range(1, count + 1)) + " == 1" for count in (24, 64, 256)]
    rules.append(f"size({big}.map(b, {ones}.map(i, {ones}.filter(j, b.contains('zz'))))) > 0")
    rules.append("size([" + ",".join(str(n) for n in range(1, 3000)) + "].map(x, " + big + "[0] + string(x))) > 0")
    for number, rule in enumerate(rules):
        bridge = Bridge(binary)
        initialize(bridge)
        request(bridge, "c", "configure", {"apiKey": "pk_stress", "options": {
            "configSource": {"type": "file", "path": str(rule_config(work, rule))},
            "dataDirectory": str(work / f"data-{number}")}}, bound=60)
        tally.tries += 1
        started = time.monotonic()
        bridge.send({"jsonrpc": "2.0", "id": "heavy", "method": "getPresentationResult",
                     "params": {"placement": "daily_limit_reached", "explain": True}})
        other = request(bridge, "other", "getPresentationResult", {"placement": "workout_shared"}, bound=30)
        other_seconds = time.monotonic() - started
        answered = bridge.wait_for(lambda lines: any(b'"id":"heavy"' in line for line in lines), 30)
        if not answered or other is None:
            tally.hangs += 1
            tally.note(f"rule {number} ({len(rule)} bytes): not answered within 30 s")
        elif other_seconds > 10:
            tally.hangs += 1
            tally.note(f"rule {number}: another placement waited {other_seconds:.1f} s behind it")
        bridge.sample_rss()
        bridge.finish(tally, expect_exit=None)
    return tally
