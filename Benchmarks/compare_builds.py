#!/usr/bin/env python3
"""Two builds of the bridge side by side, alternated in one run: the figures a user of the
bridge notices, as a wrapper over pipes sees them.

Each round runs build A, then build B (the order flips every round, so neither always runs
on a warmer machine), and each build does, in fresh data directories:
  - a test's whole bridge: spawn, `initialize`, `configure` on the embedded demo, one skipped
    `register`, `shutdown` and exit, wall time (the cost of a test that starts its own bridge);
  - startup: spawn to the answer of `initialize`;
  - `configure` on the embedded demo;
  - RSS after `configure` (and its anonymous part: the rest is the binary's pages, which
    depend on what the page cache holds of each file; drop the cache before comparing it),
    and the data directory's size after the test;
  - `register` round trips (skipped), p50 and p99 of ROUND_TRIPS after a warm-up.
It prints, per figure, the median over the rounds of each build, the ratio B / A, and the
spread of A's rounds (half the range over the median) as the machine's noise.

Usage: compare_builds.py --a BIN_A --b BIN_B [--rounds 9] [--label-a before --label-b after]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time

ROUND_TRIPS = 2000
WARMUP = 200
WHOLE_TESTS = 10


class Bridge:
    """One bridge process over NDJSON pipes, one request at a time."""

    def __init__(self, binary):
        self.process = subprocess.Popen(
            [binary, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.next_id = 0

    def call(self, method, params=None):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError(f"the bridge ended before answering {method}")
            reply = json.loads(line)
            if reply.get("id") == self.next_id and "method" not in reply:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result")

    def rss_kib(self, field="VmRSS"):
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        return 0

    def close(self):
        self.call("shutdown")
        self.process.stdin.close()
        self.process.wait(timeout=30)


def configure_params(directory):
    return {
        "apiKey": "pk_compare",
        "options": {"configSource": {"type": "embedded"}, "dataDirectory": directory},
        "device": {"platform": "iOS"},
    }


def directory_size(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            total += os.lstat(os.path.join(root, name)).st_blocks * 512
    return total


def initialize(bridge):
    bridge.call("initialize", {"protocolVersion": "1.0", "capabilities": {}})


def measure(binary, scratch):
    figures = {}
    whole, startups, configures, rss, anonymous, sizes = [], [], [], [], [], []
    for _ in range(WHOLE_TESTS):
        directory = tempfile.mkdtemp(dir=scratch)
        started = time.perf_counter()
        bridge = Bridge(binary)
        initialize(bridge)
        initialized = time.perf_counter()
        bridge.call("configure", configure_params(directory))
        configured = time.perf_counter()
        rss.append(bridge.rss_kib() / 1024)
        anonymous.append(bridge.rss_kib("RssAnon") / 1024)
        bridge.call("register", {"placement": "workout_shared"})
        bridge.close()
        whole.append((time.perf_counter() - started) * 1000)
        startups.append((initialized - started) * 1000)
        configures.append((configured - initialized) * 1000)
        sizes.append(directory_size(directory) / 1024)
        shutil.rmtree(directory, ignore_errors=True)
    figures["a test's whole bridge, ms"] = statistics.median(whole)
    figures["startup to initialize's answer, ms"] = statistics.median(startups)
    figures["configure, embedded demo, ms"] = statistics.median(configures)
    figures["RSS after configure, MiB"] = statistics.median(rss)
    figures["RSS after configure, anonymous, MiB"] = statistics.median(anonymous)
    figures["data directory after the test, KiB"] = statistics.median(sizes)

    directory = tempfile.mkdtemp(dir=scratch)
    bridge = Bridge(binary)
    initialize(bridge)
    bridge.call("configure", configure_params(directory))
    times = []
    for index in range(WARMUP + ROUND_TRIPS):
        started = time.perf_counter()
        bridge.call("register", {"placement": "workout_shared"})
        if index >= WARMUP:
            times.append((time.perf_counter() - started) * 1e6)
    bridge.close()
    shutil.rmtree(directory, ignore_errors=True)
    times.sort()
    figures["register p50, us"] = times[len(times) // 2]
    figures["register p99, us"] = times[int(len(times) * 0.99)]
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", required=True)
    parser.add_argument("--b", required=True)
    parser.add_argument("--label-a", default="A")
    parser.add_argument("--label-b", default="B")
    parser.add_argument("--rounds", type=int, default=9)
    arguments = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="compare-builds-")
    rounds = {"a": [], "b": []}
    for round_number in range(arguments.rounds):
        order = ["a", "b"] if round_number % 2 == 0 else ["b", "a"]
        for which in order:
            rounds[which].append(measure(getattr(arguments, which), scratch))
    shutil.rmtree(scratch, ignore_errors=True)
    print(f"{os.cpu_count()} CPUs, {arguments.rounds} rounds alternated, medians over rounds")
    print(f"| figure | {arguments.label_a} | {arguments.label_b} | {arguments.label_b} / {arguments.label_a} | noise ({arguments.label_a}) |")
    print("|---|---|---|---|---|")
    for figure in rounds["a"][0]:
        a_values = [r[figure] for r in rounds["a"]]
        b_values = [r[figure] for r in rounds["b"]]
        a, b = statistics.median(a_values), statistics.median(b_values)
        noise = (max(a_values) - min(a_values)) / 2 / a * 100 if a else 0
        ratio = b / a if a else float("nan")
        print(f"| {figure} | {a:.2f} | {b:.2f} | {ratio:.2f} | ±{noise:.0f} % |")


if __name__ == "__main__":
    main()
