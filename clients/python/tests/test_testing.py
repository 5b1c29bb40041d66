"""The testing toolkit: the pytest plugin's fixtures and its doubles, against the real bridge."""

from __future__ import annotations

from pathlib import Path

import pytest

from superwall_bridge import CustomCallback, CustomCallbackResult, PresentationHandler, SubscriptionStatus, SyncSuperwall
from superwall_bridge.testing import EventRecorder, FakeStore, PaywallAction, PaywallDriver

ANNUAL = "com.pockettrainer.pro.annual"
PRO_WORKOUT = {"workout_tier": "pro"}


def gate_on_the_paywall_variant(superwall: SyncSuperwall) -> None:
    """start_workout holds 20 % out; these tests are about the 80 % who see its paywall."""
    superwall.override_assignment("2002", "3004")


def test_a_free_user_buys_through_the_gate(superwall: SyncSuperwall, paywall_driver: PaywallDriver,
                                          fake_store: FakeStore, event_recorder: EventRecorder) -> None:
    gate_on_the_paywall_variant(superwall)
    paywall_driver.then(PaywallAction.purchase(ANNUAL))
    result = superwall.register("start_workout", params=PRO_WORKOUT)
    assert result.outcome == "dismissed" and result.feature_granted
    assert [shown.paywall.info.identifier for shown in paywall_driver.shown] == ["pro-workouts-gated"]
    assert fake_store.purchases == [ANNUAL]
    assert superwall.subscription_status().is_active
    event_recorder.assert_tracked("transaction_complete", paywall_identifier="pro-workouts-gated")
    event_recorder.assert_order("paywall_open", "transaction_start", "transaction_complete", "paywall_close")


def test_an_event_carries_the_wrappers_name_and_its_typed_fields(superwall: SyncSuperwall, paywall_driver: PaywallDriver,
                                                                 fake_store: FakeStore, event_recorder: EventRecorder) -> None:
    gate_on_the_paywall_variant(superwall)
    paywall_driver.then(PaywallAction.purchase(ANNUAL))
    superwall.register("start_workout", params=PRO_WORKOUT)
    opened = event_recorder.assert_tracked("paywall_open")
    assert opened.event == "paywallOpen"
    assert opened.paywall_info is not None and opened.paywall_info.identifier == "pro-workouts-gated"
    completed = event_recorder.assert_tracked("transaction_complete")
    assert completed.product is not None and completed.product.id == ANNUAL
    assert completed.transaction_type is not None
    fired = [event for event in event_recorder.events if event.name == "trigger_fire"]
    assert "start_workout" in [event.placement_name for event in fired]
    assert {event.event for event in fired} == {"triggerFire"}


def test_a_script_sends_a_custom_callback_that_the_tests_handler_answers(superwall: SyncSuperwall,
                                                                        paywall_driver: PaywallDriver) -> None:
    class Handler(PresentationHandler):
        def on_custom_callback(self, callback: CustomCallback) -> CustomCallbackResult:
            return CustomCallbackResult.success({"valid": callback.variables.get("code") == "SUMMER"})

    superwall.set_user_attributes({"workouts_completed": 5})
    paywall_driver.then(PaywallAction.request_callback("validate_promo_code", {"code": "SUMMER"}), PaywallAction.close())
    assert superwall.register("daily_limit_reached", handler=Handler()).outcome == "dismissed"
    assert paywall_driver.answers[0] == {"status": "success", "data": {"valid": True}}


SUMMER_LINK = "pockettrainer://open?path=promo&offer=summer"


def test_a_deep_links_paywall_is_in_shown_once_handle_deep_link_answers(superwall: SyncSuperwall,
                                                                         paywall_driver: PaywallDriver) -> None:
    assert superwall.handle_deep_link(SUMMER_LINK)
    assert [presentation.paywall.info.identifier for presentation in paywall_driver.shown] == ["summer-sale"]


def test_wait_for_paywall_takes_the_paywall_a_deep_link_presented_and_names_what_was_shown_when_none_came(
        superwall: SyncSuperwall, paywall_driver: PaywallDriver) -> None:
    assert superwall.handle_deep_link(SUMMER_LINK)
    presented = paywall_driver.wait_for_paywall("deepLink_open")
    assert presented.paywall.info.identifier == "summer-sale"
    assert presented.paywall.info.presentation_source_type == "implicit"
    # No audience of the campaign matches a winter offer: nothing more is presented.
    assert superwall.handle_deep_link("pockettrainer://open?path=promo&offer=winter")
    with pytest.raises(AssertionError, match=r"no paywall was presented by 'deepLink_open'.*shown: \['summer-sale'\]"):
        paywall_driver.wait_for_paywall("deepLink_open")


def test_a_tests_data_directory_costs_what_it_holds_once_its_bridge_closed(tmp_path: Path) -> None:
    directory = tmp_path / "superwall-data"
    store, driver = FakeStore(), PaywallDriver(unscripted="close")
    with SyncSuperwall.start(purchase_controller=store, paywall_presenter=driver) as superwall:
        store.attach(superwall.client)
        driver.attach(superwall.client)
        superwall.configure("pk_test", options={"configSource": {"type": "embedded"}, "dataDirectory": str(directory),
                                                "clock": "manual", "randomSeed": 0})
        superwall.run(store.report_status())
        gate_on_the_paywall_variant(superwall)
        driver.then(PaywallAction.purchase(ANNUAL))
        assert superwall.register("start_workout", params=PRO_WORKOUT).feature_granted
        superwall.flush_events()
    allocated = sum(path.stat().st_blocks * 512 for path in directory.rglob("*") if path.is_file())
    sizes = ", ".join(f"{path.relative_to(directory)} {path.stat().st_blocks // 2} KiB" for path in sorted(directory.rglob("*")))
    assert allocated <= 256 * 1024, sizes


def test_a_subscriber_passes_the_gate_without_a_paywall(superwall: SyncSuperwall, paywall_driver: PaywallDriver) -> None:
    gate_on_the_paywall_variant(superwall)
    superwall.set_subscription_status(SubscriptionStatus.active("pro"))
    result = superwall.register("start_workout", params=PRO_WORKOUT)
    assert result.outcome == "skipped" and result.feature_granted
    assert paywall_driver.shown == []


def test_a_paywall_no_script_acts_on_is_closed(superwall: SyncSuperwall, paywall_driver: PaywallDriver) -> None:
    gate_on_the_paywall_variant(superwall)
    result = superwall.register("start_workout", params=PRO_WORKOUT)
    assert result.outcome == "dismissed" and not result.feature_granted
    assert len(paywall_driver.shown) == 1


def test_an_abandoned_purchase_leaves_the_gate_closed(superwall: SyncSuperwall, paywall_driver: PaywallDriver,
                                                      fake_store: FakeStore, event_recorder: EventRecorder) -> None:
    gate_on_the_paywall_variant(superwall)
    fake_store.will(ANNUAL, "cancelled")
    paywall_driver.then(PaywallAction.purchase(ANNUAL), PaywallAction.close())
    registering = superwall.register("start_workout", params=PRO_WORKOUT)
    assert registering.outcome == "dismissed" and not registering.feature_granted
    assert [answer.get("result", {}).get("type") for answer in paywall_driver.answers] == ["cancelled", None]
    event_recorder.assert_tracked("transaction_abandon", times=1)
    event_recorder.assert_not_tracked("transaction_complete")
    assert not superwall.subscription_status().is_active


def test_a_restore_finds_what_the_store_holds(superwall: SyncSuperwall, fake_store: FakeStore) -> None:
    fake_store.restorable = ["pro"]
    assert superwall.restore_purchases().type == "restored"
    assert fake_store.restores == 1
    assert superwall.subscription_status().is_active


def test_the_recorder_says_what_was_tracked_when_an_event_is_missing(superwall: SyncSuperwall,
                                                                     event_recorder: EventRecorder) -> None:
    superwall.set_user_attributes({"plan": "gold"})
    event_recorder.assert_tracked("user_attributes")
    with pytest.raises(AssertionError, match="paywall_open was not tracked; tracked: .*user_attributes"):
        event_recorder.assert_tracked("paywall_open", within=0.1)


def test_the_seed_fixture_draws_the_same_variants_as_another_bridge_with_that_seed(
        superwall: SyncSuperwall, superwall_seed: int, tmp_path: Path) -> None:
    first = sorted((a.experiment_id, a.variant.id) for a in superwall.assignments())
    with SyncSuperwall.start() as again:
        again.configure("pk_test", options={"configSource": {"type": "embedded"}, "randomSeed": superwall_seed,
                                             "dataDirectory": str(tmp_path / "another")})
        assert first and sorted((a.experiment_id, a.variant.id) for a in again.assignments()) == first
