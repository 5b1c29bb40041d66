"""A session recorded with ``--record`` and replayed with ``superwall-bridge replay``, against
the real binary: identical as recorded, and the first differing decision with a changed rule."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

from superwall_bridge import (
    PaywallInfo, PaywallPresentation, Product, PurchaseResult, RestorationResult, StoreDetails, StorePeriod, StoreTransaction,
    SubscriptionStatus, Superwall,
)
from superwall_bridge.testing import FakeSuperwallAPI

from conftest import PROTOCOL

DEMO_CONFIG = PROTOCOL.parent / "config" / "demo.json"


class Screen:
    def __init__(self) -> None:
        self.shown: asyncio.Queue[PaywallPresentation] = asyncio.Queue()

    async def present(self, presentation: PaywallPresentation) -> None:
        await self.shown.put(presentation)

    def dismiss(self, dismissal: Any) -> None:
        pass


class Store:
    def __init__(self) -> None:
        self.sw: Superwall | None = None

    async def purchase(self, product: Product, paywall_info: PaywallInfo | None) -> PurchaseResult:
        assert self.sw is not None
        await self.sw.set_subscription_status(SubscriptionStatus.active(*(e.id for e in product.entitlements)))
        return PurchaseResult.purchased(StoreTransaction(transaction_id="tx-1"))

    def restore_purchases(self) -> RestorationResult:
        return RestorationResult.failed("nothing to restore")


def record_the_demo_story(bridge: str, recording: Path, data_directory: str, *, redact: bool = False,
                          config_source: dict[str, str] | None = None) -> None:
    """configure, identify, attributes, a gated register with a purchase, a deep link, a refresh."""
    source = config_source or {"type": "file", "path": str(DEMO_CONFIG)}
    async def story() -> None:
        screen, store = Screen(), Store()
        arguments = ["--record", str(recording)] + (["--record-redact"] if redact else [])
        async with Superwall.start(bridge, arguments=arguments, purchase_controller=store,
                                   paywall_presenter=screen) as sw:
            store.sw = sw
            # No preloads: the one a refresh starts tracks its events whenever it ends, before or
            # after the flush below, so the flush's count would depend on the machine's speed.
            await sw.configure("pk_replay", options={"configSource": source, "dataDirectory": data_directory,
                                                     "paywalls": {"shouldPreload": False}},
                               store_products=[StoreDetails("com.pockettrainer.pro.monthly", price=9.99, currency_code="USD",
                                                            period=StorePeriod("month"))])
            await sw.set_subscription_status(SubscriptionStatus.inactive())
            await sw.identify("runner_042")
            await sw.set_user_attributes({"plan": "free", "email": "runner@example.com", "workouts_completed": 5})
            registering = asyncio.create_task(sw.register("daily_limit_reached", has_feature=True, explain=True))
            shown = await asyncio.wait_for(screen.shown.get(), 10)
            bought = await sw.paywall_action(shown.session_id, {"type": "purchase", "productId": "com.pockettrainer.pro.monthly"})
            assert bought["result"]["type"] == "purchased", bought
            result = await registering
            assert result.decision is not None and result.decision.outcome == "presented"
            await sw.handle_deep_link("https://pockettrainer.superwall.app/app-link/workouts/today")
            await sw.refresh_configuration()
            await sw.flush_events()

    asyncio.run(asyncio.wait_for(story(), 60))


def test_a_recorded_session_replays_identically_and_against_a_changed_rule_names_the_decision(
        bridge: str, tmp_path: Path) -> None:
    recording = tmp_path / "session.jsonl"
    record_the_demo_story(bridge, recording, str(tmp_path / "data"))
    header = json.loads(recording.read_text().splitlines()[0])
    assert header["direction"] == "note" and header["recording"] == 1 and isinstance(header["randomSeed"], int)
    assert "pk_replay" not in recording.read_text(), "the API key is masked"

    same = subprocess.run([bridge, "replay", str(recording)], capture_output=True, text=True, timeout=120)
    assert same.returncode == 0, same.stdout + same.stderr
    assert same.stdout.startswith("identical: "), same.stdout

    changed = tmp_path / "changed.json"
    changed.write_text(DEMO_CONFIG.read_text().replace("user.workouts_completed >= 3", "user.workouts_completed >= 10"))
    edited = subprocess.run([bridge, "replay", "--frame-timeout", "2", "--config", str(changed), str(recording)],
                            capture_output=True, text=True, timeout=120)
    assert edited.returncode == 1, edited.stdout + edited.stderr
    # The paywall is no longer shown, and register's decision says where the two part.
    assert "did not send the bridge's request paywall/present" in edited.stdout, edited.stdout
    assert 'the answer to request "register-' in edited.stdout and "differs at $.result.decision" in edited.stdout, edited.stdout
    assert "recorded: " in edited.stdout and "replayed: " in edited.stdout


def test_a_session_on_the_superwall_api_replays_from_the_http_exchanges_it_recorded(
        bridge: str, tmp_path: Path) -> None:
    recording = tmp_path / "api-session.jsonl"
    with FakeSuperwallAPI(config=DEMO_CONFIG, bridge_path=bridge) as api:
        record_the_demo_story(bridge, recording, str(tmp_path / "data"), config_source=api.config_source)
        served = len(api.requests())
    exchanges = [json.loads(line) for line in recording.read_text().splitlines() if '"direction":"http"' in line]
    assert len(exchanges) == served, f"{len(exchanges)} exchanges recorded, {served} served"
    configs = [e for e in exchanges if "/api/v1/static_config" in e["url"]]
    assert len(configs) == 2 and all(e["status"] == 200 and '"build_id"' in e["body"] for e in configs), configs
    assert all("pk_replay" not in e["url"] for e in exchanges), "the API key is masked in the URLs"
    assert any(e["method"] == "POST" and e["url"].endswith("/api/v1/events") for e in exchanges), exchanges

    # The fake API is gone: the replayed bridge is answered from the recording alone.
    replayed = subprocess.run([bridge, "replay", str(recording)], capture_output=True, text=True, timeout=120)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert replayed.stdout.startswith("identical: "), replayed.stdout


def test_a_recording_without_the_http_exchanges_of_an_api_session_asks_for_a_config(
        bridge: str, tmp_path: Path) -> None:
    recording = tmp_path / "api-session.jsonl"
    with FakeSuperwallAPI(config=DEMO_CONFIG, bridge_path=bridge) as api:
        record_the_demo_story(bridge, recording, str(tmp_path / "data"), config_source=api.config_source)
    without = tmp_path / "without-http.jsonl"
    without.write_text("".join(line + "\n" for line in recording.read_text().splitlines()
                               if '"direction":"http"' not in line))
    refused = subprocess.run([bridge, "replay", str(without)], capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "holds none of its HTTP exchanges; replay it with --config FILE" in refused.stderr, refused.stderr


def test_a_redacted_recording_holds_no_user_value_and_still_replays_identically(bridge: str, tmp_path: Path) -> None:
    recording = tmp_path / "redacted.jsonl"
    # On the API, whose exchanges are recorded too: the user id can be a segment of a URL.
    with FakeSuperwallAPI(config=DEMO_CONFIG, bridge_path=bridge) as api:
        record_the_demo_story(bridge, recording, str(tmp_path / "data"), redact=True, config_source=api.config_source)
    text = recording.read_text()
    assert json.loads(text.splitlines()[0])["redacted"] is True
    for value in ("runner_042", "runner@example.com", '"free"', '\\"free\\"'):
        assert value not in text, f"{value} is in the recording"
    assert "redacted-" in text
    replayed = subprocess.run([bridge, "replay", str(recording)], capture_output=True, text=True, timeout=120)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr


def test_a_trace_is_not_a_recording(bridge: str, tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    trace.write_text(json.dumps({"time": "2026-11-28T10:00:00.000Z", "direction": "in", "bytes": 2, "frame": "{}"}) + "\n")
    refused = subprocess.run([bridge, "replay", str(trace)], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "not a recording" in refused.stderr, refused.stderr
