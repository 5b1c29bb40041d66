"""The edges a user meets, replayed for `make stress`: one large batch, the in-process library's
close, closed handles and fork, and what history costs over a long run (a planted events file
is among stress.py's hostile storage).
Imported by stress.py, whose Bridge, Tally and helpers these share."""
from __future__ import annotations

import ctypes
import dataclasses
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

from stress import ANSWER_BOUND, PING, Bridge, Tally, configured, initialize, request


def vm_kib(pid: int, field: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


# ---- one large batch ----

def large_batches(binary: str, sizes: list[int]) -> Tally:
    """A batch of N pings under the message limit, with the input left open and closed right
    behind it: every request is answered exactly once (a result, or -32800 once the drain
    deadline passed), and the peak memory past the idle bridge's is at most 4 times the batch."""
    tally = Tally("large batch")
    for count in sizes:
        message = b"[" + b",".join(PING % index for index in range(1, count + 1)) + b"]\n"
        for close_behind in (False, True):
            tally.tries += 1
            bridge = Bridge(binary, "--max-message-size", str(64 << 20))
            initialize(bridge)
            idle = vm_kib(bridge.process.pid, "VmRSS")
            peak = [idle]
            done = threading.Event()

            def watch() -> None:
                while not done.is_set():
                    peak[0] = max(peak[0], vm_kib(bridge.process.pid, "VmHWM"))
                    time.sleep(0.02)

            watcher = threading.Thread(target=watch, daemon=True)
            watcher.start()
            bridge.write(message)
            if close_behind:
                assert bridge.process.stdin is not None
                bridge.process.stdin.close()
            answered = bridge.wait_for(lambda lines: any(line.startswith(b"[") for line in lines), bound=300)
            done.set()
            watcher.join()
            label = f"{count:,} pings ({len(message) / 2**20:.1f} MiB), input {'closed' if close_behind else 'open'}"
            if not answered:
                tally.hangs += 1
                tally.note(f"{label}: no batch reply")
            else:
                reply = json.loads(next(line for line in bridge.lines if line.startswith(b"[")))
                ids = [answer.get("id") for answer in reply]
                good = all("result" in answer or answer.get("error", {}).get("code") == -32800 for answer in reply)
                if sorted(ids) != list(range(1, count + 1)) or not good:
                    tally.wrong += 1
                    tally.note(f"{label}: {len(reply)} answers, {len(set(ids))} ids")
            ratio = (peak[0] - idle) * 1024 / len(message)
            tally.note(f"{label}: peak {peak[0] / 1024:.0f} MiB, {ratio:.1f} times the batch past the idle bridge")
            if ratio > 4:
                tally.wrong += 1
            tally.peak_rss_kib = max(tally.peak_rss_kib, peak[0])
            if not close_behind:
                bridge.finish(tally)
            else:
                try:
                    code = bridge.process.wait(timeout=120)
                    if code != 0:
                        tally.crashes += 1
                        tally.note(f"{label}: exit status {code}")
                except Exception:
                    tally.hangs += 1
                    bridge.process.kill()
    return tally


# ---- the library in-process ----

OUTPUT = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t)


class Library:
    def __init__(self, path: str) -> None:
        self.lib = ctypes.CDLL(path)
        self.lib.superwall_bridge_open.restype = ctypes.c_void_p
        self.lib.superwall_bridge_open.argtypes = [ctypes.c_char_p, OUTPUT, ctypes.c_void_p, ctypes.c_char_p,
                                                   ctypes.c_size_t]
        self.lib.superwall_bridge_send.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
        self.lib.superwall_bridge_close.argtypes = [ctypes.c_void_p]

    def open(self, output: Any) -> int:
        error = ctypes.create_string_buffer(256)
        handle = self.lib.superwall_bridge_open(None, output, None, error, 256)
        if not handle:
            raise RuntimeError(error.value.decode())
        return int(handle)

    def send(self, handle: int, message: dict[str, Any]) -> int:
        text = json.dumps(message).encode()
        return int(self.lib.superwall_bridge_send(handle, text, len(text)))

    def close(self, handle: int) -> int:
        return int(self.lib.superwall_bridge_close(handle))


class Inbox:
    """What one bridge sent, with a delay per message to stand for a slow host."""

    def __init__(self, delay: float = 0.0) -> None:
        self.messages: list[dict[str, Any]] = []
        self.condition = threading.Condition()
        self.delay = delay
        self.callback = OUTPUT(self._arrived)

    def _arrived(self, _context: Any, message: bytes, _length: int) -> None:
        if self.delay:
            time.sleep(self.delay)
        with self.condition:
            self.messages.append(json.loads(message))
            self.condition.notify_all()

    def answer(self, message_id: Any, bound: float = ANSWER_BOUND) -> dict[str, Any] | None:
        deadline = time.monotonic() + bound
        with self.condition:
            while True:
                for message in self.messages:
                    if message.get("id") == message_id and "method" not in message:
                        return message
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self.condition.wait(remaining)


def in_process(library_path: str) -> Tally:
    """`in_process_host` in a Python process of its own: a host that crashes is counted rather
    than taking the harness down, and the memory figures are the host's, not the harness's
    (which built the large batches)."""
    tally = Tally("in-process")
    child = subprocess.run([sys.executable, __file__, "in-process", library_path], capture_output=True, text=True,
                           timeout=600)
    if child.returncode != 0:
        tally.tries += 1
        tally.crashes += 1
        tally.note(f"the host exited {child.returncode}: {child.stderr.strip()[-300:]}")
        return tally
    for key, value in json.loads(child.stdout.strip().splitlines()[-1]).items():
        setattr(tally, key, value)
    return tally


def in_process_host(library_path: str) -> Tally:
    """The C interface as hosts misuse it: a slow callback at close, a closed handle used again
    from several threads, two closes racing, a forked child using its parent's bridge, and
    open/configure/close cycles on one directory (memory kept per cycle)."""
    tally = Tally("in-process")
    library = Library(library_path)
    initialize_message = {"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {"protocolVersion": "1.0"}}

    tally.tries += 1
    slow = Inbox(delay=0.3)
    handle = library.open(slow.callback)
    library.send(handle, initialize_message)
    for index in range(10):
        library.send(handle, {"jsonrpc": "2.0", "id": index, "method": "$/ping"})
    status = library.close(handle)
    delivered = sum(1 for message in slow.messages if isinstance(message.get("id"), int))
    if status != 0 or delivered != 10:
        tally.wrong += 1
        tally.note(f"slow callback: close answered {status}, {delivered} of 10 answers delivered")

    tally.tries += 1
    codes: list[tuple[int, int]] = []
    threads = [threading.Thread(target=lambda: codes.append((library.lib.superwall_bridge_send(handle, b"{}", 2),
                                                              library.close(handle)))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if any(code != (1, -1) for code in codes):
        tally.wrong += 1
        tally.note(f"a closed handle answered {sorted(set(codes))}, not (1, -1)")

    for _ in range(20):
        tally.tries += 1
        inbox = Inbox()
        handle = library.open(inbox.callback)
        results: list[int] = []
        racing = [threading.Thread(target=lambda: results.append(library.close(handle))) for _ in range(2)]
        for thread in racing:
            thread.start()
        for thread in racing:
            thread.join()
        if sorted(results) != [-1, 0]:
            tally.wrong += 1
            tally.note(f"two closes at once answered {results}")

    tally.tries += 1
    directory = tempfile.mkdtemp(prefix="stress-fork-")
    configure = {"jsonrpc": "2.0", "id": "configure", "method": "configure",
                 "params": {"apiKey": "pk_stress", "options": {"configSource": {"type": "embedded"},
                                                               "dataDirectory": directory}}}
    inbox = Inbox()
    handle = library.open(inbox.callback)
    library.send(handle, initialize_message)
    library.send(handle, configure)
    inbox.answer("configure")
    reading, writing = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(writing)
        code = (0 if library.lib.superwall_bridge_send(handle, b"{}", 2) == 1 else 1) | \
            (0 if library.close(handle) == -1 else 2)
        os.read(reading, 1)
        os._exit(code)
    os.close(reading)
    library.close(handle)
    reopened = Inbox()
    handle = library.open(reopened.callback)
    library.send(handle, initialize_message)
    library.send(handle, configure)
    answer = reopened.answer("configure") or {}
    os.close(writing)
    _, child_status = os.waitpid(child, 0)
    if answer.get("result", {}).get("configurationStatus") != "configured" or child_status != 0:
        tally.wrong += 1
        tally.note(f"fork: reopened {answer.get('result', answer)}, child status {child_status}")
    library.close(handle)

    # The allocator's arenas fill over the first few hundred cycles (RSS then stays within
    # about 2 MiB over thousands more); what is kept per cycle is measured over the second half.
    cycles = 1000
    tally.tries += cycles
    directory = tempfile.mkdtemp(prefix="stress-cycles-")
    configure["params"]["options"]["dataDirectory"] = directory
    samples = []
    for cycle in range(cycles):
        inbox = Inbox()
        handle = library.open(inbox.callback)
        library.send(handle, initialize_message)
        library.send(handle, configure)
        library.send(handle, {"jsonrpc": "2.0", "id": "register", "method": "register",
                              "params": {"placement": "workout_shared"}})
        inbox.answer("register")
        library.close(handle)
        if cycle in (cycles // 2, cycles - 1):
            samples.append(vm_kib(os.getpid(), "VmRSS"))
    kept = (samples[1] - samples[0]) / (cycles - 1 - cycles // 2)
    tally.note(f"open/configure/register/close cycles: RSS {samples[0] / 1024:.1f} MiB after {cycles // 2}, "
               f"{samples[1] / 1024:.1f} MiB after {cycles} ({kept:.1f} KiB a cycle)")
    if kept > 16:
        tally.wrong += 1
    tally.peak_rss_kib = max(tally.peak_rss_kib, vm_kib(os.getpid(), "VmHWM"))
    return tally


# ---- what history costs ----

SOAK_PLACEMENTS = ["workout_shared", "open_coach_chat", "start_workout", "onboarding_complete", "daily_limit_reached"]


def soak_request(chooser: random.Random, index: int) -> tuple[str, dict[str, Any]]:
    pick = chooser.random()
    if pick < 0.40:
        return "register", {"placement": chooser.choice(SOAK_PLACEMENTS), "params": {"i": index}}
    if pick < 0.55:
        return "setUserAttributes", {"attributes": {"k%d" % chooser.randrange(50): chooser.randrange(10 ** 6)}}
    if pick < 0.62:
        return "identify", {"userId": "soak-user-%d" % chooser.randrange(5)}
    if pick < 0.64:
        return "reset", {}
    if pick < 0.66:
        return "flushEvents", {}
    if pick < 0.80:
        return "getPresentationResult", {"placement": chooser.choice(SOAK_PLACEMENTS)}
    return "$/ping", {}


def growth(binary: str, soak_seconds: float, resets: int, seed: int) -> Tally:
    """A mixed soak (registers, attributes, identifies, resets, flushes) in windows of 20
    pipelined requests: the data directory's size and the RSS, sampled every 30 s, must be flat
    over the second half (at most 10 % and 2 MiB above the midpoint's). Then `resets` resets in
    one directory: the last thousand may take at most twice the first thousand."""
    tally = Tally("growth")
    directory = tempfile.mkdtemp(prefix="stress-soak-")
    bridge, answer = configured(binary, directory)
    chooser = random.Random(seed)
    samples: list[tuple[float, int, int]] = []
    started = time.monotonic()
    last_sample = -1e9
    index = 0
    while time.monotonic() - started < soak_seconds:
        now = time.monotonic() - started
        if now - last_sample >= 30:
            size = sum(os.path.getsize(os.path.join(directory, name)) for name in os.listdir(directory)
                       if name.startswith("superwall.sqlite") and not name.endswith("-placements-0")
                       and not name.endswith("-placements-1"))
            samples.append((now, size, vm_kib(bridge.process.pid, "VmRSS")))
            last_sample = now
        ids = []
        for _ in range(20):
            method, params = soak_request(chooser, index)
            message_id = f"soak-{index}"
            bridge.send({"jsonrpc": "2.0", "id": message_id, "method": method, "params": params})
            ids.append(message_id)
            index += 1
        tally.tries += 20
        last = json.dumps(ids[-1]).encode()
        window_started = time.monotonic()
        # A register's handler notifications come beside the answers: the whole window's lines.
        if not bridge.wait_for(lambda lines: any(last in line for line in lines), bound=60):
            tally.hangs += 1
            waited = time.monotonic() - window_started
            tally.note(f"window ending {ids[-1]} ({method}) unanswered after {waited:.1f} s")
        with bridge.condition:
            del bridge.lines[:-100]
            bridge.raw.clear()
    middle = samples[len(samples) // 2]
    for name, position, unit in (("data directory", 1, 1024 * 1024), ("RSS", 2, 1024)):
        later = max(sample[position] for sample in samples[len(samples) // 2:])
        grown = later - middle[position]
        tally.note(f"{name}: {samples[0][position] / unit:.1f} → {middle[position] / unit:.1f} (middle) → "
                   f"{samples[-1][position] / unit:.1f} MiB over {soak_seconds:.0f} s, {index:,} requests")
        if grown > max(0.1 * middle[position], 2 * unit):
            tally.wrong += 1
    tally.peak_rss_kib = max(tally.peak_rss_kib, vm_kib(bridge.process.pid, "VmHWM"))
    bridge.finish(tally)

    directory = tempfile.mkdtemp(prefix="stress-resets-")
    bridge, _ = configured(binary, directory)
    times = []
    for thousand in range(resets // 1000):
        began = time.monotonic()
        for index in range(1000):
            request(bridge, f"reset-{thousand}-{index}", "reset", {})
        times.append(time.monotonic() - began)
        with bridge.condition:
            del bridge.lines[:]
            bridge.raw.clear()
    tally.tries += resets
    tally.note(f"{resets:,} resets in one directory: the first thousand {times[0]:.2f} s, the last {times[-1]:.2f} s")
    if times[-1] > 2 * times[0]:
        tally.wrong += 1
    bridge.finish(tally)
    return tally


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "in-process":
        print(json.dumps(dataclasses.asdict(in_process_host(sys.argv[2]))))
    else:
        sys.exit("usage: edges.py in-process LIBRARY (stress.py runs the rest)")
