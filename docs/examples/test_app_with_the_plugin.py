"""A fitness app's paywall tests with the pytest plugin (superwall_bridge.testing).

docs/testing.md walks through it; `make test` runs it against the embedded demo app, Pocket
Trainer:

    SUPERWALL_BRIDGE=path/to/superwall-bridge python -m pytest docs/examples/test_app_with_the_plugin.py

Each test gets `superwall`, a bridge of its own, configured in a fresh data directory, on the
manual clock and with a fixed random seed, wired to `fake_store`, `paywall_driver` and
`event_recorder`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from superwall_bridge import SubscriptionStatus, SyncSuperwall
from superwall_bridge.testing import EventRecorder, FakeStore, FakeSuperwallAPI, PaywallAction, PaywallDriver

ANNUAL = "com.pockettrainer.pro.annual"
PRO_WORKOUT = {"workout_tier": "pro"}


def test_a_free_user_meets_the_gate_and_buys_pro(superwall: SyncSuperwall, paywall_driver: PaywallDriver,
                                                fake_store: FakeStore, event_recorder: EventRecorder) -> None:
    # start_workout holds 20 % out; this test is about the 80 % who see the paywall.
    superwall.override_assignment("2002", "3004")
    paywall_driver.then(PaywallAction.purchase(ANNUAL))

    result = superwall.register("start_workout", params=PRO_WORKOUT)

    assert result.outcome == "dismissed" and result.feature_granted
    assert paywall_driver.shown[0].paywall.info.identifier == "pro-workouts-gated"
    assert fake_store.purchases == [ANNUAL]
    event_recorder.assert_order("paywall_open", "transaction_start", "transaction_complete", "paywall_close")
    event_recorder.assert_tracked("transaction_complete", product_id=ANNUAL)


def test_a_subscriber_goes_straight_in(superwall: SyncSuperwall, paywall_driver: PaywallDriver) -> None:
    superwall.set_subscription_status(SubscriptionStatus.active("pro"))

    result = superwall.register("start_workout", params=PRO_WORKOUT)

    assert result.outcome == "skipped" and result.feature_granted
    assert paywall_driver.shown == []


def test_the_daily_limit_offer_shows_once_an_hour(superwall: SyncSuperwall, paywall_driver: PaywallDriver) -> None:
    superwall.set_user_attributes({"workouts_completed": 5})

    assert superwall.register("daily_limit_reached").outcome == "dismissed"  # shown, then closed
    assert superwall.register("daily_limit_reached").outcome == "skipped"  # capped
    superwall.advance_clock(3601)  # the manual clock: an hour passes at once
    assert superwall.register("daily_limit_reached").outcome == "dismissed"
    assert len(paywall_driver.shown) == 2


def test_a_restore_brings_pro_back(superwall: SyncSuperwall, fake_store: FakeStore) -> None:
    fake_store.restorable = ["pro"]

    assert superwall.restore_purchases().type == "restored"
    assert superwall.subscription_status().is_active


def test_the_seed_decides_the_onboarding_variant_and_a_test_can_force_the_other(superwall: SyncSuperwall) -> None:
    # Seed 0 (the superwall_seed fixture) draws the monthly trial, in every run.
    assert superwall.presentation_result("onboarding_complete").experiment.variant.id == "3002"
    superwall.override_assignment("2001", "3001")
    assert superwall.presentation_result("onboarding_complete").experiment.variant.id == "3001"


def test_events_go_out_when_flushed(superwall: SyncSuperwall, superwall_options: dict[str, Any]) -> None:
    superwall.set_user_attributes({"plan": "free"})

    flushed = superwall.flush_events()

    rows = (Path(superwall_options["dataDirectory"]) / "events.jsonl").read_text().splitlines()
    assert flushed > 0 and len(rows) == flushed
    assert any('"event_name":"user_attributes"' in row for row in rows)


# HTTP mode: the bridge fetches its config from a local fake of the Superwall API, which
# starts out holding the user's onboarding variant on the server.
@pytest.mark.superwall_api(script={"assignments": [{"experimentId": "2001", "variantId": "3001"}]})
def test_over_http_the_servers_variant_wins_and_events_reach_the_collector(
        superwall: SyncSuperwall, fake_superwall_api: FakeSuperwallAPI) -> None:
    superwall.identify("runner_1", restore_paywall_assignments=True)
    assert superwall.presentation_result("onboarding_complete").experiment.variant.id == "3001"

    superwall.register("open_coach_chat")
    superwall.flush_events()

    assert "open_coach_chat" in fake_superwall_api.event_names()
    assert fake_superwall_api.requests("/api/v1/static_config")[0].headers["authorization"] == "Bearer pk_t…"
