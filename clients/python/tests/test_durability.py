"""Accepted events survive a crash: a bridge killed with SIGKILL at random points while
events flow loses none that it acknowledged. They are counted on a local collector after a
restart."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from superwall_bridge import BridgeClosedError, SubscriptionStatus, Superwall

from conftest import PROTOCOL

CONFIG = (PROTOCOL / "conformance" / "configs" / "demo-holdout.json").read_bytes()


class Collector:
    """The Superwall API on 127.0.0.1: the config, and every event posted to the collector."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self.answer(200, CONFIG if self.path.startswith("/api/v1/static_config") else b"{}")

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.path == "/api/v1/events":
                    with collector.lock:
                        collector.events.extend(json.loads(body)["events"])
                self.answer(200, b'{"status": "ok"}')

            def answer(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def placement_numbers(self) -> set[int]:
        with self.lock:
            return {event["parameters"]["n"] for event in self.events if event["event_name"] == "workout_shared"}

    def event_ids(self) -> list[str]:
        with self.lock:
            return [event["event_id"] for event in self.events]


async def start(bridge: str, collector: Collector, data_directory: str) -> Superwall:
    sw = await Superwall.start(bridge)
    await sw.configure("pk_crash", options={
        "configSource": {"type": "http", "baseUrl": collector.url}, "dataDirectory": data_directory,
        "eventFlushIntervalMs": 100, "maxConfigRetryCount": 0,
    })
    await sw.set_subscription_status(SubscriptionStatus.inactive())
    return sw


def test_a_bridge_killed_while_events_flow_loses_none_it_acknowledged(bridge: str, tmp_path: Path) -> None:
    collector = Collector()
    data_directory = str(tmp_path / "data")
    acknowledged: set[int] = set()
    randomness = random.Random(7)

    async def run() -> None:
        number = 0
        for _ in range(5):
            sw = await start(bridge, collector, data_directory)
            killer = asyncio.get_running_loop().call_later(randomness.uniform(0.05, 0.4), os.kill, sw.connection.pid, signal.SIGKILL)
            try:
                while True:
                    number += 1
                    await sw.register("workout_shared", params={"n": number}, timeout=10)
                    acknowledged.add(number)
            except BridgeClosedError:
                pass
            killer.cancel()
            await sw.close(timeout=2)
        # A last run sends what the killed ones left on disk.
        sw = await start(bridge, collector, data_directory)
        for _ in range(400):
            if acknowledged <= collector.placement_numbers():
                break
            await asyncio.sleep(0.05)
        assert await sw.close() == 0

    asyncio.run(asyncio.wait_for(run(), 120))
    assert len(acknowledged) > 20, "the runs were too short to mean anything"
    missing = acknowledged - collector.placement_numbers()
    assert not missing, f"{len(missing)} acknowledged placements never reached the collector: {sorted(missing)[:20]}"
