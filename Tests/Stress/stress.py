#!/usr/bin/env python3
"""The hostile client, replayed: `make stress` (minutes; not part of `make test`).

Each category drives the real binary with input a wrapper should never send, and counts
tries, crashes (the process died of a signal or exited non-zero on its own), hangs (an answer
that did not come within its bound), wrong answers (output that is not a JSON-RPC frame, a
missing or extra answer, an error where a result was due), data lost (a restart that does not
hold what was acknowledged, or that loses it without saying so) and the peak RSS (VmHWM) of the
bridge. The table at the end is what the closing notes quote. Everything is seeded, so two runs
send the same bytes. Exit status 1 when any crash, hang or wrong answer was counted.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Any

ANSWER_BOUND = 10.0  # seconds an answer may take before it counts as a hang


@dataclass
class Tally:
    name: str
    tries: int = 0
    crashes: int = 0
    hangs: int = 0
    wrong: int = 0
    lost: int = 0
    peak_rss_kib: int = 0
    notes: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        if len(self.notes) < 12:
            self.notes.append(text)


class Bridge:
    """One bridge process; output lines collected by a thread."""

    def __init__(self, binary: str, *arguments: str) -> None:
        self.process = subprocess.Popen([binary, *arguments], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, bufsize=0)
        self.lines: list[bytes] = []
        # Everything read, for Content-Length framing, whose last body ends without a newline.
        self.raw = bytearray()
        self.condition = threading.Condition()
        self.closed = False
        self.peak_rss_kib = 0
        # Set: this client stops reading (back-pressure).
        self.paused = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        buffer = bytearray()
        while True:
            while self.paused.is_set():
                time.sleep(0.01)
            chunk = self.process.stdout.read(65536)
            if not chunk:
                break
            # Split only what a newline completes: a 55 MB answer read a chunk at a time.
            buffer += chunk
            complete: list[bytes] = []
            if b"\n" in chunk:
                *parts, rest = bytes(buffer).split(b"\n")
                complete = parts
                buffer = bytearray(rest)
            with self.condition:
                self.raw += chunk
                self.lines.extend(line for line in complete if line.strip())
                self.condition.notify_all()
        with self.condition:
            if buffer.strip():
                self.lines.append(bytes(buffer))
            self.closed = True
            self.condition.notify_all()

    def write(self, data: bytes) -> bool:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(data)
            return True
        except (BrokenPipeError, OSError):
            return False

    def send(self, message: dict[str, Any]) -> bool:
        return self.write((json.dumps(message) + "\n").encode())

    def wait_for(self, predicate: Any, bound: float = ANSWER_BOUND) -> bool:
        deadline = time.monotonic() + bound
        with self.condition:
            while not predicate(self.lines):
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self.closed:
                    return bool(predicate(self.lines))
                self.condition.wait(remaining)
            return True

    def sample_rss(self) -> None:
        try:
            with open(f"/proc/{self.process.pid}/status") as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        self.peak_rss_kib = max(self.peak_rss_kib, int(line.split()[1]))
        except OSError:
            pass

    def finish(self, tally: Tally, expect_exit: int | None = 0) -> None:
        """Closes the input and accounts for how the process ended."""
        self.sample_rss()
        tally.peak_rss_kib = max(tally.peak_rss_kib, self.peak_rss_kib)
        try:
            assert self.process.stdin is not None
            self.process.stdin.close()
        except OSError:
            pass
        try:
            code = self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            tally.hangs += 1
            tally.note("did not exit within 15 s of end of input")
            self.process.kill()
            self.process.wait()
            return
        if code < 0:
            tally.crashes += 1
            tally.note(f"died of signal {-code}")
        elif expect_exit is not None and code != expect_exit:
            tally.crashes += 1
            tally.note(f"exit status {code}")

    def answers(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.lines]


def initialize(bridge: Bridge, framing: str = "ndjson") -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {"protocolVersion": "1.0"}}).encode()
    bridge.write(frame(body, framing))
    bridge.wait_for(lambda lines: b'"init"' in bridge.raw)


def frame(body: bytes, framing: str) -> bytes:
    return body + b"\n" if framing == "ndjson" else b"Content-Length: %d\r\n\r\n" % len(body) + body


def valid_frames(lines: list[bytes], tally: Tally) -> list[dict[str, Any]]:
    """The parsed output; each line that is not a JSON-RPC object counts as a wrong answer."""
    parsed = []
    for line in lines:
        try:
            message = json.loads(line)
            assert isinstance(message, (dict, list))
            parsed.append(message)
        except (ValueError, AssertionError):
            tally.wrong += 1
            tally.note(f"not a frame: {line[:80]!r}")
    return parsed


# ---- categories ----

PING = b'{"jsonrpc":"2.0","id":%d,"method":"$/ping"}'


def framing_lies(binary: str, rounds: int) -> Tally:
    """Content-Length headers that lie, each followed by ten honest pings: all ten answered."""
    tally = Tally("framing lies")
    lies = ["-5", "ten", "", "3", "1000", str(2**62), "99999999999999999999"]
    for round_number in range(rounds):
        for lie in lies:
            tally.tries += 1
            bridge = Bridge(binary, "--framing", "content-length", "--max-message-size", "1048576")
            initialize(bridge, "content-length")
            # Content-Length framing: the reader splits replies by line only for the count below,
            # so the replies are parsed from the raw stream instead.
            bad_body = PING % 1
            data = b"Content-Length: " + lie.encode() + b"\r\n\r\n" + bad_body
            for index in range(10):
                data += frame(PING % (100 + index), "content-length")
            bridge.write(data)
            wanted = {100 + index for index in range(10)}

            def answered(lines: list[bytes]) -> bool:
                return all(b'"id":%d,"result"' % number in bridge.raw for number in wanted)

            if not bridge.wait_for(answered):
                tally.hangs += 1
                tally.note(f"Content-Length: {lie!r}: the pings after it were not all answered")
            bridge.finish(tally)
        del round_number
    return tally


def fuzzing(binary: str, count: int, seed: int) -> Tally:
    """Seeded mutations of valid messages; after every 50 a sentinel ping must be answered,
    and every line out must be a frame."""
    tally = Tally("fuzzing")
    rng = random.Random(seed)
    templates = [
        b'{"jsonrpc":"2.0","id":%d,"method":"$/ping"}',
        b'{"jsonrpc":"2.0","id":%d,"method":"debug/echo","params":{"a":[1,2,{"b":"c"}],"d":1.5e3}}',
        b'{"jsonrpc":"2.0","id":%d,"method":"getConfigurationStatus","params":{}}',
        b'{"jsonrpc":"2.0","id":%d,"method":"debug/evaluateExpression","params":{"expression":"1 + 2 == 3","context":{}}}',
        b'[{"jsonrpc":"2.0","id":%d,"method":"$/ping"},{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}]',
    ]
    alphabet = b'{}[]":,0123456789.-+eE \\\x00\x01\xff\xc3\xa9truefalsenull'
    bridge = Bridge(binary)
    initialize(bridge)
    sentinel = 10_000_000
    for index in range(count):
        tally.tries += 1
        body = bytearray(rng.choice(templates) % index)
        for _ in range(rng.randint(1, 4)):
            position = rng.randrange(len(body) + 1)
            action = rng.random()
            if action < 0.4:
                body[position:position + 1] = bytes([rng.choice(alphabet)])
            elif action < 0.7:
                del body[position:position + rng.randint(1, 5)]
            else:
                body[position:position] = bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 5)))
        if not bridge.write(bytes(body).replace(b"\n", b" ") + b"\n"):
            break
        if index % 50 == 49:
            sentinel += 1
            bridge.write(PING % sentinel + b"\n")
            needle = b'"id":%d,' % sentinel
            if not bridge.wait_for(lambda lines: any(needle in line for line in lines[-200:])):
                tally.hangs += 1
                tally.note(f"sentinel {sentinel} unanswered after fuzz message {index}")
                break
    bridge.sample_rss()
    valid_frames(bridge.lines, tally)
    bridge.finish(tally)
    return tally


def back_pressure(binary: str, seconds: float, ceiling_mib: int) -> Tally:
    """A client that writes echo requests and reads nothing for a while: the bridge must stop
    reading (RSS flat under the ceiling), then answer every request once the client reads."""
    tally = Tally("back-pressure")
    bridge = Bridge(binary, "--max-queued-output", str(8 * 1024 * 1024))
    initialize(bridge)
    payload = "x" * 1000
    written = 0
    stop = threading.Event()

    def writer() -> None:
        nonlocal written
        while not stop.is_set():
            if not bridge.send({"jsonrpc": "2.0", "id": written, "method": "debug/echo", "params": {"p": payload}}):
                return
            written += 1

    bridge.paused.set()
    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        bridge.sample_rss()
        time.sleep(0.2)
    written_while_paused = written
    bridge.paused.clear()
    time.sleep(1)
    stop.set()
    thread.join(timeout=ANSWER_BOUND)
    total = written
    tally.tries = total
    if not bridge.wait_for(lambda lines: len(lines) >= total + 1, bound=60):
        tally.hangs += 1
        tally.note(f"{len(bridge.lines) - 1} of {total} answered")
    answers = valid_frames(bridge.lines, tally)
    ids = [answer.get("id") for answer in answers if answer.get("id") != "init"]
    if sorted(ids) != list(range(total)):
        tally.wrong += 1
        tally.note(f"answers {len(ids)} for {total} requests")
    if bridge.peak_rss_kib > ceiling_mib * 1024:
        tally.wrong += 1
        tally.note(f"peak RSS {bridge.peak_rss_kib // 1024} MiB over the {ceiling_mib} MiB ceiling")
    tally.note(f"{written_while_paused} requests taken in {seconds:.0f} s without reading")
    bridge.finish(tally)
    return tally


def oversized(binary: str) -> Tally:
    """Every documented limit, each met by an input past it: a clear error, and the session goes on."""
    tally = Tally("oversized inputs")
    folder = tempfile.mkdtemp(prefix="stress-")
    big_config = os.path.join(folder, "big.json")
    with open(big_config, "wb") as handle:
        handle.write(b" " * (17 * 1024 * 1024))
    fifo = os.path.join(folder, "fifo")
    os.mkfifo(fifo)
    nested: Any = "leaf"
    for _ in range(511):
        nested = {"a": nested}
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("setUserAttributes", {"attributes": {"deep": nested}}, "error"),
        ("setUserAttributes", {"attributes": {"bio": "x" * (70 * 1024)}}, "error"),
        ("setLocaleIdentifier", {"localeIdentifier": "e" * (20 * 1024 * 1024)}, "error"),
        ("identify", {"userId": "u" * 5000}, "error"),
        ("setSubscriptionStatus", {"status": {"type": "active", "entitlements": [{"id": f"e{i}"} for i in range(2000)]}}, "error"),
        ("setDelegate", {"enabled": None}, "error"),
        ("debug/echo", {"p": "x" * (2 * 1024 * 1024)}, "error"),
    ]
    configures: list[tuple[dict[str, Any], str]] = [
        ({"eventFlushIntervalMs": 0}, "error"),
        ({"maxConfigRetryCount": 1_000_000_000}, "error"),
        ({"networkEnvironment": "prod"}, "error"),
        ({"dataDirectory": "/tmp/a\u0000b"}, "error"),
        ({"configSource": {"type": "file", "path": big_config}}, "failed"),
        ({"configSource": {"type": "file", "path": fifo}}, "failed"),
        ({"configSource": {"type": "file", "path": "/dev/zero"}}, "failed"),
    ]
    for options, expected in configures:
        tally.tries += 1
        bridge = Bridge(binary)
        initialize(bridge)
        merged = {"configSource": {"type": "embedded"}, "dataDirectory": tempfile.mkdtemp(prefix="stress-data-"), **options}
        bridge.send({"jsonrpc": "2.0", "id": 1, "method": "configure", "params": {"apiKey": "pk_stress", "options": merged}})
        bridge.send({"jsonrpc": "2.0", "id": 2, "method": "$/ping"})
        if not bridge.wait_for(lambda lines: sum(1 for line in lines if b'"id":1,' in line or b'"id":2,' in line) >= 2):
            tally.hangs += 1
            tally.note(f"configure {options}: no answer")
        else:
            answer = next(a for a in bridge.answers() if a.get("id") == 1)
            got = "error" if "error" in answer else answer["result"]["configurationStatus"]
            if got != expected:
                tally.wrong += 1
                tally.note(f"configure {list(options)}: {got}, expected {expected}")
            elif "error" in answer and len(answer["error"]["message"].encode()) > 1024:
                tally.wrong += 1
                tally.note(f"configure {list(options)}: a {len(answer['error']['message'])}-byte message")
        bridge.finish(tally)
    bridge = Bridge(binary, "--max-message-size", str(1024 * 1024))
    initialize(bridge)
    bridge.send({"jsonrpc": "2.0", "id": "c", "method": "configure",
                 "params": {"apiKey": "pk_stress", "options": {"configSource": {"type": "embedded"},
                                                               "dataDirectory": tempfile.mkdtemp(prefix="stress-data-")}}})
    bridge.wait_for(lambda lines: any(b'"c"' in line for line in lines))
    for number, (method, params, expected) in enumerate(cases, start=10):
        tally.tries += 1
        count_before = len(bridge.lines)
        bridge.send({"jsonrpc": "2.0", "id": number, "method": method, "params": params})
        bridge.send({"jsonrpc": "2.0", "id": number + 1000, "method": "$/ping"})
        needle = b'"id":%d,' % (number + 1000)
        if not bridge.wait_for(lambda lines: any(needle in line for line in lines[count_before:])):
            tally.hangs += 1
            tally.note(f"{method}: the ping after it was not answered")
            continue
        answers = [json.loads(line) for line in bridge.lines[count_before:]]
        answer = next((a for a in answers if a.get("id") in (number, None) and "error" in a), None)
        if expected == "error" and answer is None:
            tally.wrong += 1
            tally.note(f"{method}: accepted")
        elif answer is not None and len(answer["error"]["message"].encode()) > 1024:
            tally.wrong += 1
            tally.note(f"{method}: a {len(answer['error']['message'])}-byte message")
    bridge.sample_rss()
    valid_frames(bridge.lines, tally)
    bridge.finish(tally)
    return tally


def signals(binary: str, rounds: int) -> Tally:
    """2,001 pipelined pings, then a signal: whatever was read is answered in order's sense (no
    partial frame, no duplicate), and the process exits 0."""
    tally = Tally("signals")
    for round_number in range(rounds):
        number = [signal.SIGTERM, signal.SIGINT, signal.SIGHUP][round_number % 3]
        tally.tries += 1
        bridge = Bridge(binary)
        initialize(bridge)
        data = b"".join(PING % index + b"\n" for index in range(2001))
        writer = threading.Thread(target=bridge.write, args=(data,), daemon=True)
        writer.start()
        bridge.wait_for(lambda lines: len(lines) > 100)
        bridge.sample_rss()
        tally.peak_rss_kib = max(tally.peak_rss_kib, bridge.peak_rss_kib)
        bridge.process.send_signal(number)
        try:
            code = bridge.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            tally.hangs += 1
            tally.note(f"signal {number}: still running after 15 s")
            bridge.process.kill()
            bridge.process.wait()
            continue
        bridge.wait_for(lambda lines: bridge.closed, bound=5)
        answers = valid_frames(bridge.lines, tally)
        ids = [answer.get("id") for answer in answers if answer.get("id") != "init"]
        if len(ids) != len(set(ids)) or any(answer.get("result") != {} for answer in answers[1:]):
            tally.wrong += 1
            tally.note(f"signal {number}: duplicate or failed answers")
        if ids != list(range(len(ids))):
            tally.wrong += 1
            tally.note(f"signal {number}: answers are not the first {len(ids)} requests")
        if code != 0:
            tally.crashes += 1
            tally.note(f"signal {number}: exit status {code}")
    return tally


# ---- storage and floods ----

def request(bridge: Bridge, message_id: Any, method: str, params: dict[str, Any] | None = None,
            bound: float = ANSWER_BOUND) -> dict[str, Any] | None:
    """Sends a request and waits for its answer."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": message_id, "method": method}
    if params is not None:
        message["params"] = params
    bridge.send(message)
    needle = json.dumps(message_id).encode()

    def answered(lines: list[bytes]) -> bool:
        return any(b'"id":' + needle in line.replace(b'"id": ', b'"id":') for line in lines)

    if not bridge.wait_for(answered, bound):
        return None
    for line in reversed(bridge.lines):
        answer = json.loads(line)
        if answer.get("id") == message_id and "method" not in answer:
            return answer
    return None


def configured(binary: str, directory: str) -> tuple[Bridge, dict[str, Any] | None]:
    bridge = Bridge(binary)
    initialize(bridge)
    answer = request(bridge, "configure", "configure",
                     {"apiKey": "pk_stress", "options": {"configSource": {"type": "embedded"}, "dataDirectory": directory}})
    return bridge, answer


def answered(line: bytes, request_id: str) -> bool:
    """Whether `line` is the result of the request `request_id`."""
    try:
        message = json.loads(line)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("id") == request_id and "result" in message


def crash_mid_identify(binary: str, rounds: int, seed: int) -> Tally:
    """SIGKILL at a random moment of an identify to another user: the restart holds the old
    user or the new one (the new one if its identify was answered), whole, never an anonymous one."""
    tally = Tally("crash mid-identify")
    chooser = random.Random(seed)
    directory = tempfile.mkdtemp(prefix="stress-identify-")
    acknowledged = None
    for round_number in range(rounds):
        tally.tries += 1
        bridge, answer = configured(binary, directory)
        user = (answer or {}).get("result", {}).get("userId")
        if acknowledged is not None and user != acknowledged:
            tally.lost += 1
            tally.note(f"round {round_number}: restart is {user!r}, {acknowledged!r} was acknowledged")
        elif acknowledged is None and user is not None:
            acknowledged = user
        target = f"user_{round_number}"
        bridge.send({"jsonrpc": "2.0", "id": "identify", "method": "identify", "params": {"userId": target}})
        time.sleep(chooser.uniform(0, 0.02))
        bridge.process.kill()
        bridge.process.wait()
        bridge.wait_for(lambda lines: bridge.closed, bound=5)
        # The identify's own answer: `initialize`'s result names "identify" among its methods.
        if any(answered(line, "identify") for line in bridge.lines):
            acknowledged = target
        restarted, answer = configured(binary, directory)
        user = (answer or {}).get("result", {}).get("userId")
        if user not in (acknowledged, target):
            tally.lost += 1
            tally.note(f"round {round_number}: restart is {user!r}, expected {acknowledged!r} or {target!r}")
        acknowledged = user
        restarted.finish(tally)
    return tally


def hostile_storage(binary: str) -> Tally:
    """Links planted as the data directory's files are refused and their targets untouched; a
    crafted journal record and a lost write-ahead log are reported, not a crash or a silent
    fresh install."""
    tally = Tally("hostile storage")
    for name in ["bridge.lock", "superwall.sqlite", "superwall.sqlite-wal", "superwall.sqlite-placements-0",
                 "superwall.sqlite-placements-1", "events.jsonl"]:
        tally.tries += 1
        directory = tempfile.mkdtemp(prefix="stress-link-")
        victim = os.path.join(tempfile.mkdtemp(prefix="stress-victim-"), "victim")
        with open(victim, "w") as file:
            file.write("victim\n")
        os.symlink(victim, os.path.join(directory, name))
        bridge, answer = configured(binary, directory)
        kind = (((answer or {}).get("result") or {}).get("error") or {}).get("data", {}).get("kind")
        if kind != "dataDirectoryUnusable":
            tally.wrong += 1
            tally.note(f"{name}: configure answered {answer}")
        with open(victim) as file:
            if file.read() != "victim\n":
                tally.lost += 1
                tally.note(f"{name}: the link's target was written")
        bridge.finish(tally)
    # A record with a valid checksum and an impossible sequence number.
    tally.tries += 1
    directory = killed_after(binary, "stress-journal-", "register", {"placement": "workout_shared"})
    path = os.path.join(directory, "superwall.sqlite-placements-0")
    with open(path, "r+b") as file:
        header = file.read(8)
        length = int.from_bytes(header[:4], "little")
        payload = bytearray(file.read(length))
        payload[0:8] = (1 << 63).to_bytes(8, "little")
        file.seek(0)
        file.write(header[:4] + journal_checksum(bytes(payload)).to_bytes(4, "little") + payload)
    bridge, answer = configured(binary, directory)
    warnings = ((answer or {}).get("result") or {}).get("warnings", [])
    if bridge.process.poll() is not None or not any("not valid" in warning.get("message", "") for warning in warnings):
        tally.wrong += 1
        tally.note(f"crafted journal record: {answer}")
    bridge.finish(tally)
    # The write-ahead log lost after a crash.
    tally.tries += 1
    directory = killed_after(binary, "stress-wal-", "identify", {"userId": "wal_user"})
    os.unlink(os.path.join(directory, "superwall.sqlite-wal"))
    bridge, answer = configured(binary, directory)
    result = (answer or {}).get("result") or {}
    if result.get("userId") != "wal_user" and not any("write-ahead log" in w.get("message", "") for w in result.get("warnings", [])):
        tally.lost += 1
        tally.note("a lost write-ahead log passed for a fresh install")
    bridge.finish(tally)
    return tally


def killed_after(binary: str, prefix: str, method: str, params: dict[str, Any]) -> str:
    """A new data directory, configured, one call answered, then the bridge killed: its path."""
    directory = tempfile.mkdtemp(prefix=prefix)
    bridge, _ = configured(binary, directory)
    request(bridge, method, method, params)
    bridge.process.kill()
    bridge.process.wait()
    return directory


def journal_checksum(payload: bytes) -> int:
    """The placement journal's checksum of a record's payload (PlacementJournal.checksum)."""
    mask = (1 << 64) - 1
    value = (0x9E3779B97F4A7C15 ^ len(payload)) & mask
    offset = 0
    while offset + 8 <= len(payload):
        value = ((value ^ int.from_bytes(payload[offset:offset + 8], "little")) * 0xFF51AFD7ED558CCD) & mask
        value ^= value >> 29
        offset += 8
    while offset < len(payload):
        value = ((value ^ payload[offset]) * 0xC4CEB9FE1A85EC53) & mask
        offset += 1
    value ^= value >> 32
    return value & 0xFFFFFFFF


def floods(binary: str) -> Tally:
    """50,000 unknown notifications with a delegate bound, and a rule of 200 matches() on a
    60 KB value: a ping behind each is answered within the bound, and the slow rule can be cancelled."""
    tally = Tally("floods")
    bridge = Bridge(binary)
    body = json.dumps({"jsonrpc": "2.0", "id": "init", "method": "initialize",
                       "params": {"protocolVersion": "1.0", "capabilities": {"delegate": True}}}).encode()
    bridge.write(body + b"\n")
    bridge.wait_for(lambda lines: b'"init"' in bridge.raw)
    tally.tries += 1
    bridge.write(b"".join(b'{"jsonrpc":"2.0","method":"vendor/unknown%d"}\n' % (index % 10) for index in range(50_000)))
    started = time.monotonic()
    if request(bridge, "after-flood", "$/ping", bound=3.0) is None:
        tally.hangs += 1
        tally.note(f"a ping behind 50,000 unknown notifications took over 3 s ({time.monotonic() - started:.1f} s)")
    tally.tries += 1
    heavy = " || ".join(f"text.matches('(a|b)*c{index}')" for index in range(200))
    context = {"variables": {"text": {"type": "string", "value": "a" * 60_000}}}
    bridge.send({"jsonrpc": "2.0", "id": "slow", "method": "debug/evaluateExpression", "params": {"expression": heavy, "context": context}})
    if request(bridge, "beside-slow", "$/ping", bound=1.0) is None:
        tally.hangs += 1
        tally.note("a ping waited over 1 s behind a slow rule")
    bridge.send({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": "slow"}})
    if not bridge.wait_for(lambda lines: any(b'"slow"' in line for line in lines), bound=ANSWER_BOUND):
        tally.hangs += 1
        tally.note("the slow rule was not answered")
    bridge.sample_rss()
    valid_frames(bridge.lines, tally)
    bridge.finish(tally)
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--fuzz", type=int, default=20_000, help="fuzzed messages")
    parser.add_argument("--rounds", type=int, default=10, help="rounds of the framing and signal categories")
    parser.add_argument("--back-pressure-seconds", type=float, default=10)
    parser.add_argument("--rss-ceiling-mib", type=int, default=200)
    parser.add_argument("--library", help="libsuperwall_bridge.so, for the in-process category")
    parser.add_argument("--batch-sizes", default="100000,1300000", help="pings per large batch")
    parser.add_argument("--soak-seconds", type=float, default=600)
    parser.add_argument("--resets", type=int, default=20_000)
    parser.add_argument("--only", help="run only these categories (comma-separated names, as in the table)")
    arguments = parser.parse_args()
    import edges
    import recordings
    started = time.monotonic()
    tallies = []
    for name, run in [
        ("framing lies", lambda: framing_lies(arguments.binary, arguments.rounds)),
        ("fuzzing", lambda: fuzzing(arguments.binary, arguments.fuzz, arguments.seed)),
        ("back-pressure", lambda: back_pressure(arguments.binary, arguments.back_pressure_seconds, arguments.rss_ceiling_mib)),
        ("oversized inputs", lambda: oversized(arguments.binary)),
        ("signals", lambda: signals(arguments.binary, arguments.rounds)),
        ("crash mid-identify", lambda: crash_mid_identify(arguments.binary, arguments.rounds * 3, arguments.seed)),
        ("hostile storage", lambda: hostile_storage(arguments.binary)),
        ("floods", lambda: floods(arguments.binary)),
        ("large batch", lambda: edges.large_batches(arguments.binary, [int(n) for n in arguments.batch_sizes.split(",")])),
        *([("in-process", lambda: edges.in_process(arguments.library))] if arguments.library else []),
        ("growth", lambda: edges.growth(arguments.binary, arguments.soak_seconds, arguments.resets, arguments.seed)),
        ("crafted recordings", lambda: recordings.crafted_recordings(arguments.binary)),
        ("redacted recordings", lambda: recordings.redacted_sessions(arguments.binary)),
        ("heavy rules and explanations", lambda: recordings.heavy_rules(arguments.binary)),
    ]:
        if arguments.only and name not in arguments.only.split(","):
            continue
        print(f"{name}...", file=sys.stderr, flush=True)
        tallies.append(run())
    print("\n| category | tries | crashes | hangs | wrong answers | data lost | peak RSS |")
    print("|---|---|---|---|---|---|---|")
    for tally in tallies:
        print(f"| {tally.name} | {tally.tries} | {tally.crashes} | {tally.hangs} | {tally.wrong} | {tally.lost} | {tally.peak_rss_kib / 1024:.1f} MiB |")
    print(f"\nseed {arguments.seed}, {time.monotonic() - started:.0f} s")
    for tally in tallies:
        for note in tally.notes:
            print(f"- {tally.name}: {note}")
    failed = sum(t.crashes + t.hangs + t.wrong + t.lost for t in tallies)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
