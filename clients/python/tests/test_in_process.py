"""The client with the bridge in this process (libsuperwall_bridge.so through ctypes): the same
API, callbacks included. The conformance scenarios run this way too (test_conformance.py)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from superwall_bridge import (BridgeNotFoundError, PresentationHandler, PurchaseResult, RestorationResult, SkipReason, SuperwallDelegate,
                              StoreDetails, StorePeriod, SubscriptionStatus, Superwall)
from superwall_bridge.connection import find_library

from conftest import embedded


class Store:
    def __init__(self) -> None:
        self.bought: list[str] = []

    async def purchase(self, product: Any, paywall_info: Any) -> PurchaseResult:
        self.bought.append(product.id)
        return PurchaseResult.purchased()

    async def restore_purchases(self) -> RestorationResult:
        return RestorationResult.restored()


class Skips(PresentationHandler):
    def __init__(self) -> None:
        self.reasons: list[str] = []

    def on_skip(self, reason: SkipReason) -> None:
        self.reasons.append(reason.type)


def test_the_quick_start_runs_in_process_with_the_purchase_controller_asked_by_the_bridge(
        library: str, data_directory: str, tmp_path: Path) -> None:
    trace = tmp_path / "frames.jsonl"

    async def scenario() -> None:
        store = Store()
        async with Superwall.start(in_process=True, library_path=library, purchase_controller=store,
                                   bridge_options={"trace": str(trace)}) as sw:
            assert sw.connection.pid == os.getpid()
            await sw.configure("pk_demo", options=embedded(data_directory), store_products=[
                StoreDetails("com.pockettrainer.coach.monthly", price=19.99, currency_code="USD", period=StorePeriod("month"))])
            await sw.set_subscription_status(SubscriptionStatus.inactive())
            await sw.identify("runner_042")
            await sw.set_user_attributes({"plan": "free"})
            handler = Skips()
            result = await sw.register("workout_shared", has_feature=True, handler=handler)
            assert result.feature_granted and handler.reasons == ["noAudienceMatch"]
            # A request from the bridge to this client, answered through the same callback.
            assert await sw.purchase("com.pockettrainer.coach.monthly") == PurchaseResult("purchased")
            assert store.bought == ["com.pockettrainer.coach.monthly"]
        assert 'purchaseController/purchase' in trace.read_text()

    asyncio.run(asyncio.wait_for(scenario(), 30))


def test_two_bridges_in_one_process_keep_their_own_users(library: str, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with Superwall.start(in_process=True, library_path=library) as first, \
                Superwall.start(in_process=True, library_path=library) as second:
            await first.configure("pk_one", options=embedded(str(tmp_path / "one")))
            await second.configure("pk_two", options=embedded(str(tmp_path / "two")))
            await asyncio.gather(first.identify("alice"), second.identify("bob"))
            assert ((await first.user()).user_id, (await second.user()).user_id) == ("alice", "bob")

    asyncio.run(asyncio.wait_for(scenario(), 30))


def test_a_bridge_restarted_in_the_same_process_opens_the_closed_ones_data_directory(
        library: str, data_directory: str) -> None:
    """A wrapper's hot restart: the closed bridge let go of its directory, and the new one finds its user."""
    async def scenario() -> None:
        async with Superwall.start(in_process=True, library_path=library) as first:
            await first.configure("pk_demo", options=embedded(data_directory))
            await first.identify("runner_042")
        async with Superwall.start(in_process=True, library_path=library) as restarted:
            result = await restarted.configure("pk_demo", options=embedded(data_directory))
            assert result.configuration_status == "configured", result
            assert (await restarted.user()).user_id == "runner_042"

    asyncio.run(asyncio.wait_for(scenario(), 30))


def test_bad_options_and_a_missing_library_are_clear_errors(library: str, tmp_path: Path) -> None:
    async def bad_options() -> None:
        await Superwall.start(in_process=True, library_path=library, bridge_options={"framing": "ndjson"})

    with pytest.raises(ValueError, match='unknown option "framing"'):
        asyncio.run(bad_options())
    with pytest.raises(BridgeNotFoundError, match="no bridge library at"):
        find_library(tmp_path / "missing.so")


class Logs(SuperwallDelegate):
    def __init__(self) -> None:
        self.lines: list[str] = []

    def handle_log(self, level: str, scope: str, message: str | None, info: dict[str, Any] | None, error: str | None) -> None:
        self.lines.append(f"{scope}: {message}")


def test_each_bridge_in_a_process_hears_its_own_log_lines(library: str, tmp_path: Path) -> None:
    """The SDK's own loggers are the process's; each line still reaches the bridge whose work
    logged it, not the one opened last."""
    async def scenario() -> None:
        first_logs, second_logs = Logs(), Logs()
        debug = {"logLevel": "debug"}
        async with Superwall.start(in_process=True, library_path=library, delegate=first_logs, bridge_options=debug) as first, \
                Superwall.start(in_process=True, library_path=library, delegate=second_logs, bridge_options=debug) as second:
            await first.configure("pk_one", options=embedded(str(tmp_path / "one")))
            await second.configure("pk_two", options=embedded(str(tmp_path / "two")))
            await asyncio.gather(first.register("first_bridge_placement"), second.register("second_bridge_placement"))
            await asyncio.sleep(0.1)
        assert any("first_bridge_placement" in line for line in first_logs.lines)
        assert any("second_bridge_placement" in line for line in second_logs.lines)
        assert not any("second_bridge_placement" in line for line in first_logs.lines)
        assert not any("first_bridge_placement" in line for line in second_logs.lines)

    asyncio.run(asyncio.wait_for(scenario(), 30))


def test_the_clients_codes_are_the_headers() -> None:
    import re

    from superwall_bridge._transports import BridgeCode

    header = (Path(__file__).resolve().parents[3] / "embedding/include/superwall_bridge.h").read_text()
    defined = {name: int(value) for name, value in re.findall(r"#define SUPERWALL_BRIDGE_(\w+) (\d+)", header)}
    defined.pop("RECEIVED")  # receive's name for 0, which send calls TAKEN
    assert defined == {code.name: code.value for code in BridgeCode}
