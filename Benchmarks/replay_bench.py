#!/usr/bin/env python3
"""B16 of `make bench`: replaying a recorded session of 1,000 messages.

Records a session with `--record` (initialize, configure on the embedded config, then
`register`, `getPresentationResult` and `setUserAttributes` in turn until the recording holds
MESSAGES frames), then times `superwall-bridge replay` on it RUNS times. The peer, in the same
run: the same session driven live by the Python client, its time from spawn to exit. The
target is under 1 s a replay.

Usage (the interpreter must have superwall_bridge installed):
  replay_bench.py --bridge BIN [--messages 1000] [--runs 7]
"""
import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from superwall_bridge import Superwall


async def session(bridge: str, recording: Path, messages: int, data_directory: str) -> float:
    """Drives the session, recording it; answers its wall time from spawn to exit."""
    started = time.monotonic()
    async with Superwall.start(bridge, arguments=["--record", str(recording)]) as sw:
        await sw.configure("pk_bench", options={"configSource": {"type": "embedded"}, "dataDirectory": data_directory})
        calls = 0
        # Each call is a request and its answer; the configure and handshake add a few more.
        while calls * 2 < messages - 8:
            match calls % 3:
                case 0:
                    await sw.register("daily_limit_reached")
                case 1:
                    await sw.presentation_result("workout_shared")
                case _:
                    await sw.set_user_attributes({"workouts_completed": calls % 7})
            calls += 1
    return time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bridge", required=True)
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=7)
    arguments = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="replay-bench-"))
    recording = work / "session.jsonl"
    live = [asyncio.run(session(arguments.bridge, recording, arguments.messages, tempfile.mkdtemp(dir=work)))
            for _ in range(3)]
    frames = sum(1 for line in recording.read_text().splitlines() if '"direction":"note"' not in line)
    replays = []
    for _ in range(arguments.runs):
        started = time.monotonic()
        replayed = subprocess.run([arguments.bridge, "replay", str(recording)], capture_output=True, text=True)
        replays.append(time.monotonic() - started)
        if replayed.returncode != 0:
            print(f"replay failed ({replayed.returncode}): {replayed.stdout}{replayed.stderr}", file=sys.stderr)
            return 1
    replay, peer = statistics.median(replays), statistics.median(live)
    print(f"B16 replay of a {frames}-frame recording: median {replay * 1000:.0f} ms of {arguments.runs} "
          f"(spread {min(replays) * 1000:.0f}-{max(replays) * 1000:.0f} ms), target under 1000 ms: "
          f"{'met' if replay < 1 else 'NOT met'}")
    print(f"    peer, the same session driven live by the Python client: median {peer * 1000:.0f} ms of 3; "
          f"replay / live = {replay / peer:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
