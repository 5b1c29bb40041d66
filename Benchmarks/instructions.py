#!/usr/bin/env python3
"""Instructions per call, counted by valgrind's callgrind: `make bench-instructions`.

Times on a 2-vCPU machine swing by a third from run to run; instruction counts do not. This
runs the bridge under callgrind and, around each measured stretch, zeroes and dumps the counters
with `callgrind_control` (which reaches a process blocked on its input through vgdb), so a
figure is the instructions of exactly that stretch, on every thread:

- startup: from exec to the answer to `initialize`;
- configure: `configure` of the benchmark config (file source, no preload) to its answer;
- per call: the mean over CALLS round trips, after 200 to warm up, of a skipped `register` of
  `bench_gate` (twenty audiences, none matching), of `getPresentationResult` of it, and of
  `register` with a bound delegate (two more notifications a call). These are the request
  path: what the store's idle worker did meanwhile (moving earlier calls' rows into SQLite,
  whenever the CPU let it) is left out, because when it runs is the scheduler's choice; the
  whole-process figures count it;
- per call, `setUserAttributes` of one key, when the user has that one attribute and when
  they have 9,500 of 100 bytes (near the 10,000-member bound): the answer and the
  `user_attributes` event carry them all, a megabyte, but only the key is written again;
- per call, whole process: everything the process does for a call, wherever and whenever it
  runs (the journal's transfer into SQLite, its commit timer, the idle worker, what `exit` still
  has to write): two runs from start to exit, with CALLS and with 2 x CALLS calls, and the
  difference of their totals divided by CALLS.

The event flush timer is set past the run, so writing events out is not in the figures. Swift's
hashing is made deterministic (`SWIFT_DETERMINISTIC_HASHING`): with a seed drawn anew in each
process, the dictionaries' collisions, and so the counts, differed from run to run.
valgrind 3.19 cannot read DWARF 5, so it runs a copy of the binary made with
`strip --strip-debug`.

Usage: instructions.py --bridge BIN --config CONFIG.json [--calls N] [--only NAME ...] [--keep DIR]
(--keep leaves each figure's callgrind dump in DIR, for callgrind_annotate)
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGETS = {
    "startup to first reply": 2_000_000,
    "configure (1,000 campaigns)": 500_000_000,
    "register, skipped": 200_000,
    "getPresentationResult": 160_000,
    "register, bound delegate": 300_000,
    "setUserAttributes, one key among 1": 400_000,
    "setUserAttributes, one key among 9,500": 30_000_000,
    "register, skipped, whole process": 220_000,
    "getPresentationResult, whole process": 140_000,
}


class Bridge:
    """The bridge under callgrind, spoken to over newline-delimited JSON."""

    def __init__(self, binary: Path, work: Path) -> None:
        self.work = work
        self.out_pattern = str(work / "callgrind.%p.out")
        self.process = subprocess.Popen(
            ["valgrind", "--tool=callgrind", "--vgdb=yes", f"--callgrind-out-file={self.out_pattern}", str(binary)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env={**os.environ, "SWIFT_DETERMINISTIC_HASHING": "1"})
        self.dumps = 0
        self.next_id = 1

    @property
    def dump_base(self) -> Path:
        return self.work / f"callgrind.{self.process.pid}.out"

    def call(self, method: str, params: dict | None = None) -> dict:
        request_id = self.next_id
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError(f"the bridge exited during {method}")
            reply = json.loads(line)
            if reply.get("id") == request_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def control(self, flag: str) -> None:
        subprocess.run(["callgrind_control", flag, str(self.process.pid)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def zero(self) -> None:
        self.control("-z")

    def dump(self, *, without_idle_worker: bool = False) -> int:
        """The instructions counted since the start or the last zero; `without_idle_worker`
        leaves out those of the store's idle worker's thread."""
        self.control("-d")
        self.dumps += 1
        path = Path(f"{self.dump_base}.{self.dumps}")
        for _ in range(600):
            if path.exists():
                for line in path.read_text().splitlines():
                    if line.startswith("summary:"):
                        total = int(line.split()[1])
                        return total - idle_worker_instructions(path) if without_idle_worker else total
            time.sleep(0.05)
        raise RuntimeError(f"callgrind wrote no {path}")

    def close(self) -> None:
        assert self.process.stdin
        self.process.stdin.close()
        self.process.wait(timeout=120)

    def total_at_exit(self) -> int:
        """After `shutdown` and `exit`: every instruction the process ran, on every thread."""
        self.call("shutdown")
        assert self.process.stdin
        self.process.stdin.write(b'{"jsonrpc":"2.0","method":"exit"}\n')
        self.process.stdin.flush()
        self.close()
        for line in self.dump_base.read_text().splitlines():
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
        raise RuntimeError(f"no total in {self.dump_base}")


#: The body of the store's idle worker's thread (`IdleWorker.init`'s closure), mangled: the
#: prefix of the initializer's name, which every parameter list it may take begins with.
IDLE_WORKER_THREAD = "IdleWorkerC4name"


def idle_worker_instructions(dump: Path) -> int:
    """The inclusive count of the idle worker's thread in a callgrind dump."""
    annotated = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(dump)],
                               capture_output=True, text=True, check=True).stdout
    counts = [int(line.split()[0].replace(",", "")) for line in annotated.splitlines()
              if IDLE_WORKER_THREAD in line and "cfU_" in line and line.strip()[:1].isdigit()]
    return max(counts, default=0)


def initialize(bridge: Bridge, delegate: bool = False) -> None:
    bridge.call("initialize", {"protocolVersion": "1.0", "client": {"name": "instructions", "version": "1"},
                               "capabilities": {"delegate": delegate}})


def configure(bridge: Bridge, config: Path, directory: Path) -> None:
    result = bridge.call("configure", {"apiKey": "pk_bench", "options": {
        "configSource": {"type": "file", "path": str(config)}, "dataDirectory": str(directory),
        "paywalls": {"shouldPreload": False}, "eventFlushIntervalMs": 3_600_000}})
    assert result["configurationStatus"] == "configured", result


def per_call(bridge: Bridge, method: str, calls: int) -> int:
    params = {"placement": "bench_gate", "params": {"level": 5, "source": "bench"}}
    for _ in range(200):
        bridge.call(method, params)
    bridge.zero()
    for _ in range(calls):
        bridge.call(method, params)
    return round(bridge.dump(without_idle_worker=True) / calls)


def one_key_calls(bridge: Bridge, others: int, calls: int) -> int:
    """A one-key `setUserAttributes`, the user having `others` other attributes of 100 bytes."""
    keys = [f"key_{index:05d}" for index in range(others)]
    for start in range(0, others, 1_000):
        bridge.call("setUserAttributes", {"attributes": {key: "v" * 90 for key in keys[start:start + 1_000]}})
    for index in range(20):
        bridge.call("setUserAttributes", {"attributes": {"changed": f"warming {index}"}})
    bridge.zero()
    for index in range(calls):
        bridge.call("setUserAttributes", {"attributes": {"changed": f"call {index}"}})
    return round(bridge.dump() / calls)


def whole_process(name: str, binary: Path, config: Path, calls: int) -> int:
    method = "getPresentationResult" if name.startswith("getPresentationResult") else "register"
    params = {"placement": "bench_gate", "params": {"level": 5, "source": "bench"}}
    totals = []
    for count in (calls, 2 * calls):
        work = Path(tempfile.mkdtemp(prefix="superwall-instructions-"))
        bridge = Bridge(binary, work)
        try:
            initialize(bridge)
            configure(bridge, config, work / "data")
            for _ in range(200 + count):
                bridge.call(method, params)
            totals.append(bridge.total_at_exit())
        finally:
            if bridge.process.poll() is None:
                bridge.process.kill()
            shutil.rmtree(work, ignore_errors=True)
    return round((totals[1] - totals[0]) / calls)


def measure(name: str, binary: Path, config: Path, calls: int, keep: Path | None) -> int:
    if name.endswith("whole process"):
        return whole_process(name, binary, config, calls)
    work = Path(tempfile.mkdtemp(prefix="superwall-instructions-"))
    bridge = Bridge(binary, work)
    try:
        if name == "startup to first reply":
            initialize(bridge)
            return bridge.dump()
        delegate = name == "register, bound delegate"
        initialize(bridge, delegate=delegate)
        if name == "configure (1,000 campaigns)":
            bridge.zero()
            configure(bridge, config, work / "data")
            return bridge.dump()
        configure(bridge, config, work / "data")
        if name.startswith("setUserAttributes"):
            others = 0 if name.endswith("among 1") else 9_500
            return one_key_calls(bridge, others, min(calls, 20 if others else 200))
        if delegate:
            bridge.call("setDelegate", {"enabled": True})
        method = "getPresentationResult" if name == "getPresentationResult" else "register"
        return per_call(bridge, method, calls)
    finally:
        bridge.close()
        if keep is not None and bridge.dumps:
            keep.mkdir(parents=True, exist_ok=True)
            slug = "".join(c if c.isalnum() else "-" for c in name).strip("-")
            shutil.copy(f"{bridge.dump_base}.{bridge.dumps}", keep / f"{slug}.callgrind")
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bridge", required=True, type=Path)
    parser.add_argument("--config", required=True, type=Path)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--only", nargs="*", choices=list(TARGETS))
    parser.add_argument("--keep", type=Path)
    arguments = parser.parse_args()
    if not shutil.which("valgrind") or not shutil.which("callgrind_control"):
        print("valgrind is not installed: apt-get install -y valgrind", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="superwall-stripped-") as directory:
        binary = Path(directory) / "superwall-bridge"
        subprocess.run(["strip", "--strip-debug", str(arguments.bridge), "-o", str(binary)], check=True)
        rows = []
        for name in arguments.only or list(TARGETS):
            count = measure(name, binary, arguments.config.resolve(), arguments.calls, arguments.keep)
            target = TARGETS[name]
            rows.append((name, count, target))
            print(f"  {name}: {count:,}", file=sys.stderr, flush=True)
    print(f"| {'instructions (callgrind)':<38} | {'count':>15} | {'target':>15} | {'met':<3} |")
    print(f"|{'-' * 40}|{'-' * 17}|{'-' * 17}|{'-' * 5}|")
    for name, count, target in rows:
        print(f"| {name:<38} | {count:>15,} | {'<= ' + format(target, ','):>15} | {'yes' if count <= target else 'no':<3} |")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
