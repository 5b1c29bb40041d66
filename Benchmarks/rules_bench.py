#!/usr/bin/env python3
"""The rules benchmark of `make bench`: the bridge's engine beside a peer, in one run.

The peer is the Python package `common-expression-language` (CEL on the Rust
cel-interpreter), installed in a virtualenv under Benchmarks/, with every program compiled
once. Both sides evaluate the same workload, written here to a JSON file:

  (a) a simple comparison;
  (b) an SDK-shaped rule: five clauses over `user`, `device` (with `activeEntitlements`)
      and `params`, one `in` list, one `size`;
  (c) 1,000 distinct rules evaluated in sequence, as a placement with many audiences is.

Each is measured two ways. *Bare*: the context is prepared once and evaluated in a loop.
*Live*: before every evaluation (for (c), before every sequence of 1,000) one user attribute
and the params change and the context is rebuilt from the host's dictionaries, as a real
placement does. The peer is given its fastest form for each: a prepared `cel.Context` for
bare and for (c) live, a plain dict for (a)/(b) live (its documented per-call form).

Usage:
  rules_bench.py run --bridge BENCH_BINARY --peer-python VENV_PYTHON
  rules_bench.py peer WORKLOAD.json       (run by `run`, inside the virtualenv)
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROUNDS = 5
PROCESS_RUNS = 2  # per side, interleaved: peer, bridge, peer, bridge


def device_template():
    """The ~60 keys of SuperwallKit's device template, with realistic values."""
    template = {
        "publicApiKey": "pk_bench", "platform": "iOS", "appUserId": "", "aliases": ["$SuperwallAlias:1"],
        "vendorId": "A1B2C3D4-0000-4000-8000-000000000001", "appVersion": "2.4.1", "appVersionPadded": "002.004.001",
        "osVersion": "17.4.1", "deviceModel": "iPhone15,2", "deviceLocale": "en_US", "preferredLocale": "en_US",
        "deviceLanguageCode": "en", "preferredLanguageCode": "en", "regionCode": "US", "preferredRegionCode": "US",
        "deviceCurrencyCode": "USD", "deviceCurrencySymbol": "$", "interfaceType": "iphone", "timezoneOffset": -18000,
        "radioType": "WiFi", "interfaceStyle": "Light", "isLowPowerModeEnabled": False, "bundleId": "com.example.app",
        "appInstallDate": "2026-01-01T00:00:00Z", "isMac": False, "daysSinceInstall": 325, "minutesSinceInstall": 468000,
        "daysSinceLastPaywallView": 3, "minutesSinceLastPaywallView": 4320, "totalPaywallViews": 12,
        "utcDate": "2026-11-22", "localDate": "2026-11-22", "utcTime": "12:00:00", "localTime": "07:00:00",
        "utcDateTime": "2026-11-22T12:00:00", "localDateTime": "2026-11-22T07:00:00", "isSandbox": "false",
        "activeEntitlements": [], "activeProducts": [], "subscriptionStatus": "INACTIVE", "isFirstAppOpen": False,
        "sdkVersion": "4.16.4", "sdkVersionPadded": "004.016.004", "appBuildString": "5690201",
        "appBuildStringNumber": 5690201, "interfaceStyleMode": "automatic", "ipRegion": "NY", "ipRegionCode": "NY",
        "ipCountry": "US", "ipCity": "New York", "ipContinent": "NA", "ipTimezone": "America/New_York",
        "capabilities": "paywall_event_receiver", "platformWrapper": "", "platformWrapperVersion": "",
        "deviceId": "device-1", "reviewRequestCount": 0, "storefrontCountryCode": "USA", "storefrontId": "143441",
        "appTransactionId": "", "totalReviewRequests": 0,
    }
    return template


def workload():
    user = {"aliasId": "$SuperwallAlias:1", "seed": 42, "applicationInstalledAt": "2026-01-01T00:00:00Z",
            "plan": "free", "credits": 3, "email": "someone@example.com", "country": "US", "level": 7,
            "onboarded": True, "cohort": "2026-01"}
    params = {"source": "home", "count": 0, "screen": "dashboard"}
    simple = 'user.plan == "free"'
    sdk = ('user.plan == "free" && user.credits < 10 && device.platform in ["iOS", "iPadOS"]'
           ' && size(device.activeEntitlements) == 0 && params.source != "settings"')
    many = [f'user.level >= {i % 50} && device.appBuildStringNumber > {i} && params.screen == "s{i}"'
            for i in range(1000)]
    return {"user": user, "device": device_template(), "params": params, "simple": simple, "sdk": sdk,
            "many": many, "rounds": ROUNDS,
            "iterations": {"bare": 200_000, "live": 20_000, "sequences": 100}}


def peer(path):
    """The peer's side: the same figures, printed as the bridge's benchmark prints them."""
    import cel

    spec = json.load(open(path))
    rounds, iterations = spec["rounds"], spec["iterations"]

    def report(figure, values, result):
        print(json.dumps({"figure": figure, "ns": values, "result": result}), flush=True)

    def changed(iteration, user):
        user["credits"] = iteration % 20
        params = dict(spec["params"])
        params["count"] = iteration
        return params

    for name in ("a", "b"):
        program = cel.compile(spec["simple" if name == "a" else "sdk"])
        prepared = cel.Context({"user": spec["user"], "device": spec["device"], "params": spec["params"]})
        first = program.execute(prepared)
        bare, live = [], []
        for _ in range(rounds):
            count = iterations["bare"]
            start = time.perf_counter_ns()
            for _ in range(count):
                program.execute(prepared)
            bare.append((time.perf_counter_ns() - start) / count)
            user = dict(spec["user"])
            count = iterations["live"]
            start = time.perf_counter_ns()
            for iteration in range(count):
                params = changed(iteration, user)
                program.execute({"user": user, "device": spec["device"], "params": params})
            live.append((time.perf_counter_ns() - start) / count)
        report(f"{name}-bare", bare, first)
        report(f"{name}-live", live, first)

    programs = [cel.compile(source) for source in spec["many"]]
    prepared = cel.Context({"user": spec["user"], "device": spec["device"], "params": spec["params"]})
    first = sum(1 for program in programs if program.execute(prepared) is True)
    bare, live = [], []
    for _ in range(rounds):
        count = iterations["sequences"]
        start = time.perf_counter_ns()
        for _ in range(count):
            for program in programs:
                program.execute(prepared)
        bare.append((time.perf_counter_ns() - start) / count)
        user = dict(spec["user"])
        start = time.perf_counter_ns()
        for iteration in range(count):
            params = changed(iteration, user)
            placement = cel.Context({"user": user, "device": spec["device"], "params": params})
            for program in programs:
                program.execute(placement)
        live.append((time.perf_counter_ns() - start) / count)
    report("c-bare", bare, first)
    report("c-live", live, first)


def collect(command):
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in output.splitlines() if line.startswith("{")]


def run(bridge, peer_python):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(workload(), handle)
        path = handle.name
    pin = ["taskset", "-c", "0"] if subprocess.run(["which", "taskset"], capture_output=True).returncode == 0 else []
    rounds = {"peer": {}, "bridge": {}}
    results = {"peer": {}, "bridge": {}}
    for _ in range(PROCESS_RUNS):
        for side, command in (("peer", pin + [peer_python, os.path.abspath(__file__), "peer", path]),
                              ("bridge", pin + [bridge, path])):
            for row in collect(command):
                rounds[side].setdefault(row["figure"], []).extend(row["ns"])
                results[side][row["figure"]] = row["result"]
    os.unlink(path)

    print("\nrules benchmark: both sides pinned to CPU 0" if pin else "\nrules benchmark (unpinned)")
    print(f"peer: common-expression-language (cel-interpreter), {sys.version.split()[0]} venv; "
          f"{PROCESS_RUNS} processes x {ROUNDS} rounds per side, interleaved\n")
    print(f"| {'figure':<42} | {'peer':>10} | {'bridge':>10} | {'unit':<4} | {'peer/bridge':>11} | {'noise':>13} |")
    print(f"|{'-' * 44}|{'-' * 12}|{'-' * 12}|{'-' * 6}|{'-' * 13}|{'-' * 15}|")
    labels = {"a": "(a) simple comparison", "b": "(b) SDK-shaped rule", "c": "(c) 1,000 rules in sequence"}
    mismatches = []
    for figure in ("a-bare", "a-live", "b-bare", "b-live", "c-bare", "c-live"):
        peer_ns = statistics.median(rounds["peer"][figure])
        bridge_ns = statistics.median(rounds["bridge"][figure])
        unit, scale = ("us", 1000.0)
        if figure.startswith("c"):
            unit, scale = ("ms", 1_000_000.0)
        noise = [(max(values) - min(values)) / statistics.median(values) * 100
                 for values in (rounds["peer"][figure], rounds["bridge"][figure])]
        label = f"{labels[figure[0]]}, {figure[2:]}"
        print(f"| {label:<42} | {peer_ns / scale:>10.3f} | {bridge_ns / scale:>10.3f} | {unit:<4} | "
              f"{peer_ns / bridge_ns:>10.1f}x | {noise[0]:>5.0f}% / {noise[1]:>3.0f}% |")
        if results["peer"][figure] != results["bridge"][figure]:
            mismatches.append(f"{figure}: peer {results['peer'][figure]}, bridge {results['bridge'][figure]}")
    print("\nMedians of all rounds; noise is (max - min) / median across the rounds, peer / bridge.")
    print("Targets: live (b) <= 2 us and >= 10x the peer; bare (b) no slower than the peer.")
    if mismatches:
        print("Results differ between the engines: " + "; ".join(mismatches))
        return 1
    print("Both engines gave the same results on every figure.")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "peer":
        peer(sys.argv[2])
    elif len(sys.argv) == 6 and sys.argv[1] == "run" and sys.argv[2] == "--bridge" and sys.argv[4] == "--peer-python":
        sys.exit(run(sys.argv[3], sys.argv[5]))
    else:
        print(__doc__)
        sys.exit(2)
