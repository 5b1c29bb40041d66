#!/usr/bin/env python3
"""B14 of `make bench`: what one test using the Python plugin's `superwall` fixture costs.

A generated pytest module of RUNS tests, each asking for `superwall` (spawn, initialize,
configure on the embedded config with the manual clock and a seed, the fake store's status)
and doing one skipped `register`, then tearing down (shutdown, exit). Each test's time is its
setup, call and teardown as pytest reports them. Beside it, in the same run, the peer: RUNS
tests that spawn the C echo server with the same Python `Connection` and make the same six
round trips, the floor of a process per test. A second pass times the fixture's steps one by
one for the breakdown. The first WARMUP tests of each kind are left out (page cache, imports).

Usage (the interpreter must have superwall_bridge and pytest installed):
  fixture_bench.py --bridge BIN --echo ECHO_SERVER [--runs 60]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

WARMUP = 5

TESTS = textwrap.dedent('''
    import asyncio, os
    import pytest
    from superwall_bridge import Connection

    RUNS = int(os.environ["FIXTURE_BENCH_RUNS"])

    @pytest.mark.parametrize("run", range(RUNS))
    def test_fixture(run, superwall):
        assert superwall.register("daily_limit_reached").outcome == "skipped"

    async def echo_round_trips():
        async def on_request(method, params, request_id):
            return {}

        async def on_notification(method, params):
            pass

        connection = await Connection.spawn(os.environ["FIXTURE_BENCH_ECHO"], [], on_request=on_request,
                                            on_notification=on_notification)
        for method in ("initialize", "configure", "setSubscriptionStatus", "register", "shutdown"):
            await connection.request(method, {"placement": "daily_limit_reached"}, timeout=10)
        await connection.notify("exit")
        await connection.close(timeout=5)

    @pytest.mark.parametrize("run", range(RUNS))
    def test_peer(run):
        asyncio.run(echo_round_trips())
''')

CONFTEST = textwrap.dedent('''
    import json, os
    durations = {}

    def pytest_runtest_logreport(report):
        durations.setdefault(report.nodeid, 0.0)
        durations[report.nodeid] += report.duration

    def pytest_sessionfinish(session):
        with open(os.environ["FIXTURE_BENCH_OUT"], "w") as out:
            json.dump(durations, out)
''')

STEPS = textwrap.dedent('''
    import json, sys, tempfile, time
    from superwall_bridge import SyncSuperwall
    from superwall_bridge.testing import EventRecorder, FakeStore, PaywallDriver

    runs, out = int(sys.argv[1]), sys.argv[2]
    steps = {"spawn and initialize": [], "configure": [], "store status": [], "register": [], "shutdown and exit": []}
    for run in range(runs):
        folder = tempfile.mkdtemp(prefix="fixture-bench-")
        store, driver, recorder = FakeStore(), PaywallDriver(unscripted="close"), EventRecorder()
        started = time.perf_counter()
        sw = SyncSuperwall.start(delegate=recorder, purchase_controller=store, paywall_presenter=driver)
        store.attach(sw.client); driver.attach(sw.client)
        marks = [started, time.perf_counter()]
        sw.configure("pk_test", options={"configSource": {"type": "embedded"}, "dataDirectory": folder + "/data",
                                         "clock": "manual", "randomSeed": 0})
        marks.append(time.perf_counter())
        sw.run(store.report_status())
        marks.append(time.perf_counter())
        sw.register("daily_limit_reached")
        marks.append(time.perf_counter())
        sw.close()
        marks.append(time.perf_counter())
        for name, start, end in zip(steps, marks, marks[1:]):
            steps[name].append(end - start)
    json.dump(steps, open(out, "w"))
''')


def milliseconds(values):
    return statistics.median(values) * 1000, sorted(values)[int(len(values) * 0.9)] * 1000


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bridge", required=True)
    parser.add_argument("--echo", required=True)
    parser.add_argument("--runs", type=int, default=60)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fixture-bench-") as folder:
        Path(folder, "test_b14.py").write_text(TESTS)
        Path(folder, "conftest.py").write_text(CONFTEST)
        Path(folder, "steps.py").write_text(STEPS)
        durations_path = Path(folder, "durations.json")
        environment = dict(os.environ, SUPERWALL_BRIDGE=os.path.abspath(arguments.bridge),
                           FIXTURE_BENCH_ECHO=os.path.abspath(arguments.echo),
                           FIXTURE_BENCH_RUNS=str(arguments.runs), FIXTURE_BENCH_OUT=str(durations_path))
        tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_b14.py"],
                               cwd=folder, env=environment, capture_output=True, text=True)
        if tests.returncode != 0:
            sys.exit(f"B14's tests failed:\n{tests.stdout[-4000:]}{tests.stderr[-2000:]}")
        durations = json.loads(durations_path.read_text())
        fixture = [d for node, d in durations.items() if "test_fixture" in node][WARMUP:]
        peer = [d for node, d in durations.items() if "test_peer" in node][WARMUP:]
        steps_path = Path(folder, "steps.json")
        subprocess.run([sys.executable, "steps.py", str(arguments.runs), str(steps_path)], cwd=folder, env=environment,
                       check=True)
        steps = {name: values[WARMUP:] for name, values in json.loads(steps_path.read_text()).items()}

    fixture_median, fixture_p90 = milliseconds(fixture)
    peer_median, peer_p90 = milliseconds(peer)
    print(f"B14: a test on the pytest plugin's superwall fixture, {len(fixture)} tests after {WARMUP} to warm up")
    print(f"{'':38}{'median':>10}{'p90':>10}")
    print(f"{'fixture to teardown, one register':38}{fixture_median:>8.1f}ms{fixture_p90:>8.1f}ms")
    print(f"{'peer: C echo, same client, 6 trips':38}{peer_median:>8.1f}ms{peer_p90:>8.1f}ms")
    print(f"{'ratio fixture / peer':38}{fixture_median / peer_median:>9.2f}x")
    print("breakdown (the fixture's steps timed one by one, medians):")
    for name, values in steps.items():
        print(f"  {name:36}{statistics.median(values) * 1000:>8.1f}ms")
    target = 100.0
    verdict = "met" if fixture_median <= target else "NOT met"
    print(f"target: median <= {target:.0f} ms: {verdict}")
    return 0 if fixture_median <= target else 1


if __name__ == "__main__":
    sys.exit(main())
