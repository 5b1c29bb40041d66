"""The Python API against the real binary: typed results, callbacks, errors, timeouts, a
bridge that dies mid-call, and the synchronous facade."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from superwall_bridge import (
    BridgeClosedError, BridgeNotFoundError, BridgeTimeoutError, CustomCallback, CustomCallbackResult,
    CustomerInfoTimeoutError, InvalidParamsError, PaywallDismissal, PaywallInfo, PaywallPresentation, PaywallResult,
    PaywallSkippedError, PreloadedPaywall, ProductNotFoundError, PresentationHandler, Product, PurchaseResult, RestorationResult, ReservedPlacementNameError,
    SkipReason, StoreDetails, StorePeriod, StoreTransaction, SubscriptionStatus, Superwall, SuperwallDelegate,
    SuperwallEvent, SurveyAnswer, SurveyRequest, SyncSuperwall, find_bridge,
)

from conftest import PROTOCOL, embedded


def run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, 30))


class RecordingDelegate(SuperwallDelegate):
    def __init__(self) -> None:
        self.events: list[str] = []
        self.statuses: list[tuple[str, str]] = []
        self.logs: list[tuple[str, str | None]] = []

    def handle_log(self, level: str, scope: str, message: str | None, info: dict[str, Any] | None, error: str | None) -> None:
        self.logs.append((level, message))

    def handle_superwall_event(self, event: SuperwallEvent) -> None:
        self.events.append(event.name)

    async def subscription_status_did_change(self, old: SubscriptionStatus, new: SubscriptionStatus) -> None:
        self.statuses.append((old.type, new.type))


class Presenter:
    """Shows paywalls by remembering them; the test closes them."""

    def __init__(self) -> None:
        self.shown: asyncio.Queue[PaywallPresentation] = asyncio.Queue()
        self.dismissed: list[PaywallDismissal] = []

    async def present(self, presentation: PaywallPresentation) -> None:
        await self.shown.put(presentation)

    def dismiss(self, dismissal: PaywallDismissal) -> None:
        self.dismissed.append(dismissal)


class StoreController:
    """A purchase controller that sets the status, then answers purchased."""

    def __init__(self) -> None:
        self.sw: Superwall | None = None
        self.bought: list[str] = []

    async def purchase(self, product: Product, paywall_info: PaywallInfo | None) -> PurchaseResult:
        assert self.sw is not None
        self.bought.append(product.id)
        await self.sw.set_subscription_status(SubscriptionStatus.active(*(e.id for e in product.entitlements)))
        return PurchaseResult.purchased(StoreTransaction(transaction_id=f"tx-{len(self.bought)}"))

    def restore_purchases(self) -> RestorationResult:
        return RestorationResult.failed("nothing to restore")


def test_a_skipped_register_answers_a_typed_result_and_grants_the_feature(bridge: str, data_directory: str, bridge_arguments: list[str]) -> None:
    async def scenario() -> None:
        async with Superwall.start(bridge, arguments=bridge_arguments) as sw:
            configured = await sw.configure("pk_test", options=embedded(data_directory))
            assert configured.configuration_status == "configured" and configured.user_id
            assert configured.warnings == []
            skipped: list[SkipReason] = []

            class Handler(PresentationHandler):
                def on_skip(self, reason: SkipReason) -> None:
                    skipped.append(reason)

            result = await sw.register("workout_shared", params={"source": "test"}, handler=Handler())
            assert result.feature_granted and result.outcome == "skipped"
            assert result.skip_reason == SkipReason("noAudienceMatch")
            assert skipped == [SkipReason("noAudienceMatch")], "the handler heard the skip before register returned"

    run(scenario())


def test_configure_answers_unknown_options_as_warnings(bridge: str, data_directory: str, bridge_arguments: list[str]) -> None:
    async def scenario() -> None:
        async with Superwall.start(bridge, arguments=bridge_arguments) as sw:
            configured = await sw.configure("pk_test", options={**embedded(data_directory), "shouldPreloadEverything": True})
            assert configured.configuration_status == "configured"
            assert [warning.path for warning in configured.warnings] == ["params.options.shouldPreloadEverything"]

    run(scenario())


def test_integration_attributes_locale_and_interface_style_reach_the_device(bridge: str, data_directory: str, bridge_arguments: list[str]) -> None:
    async def scenario() -> None:
        async with Superwall.start(bridge, arguments=bridge_arguments) as sw:
            await sw.configure("pk_test", options=embedded(data_directory))
            await sw.set_integration_attributes({"adjustId": "adj-1"})
            assert (await sw.integration_attributes())["adjustId"] == "adj-1"
            await sw.set_locale_identifier("de_DE")
            await sw.set_interface_style("dark")
            device = await sw.device_attributes()
            assert device["deviceLocale"] == "de_DE" and device["interfaceStyle"] == "Dark"
            await sw.set_interface_style(None)
            assert (await sw.device_attributes())["interfaceStyle"] != "Dark"
            await sw.set_platform_wrapper("Flutter", "2.3.1")
            device = await sw.device_attributes()
            assert (device["platformWrapper"], device["platformWrapperVersion"]) == ("Flutter", "2.3.1")

    run(scenario())


def test_products_overridden_by_name_after_configure_are_read_back(bridge: str, data_directory: str, bridge_arguments: list[str]) -> None:
    async def scenario() -> None:
        async with Superwall.start(bridge, arguments=bridge_arguments) as sw:
            await sw.configure("pk_test", options=embedded(data_directory))
            assert await sw.override_products_by_name() == {}
            await sw.set_override_products_by_name({"primary": "com.pockettrainer.pro.annual"})
            assert await sw.override_products_by_name() == {"primary": "com.pockettrainer.pro.annual"}

    run(scenario())


def test_turning_event_tracking_off_drops_what_waits(bridge: str, data_directory: str, bridge_arguments: list[str]) -> None:
    async def scenario() -> None:
        async with Superwall.start(bridge, arguments=bridge_arguments) as sw:
            await sw.configure("pk_test", options=embedded(data_directory))
            assert (await sw.event_queue_status())["waiting"] > 0
            await sw.set_event_tracking_behavior("none")
            status = await sw.event_queue_status()
            assert status["waiting"] == 0 and status["dropped"] > 0

    run(scenario())


def test_a_presented_paywall_is_driven_to_its_end_with_the_handler_heard_in_order(bridge: str, data_directory: str, bridge_arguments: list[str]) -> None:
    async def scenario() -> None:
        presenter = Presenter()
        delegate = RecordingDelegate()
        heard: list[str] = []
        on_screen = asyncio.Event()

        class Handler(PresentationHandler):
            def on_present(self, info: PaywallInfo) -> None:
                heard.append(f"present {info.identifier}")
                on_screen.set()

            async def on_dismiss(self, info: PaywallInfo, result: PaywallResult) -> None:
                heard.append(f"dismiss {result.type}")

            def on_custom_callback(self, callback: CustomCallback) -> CustomCallbackResult:
                heard.append(f"callback {callback.name}")
                return CustomCallbackResult.success({"valid": callback.variables.get("code") == "SUMMER"})

        async with Superwall.start(bridge, arguments=bridge_arguments, paywall_presenter=presenter, delegate=delegate) as sw:
            await sw.configure("pk_test", options=embedded(data_directory))
            await sw.set_user_attributes({"workouts_completed": 5})
            registering = asyncio.create_task(sw.register("daily_limit_reached", handler=Handler()))
            shown = await asyncio.wait_for(presenter.shown.get(), 10)
            assert shown.paywall.info.identifier == "limit-reached-promo-code"
            assert shown.paywall.info.feature_gating_behavior == "gated"
            await asyncio.wait_for(on_screen.wait(), 10)  # the user acts on what is on screen
            assert await sw.is_paywall_presented()
            assert (await sw.latest_paywall_info()).identifier == "limit-reached-promo-code"
            # The page has not pinged: there is no ready page to put a spinner over.
            assert await sw.toggle_paywall_spinner(is_hidden=False) == "loadingURL"
            answer = await sw.paywall_action(shown.session_id, {"type": "requestCallback", "name": "validate_promo_code",
                                                                 "variables": {"code": "SUMMER"}})
            assert answer == {"status": "success", "data": {"valid": True}}
            await sw.paywall_action(shown.session_id, {"type": "close"})
            result = await registering
            assert result.outcome == "dismissed" and result.paywall_result == PaywallResult("declined")
            assert not result.feature_granted, "a gated paywall closed without a purchase grants nothing"
            assert heard == ["present limit-reached-promo-code", "callback validate_promo_code", "dismiss declined"]
            assert presenter.dismissed[0].close_reason == "manualClose"
            assert "paywall_open" in delegate.events and "paywall_decline" in delegate.events
            assert not await sw.is_paywall_presented()
            latest = await sw.latest_paywall_info()
            assert latest is not None and latest.identifier == "limit-reached-promo-code" and latest.close_reason == "manualClose"
            assert await sw.toggle_paywall_spinner(is_hidden=True) is None

    run(scenario())


def test_a_purchase_controller_buys_sets_the_status_and_the_entitlements_follow(bridge: str, data_directory: str, bridge_arguments: list[str]) -> None:
    async def scenario() -> None:
        controller = StoreController()
        delegate = RecordingDelegate()
        async with Superwall.start(bridge, arguments=bridge_arguments, purchase_controller=controller, delegate=delegate) as sw:
            controller.sw = sw
            await sw.configure("pk_test", options=embedded(data_directory), store_products=[
                StoreDetails("com.pockettrainer.coach.monthly", price=19.99, currency_code="USD", period=StorePeriod("month"))])
            await sw.set_subscription_status(SubscriptionStatus.inactive())
            result = await sw.purchase("com.pockettrainer.coach.monthly")
            assert result == PurchaseResult("purchased")
            entitlements = await sw.entitlements()
            assert sorted(e.id for e in entitlements.active) == ["coach", "pro"]
            info = await sw.customer_info()
            assert [t.transaction_id for t in info.subscriptions] == ["tx-1"]
            assert {e.id for e in info.active_entitlements} == {"coach", "pro"}
            # The app's own restore is the controller's answer, as in SuperwallKit.
            restored = await sw.restore_purchases()
            assert restored.type == "failed" and restored.error == "nothing to restore"
            assert ("inactive", "active") in delegate.statuses
            # Outside a paywall, SuperwallKit tracks no transaction events for the app's purchase.
            assert "transaction_complete" not in delegate.events

    run(scenario())


def test_errors_are_raised_as_their_kind(bridge: str, data_directory: str, bridge_arguments: list[str]) -> None:
    async def scenario() -> None:
        async with Superwall.start(bridge, arguments=bridge_arguments) as sw:
            await sw.configure("pk_test", options=embedded(data_directory))
            with pytest.raises(ReservedPlacementNameError) as reserved:
                await sw.register("paywall_open")
            assert reserved.value.code == -32602 and reserved.value.kind == "reservedPlacementName"
            with pytest.raises(InvalidParamsError) as invalid:
                await sw.call("register", {"placement": 42})
            assert invalid.value.path == "params.placement"
            with pytest.raises(PaywallSkippedError) as skipped:
                await sw.get_paywall("workout_shared")
            assert skipped.value.skip_reason == SkipReason("noAudienceMatch")

    run(scenario())


def test_a_call_that_outlives_its_timeout_raises_and_the_session_goes_on(bridge: str, data_directory: str, bridge_arguments: list[str]) -> None:
    async def scenario() -> None:
        async with Superwall.start(bridge, arguments=bridge_arguments, purchase_controller=StoreController()) as sw:
            await sw.configure("pk_test", options=embedded(data_directory, timeouts={"subscriptionStatusMs": 3000}))
            with pytest.raises(BridgeTimeoutError):
                await sw.customer_info(timeout=0.2)
            assert (await sw.subscription_status()).type == "unknown"
            with pytest.raises(CustomerInfoTimeoutError):
                await sw.customer_info(timeout=10)

    run(scenario())


def test_a_bridge_that_dies_mid_call_fails_every_waiting_call(bridge: str, data_directory: str, bridge_arguments: list[str]) -> None:
    async def scenario() -> None:
        sw = await Superwall.start(bridge, arguments=bridge_arguments, purchase_controller=StoreController())
        await sw.configure("pk_test", options=embedded(data_directory))
        # No status yet: register waits for one, and so does getCustomerInfo.
        registering = asyncio.create_task(sw.register("open_coach_chat"))
        waiting = asyncio.create_task(sw.customer_info(timeout=20))
        await asyncio.sleep(0.2)
        assert not registering.done() and not waiting.done()
        os.kill(sw.connection.pid, signal.SIGKILL)
        for call in (registering, waiting):
            with pytest.raises(BridgeClosedError):
                await asyncio.wait_for(call, 5)
        with pytest.raises(BridgeClosedError):
            await sw.user()
        await sw.close()

    run(scenario())


def test_a_delegate_given_at_start_hears_what_configure_tracked(bridge: str, data_directory: str, bridge_arguments: list[str]) -> None:
    async def scenario() -> None:
        delegate = RecordingDelegate()
        async with Superwall.start(bridge, arguments=bridge_arguments, delegate=delegate) as sw:
            await sw.configure("pk_test", options=embedded(data_directory))
            await sw.user()  # a round trip after configure: its notifications have arrived
            await asyncio.sleep(0.05)
            assert delegate.events[:2] == ["app_install", "app_launch"] or "app_launch" in delegate.events

    run(scenario())


def test_the_delegate_hears_the_bridges_log_lines(bridge: str, data_directory: str, bridge_arguments: list[str]) -> None:
    async def scenario() -> None:
        delegate = RecordingDelegate()
        async with Superwall.start(bridge, arguments=bridge_arguments, delegate=delegate) as sw:
            await sw.configure("pk_test", options={**embedded(data_directory), "shouldPreloadEverything": True})
            await sw.user()
            await asyncio.sleep(0.05)
            assert any(level == "warn" and "shouldPreloadEverything" in (message or "") for level, message in delegate.logs)

    run(scenario())


def test_the_apps_background_and_foreground_reach_the_bridge_in_order(bridge: str, data_directory: str, bridge_arguments: list[str]) -> None:
    async def scenario() -> None:
        delegate = RecordingDelegate()
        async with Superwall.start(bridge, arguments=bridge_arguments, delegate=delegate) as sw:
            await sw.configure("pk_test", options=embedded(data_directory))
            await sw.app_will_resign_active()
            await sw.app_did_become_active()
            await sw.user()  # notifications are applied in arrival order: this answer comes after both
            await asyncio.sleep(0.05)
            # The launch's preload and its session_start trigger run beside these calls, on
            # the bridge's pool: only the lifecycle's own events have an order to keep.
            lifecycle = [name for name in delegate.events if name in ("app_close", "app_open")]
            assert lifecycle[-2:] == ["app_close", "app_open"]

    run(scenario())


class WarmingPresenter(Presenter):
    """A presenter that also warms web views: it remembers what it was asked to preload."""

    def __init__(self) -> None:
        super().__init__()
        self.warmed: list[PreloadedPaywall] = []

    def preload(self, paywall: PreloadedPaywall) -> None:
        self.warmed.append(paywall)


def test_preloading_loads_the_paywalls_a_user_could_see_and_the_presenter_warms_them(
        bridge: str, data_directory: str, bridge_arguments: list[str]) -> None:
    async def scenario() -> None:
        presenter = WarmingPresenter()
        async with Superwall.start(bridge, arguments=bridge_arguments, paywall_presenter=presenter) as sw:
            await sw.configure("pk_test", options={**embedded(data_directory), "paywalls": {"shouldPreload": False}})
            assert presenter.warmed == []
            preloaded = await sw.preload_all_paywalls()
            assert preloaded == [paywall.identifier for paywall in presenter.warmed] and preloaded
            first = presenter.warmed[0]
            assert first.page is not None and first.page.load is not None and first.page.load.url.endswith(first.identifier)
            assert await sw.preload_all_paywalls() == preloaded  # chosen again, but nothing is warmed twice
            assert len(presenter.warmed) == len(preloaded)
            assert await sw.preload_paywalls(["no_such_placement"]) == []

    run(scenario())


def test_by_default_configure_is_followed_by_a_preload(bridge: str, data_directory: str, bridge_arguments: list[str]) -> None:
    async def scenario() -> None:
        presenter = WarmingPresenter()
        delegate = RecordingDelegate()
        async with Superwall.start(bridge, arguments=bridge_arguments, paywall_presenter=presenter, delegate=delegate) as sw:
            await sw.configure("pk_test", options=embedded(data_directory))
            for _ in range(200):
                if "paywallPreload_complete" in delegate.events:
                    break
                await asyncio.sleep(0.02)
            assert "paywallPreload_complete" in delegate.events
            assert presenter.warmed

    run(scenario())


class StatefulPresenter(Presenter):
    """A presenter that renders the page: it answers the page's state as it takes it down."""

    def dismiss(self, dismissal: PaywallDismissal) -> dict[str, Any]:
        super().dismiss(dismissal)
        return {"plan": "annual", "step": 2}


def test_the_pages_state_the_presenter_read_at_dismissal_is_the_paywall_infos_state(
        bridge: str, data_directory: str, bridge_arguments: list[str]) -> None:
    async def scenario() -> None:
        presenter = StatefulPresenter()
        async with Superwall.start(bridge, arguments=bridge_arguments, paywall_presenter=presenter) as sw:
            await sw.configure("pk_test", options={"configSource": {"type": "embedded"}, "dataDirectory": data_directory})
            registering = asyncio.create_task(sw.register("open_coach_chat"))
            shown = await asyncio.wait_for(presenter.shown.get(), 10)
            assert shown.paywall.info.state == {}
            await sw.paywall_action(shown.session_id, {"type": "close"})
            result = await registering
            assert result.paywall_info is not None and result.paywall_info.state == {"plan": "annual", "step": 2}
            latest = await sw.latest_paywall_info()
            assert latest is not None and latest.state == {"plan": "annual", "step": 2}

    asyncio.run(scenario())


class SurveyingPresenter(Presenter):
    """A presenter that shows surveys: the user picks "Other" and explains."""

    def __init__(self) -> None:
        super().__init__()
        self.surveys: list[SurveyRequest] = []

    async def present_survey(self, request: SurveyRequest) -> SurveyAnswer:
        self.surveys.append(request)
        return SurveyAnswer.response("000", "I train with a friend")


def test_a_paywalls_survey_is_shown_by_the_presenter_and_its_answer_tracked(
        bridge: str, data_directory: str, bridge_arguments: list[str]) -> None:
    async def scenario() -> None:
        presenter = SurveyingPresenter()
        responses: list[dict[str, Any]] = []

        class Delegate(SuperwallDelegate):
            def handle_superwall_event(self, event: SuperwallEvent) -> None:
                if event.name in ("survey_response", "paywall_close"):
                    responses.append({"name": event.name, **event.params})

        config = {"type": "file", "path": str(PROTOCOL / "conformance" / "configs" / "demo-survey.json")}
        async with Superwall.start(bridge, arguments=bridge_arguments, paywall_presenter=presenter, delegate=Delegate()) as sw:
            await sw.configure("pk_test", options={"configSource": config, "dataDirectory": data_directory})
            registering = asyncio.create_task(sw.register("open_coach_chat"))
            shown = await asyncio.wait_for(presenter.shown.get(), 10)
            survey = shown.paywall.info.surveys[0]
            assert (survey.id, survey.presentation_condition, survey.include_other_option) == ("survey-coach-close", "onManualClose", True)
            await sw.paywall_action(shown.session_id, {"type": "close"})
            result = await registering
            assert result.outcome == "dismissed" and result.paywall_info is not None
            [asked] = presenter.surveys
            assert asked.session_id == shown.session_id and asked.paywall_info.identifier == "coach-upsell-gated"
            assert sorted(option.title for option in asked.survey.options) == ["I prefer the app's plans", "Not right now", "Too expensive"]
            response, close = responses
            assert response["name"] == "survey_response" and response["survey_selected_option_id"] == "000"
            assert (response["survey_selected_option_title"], response["survey_custom_response"]) == ("Other", "I train with a friend")
            assert close["name"] == "paywall_close" and close["survey_presentation"] == "show"

    run(scenario())


def test_get_paywall_applies_superwallkits_overrides(bridge: str, data_directory: str, bridge_arguments: list[str]) -> None:
    async def scenario() -> None:
        async with Superwall.start(bridge, arguments=bridge_arguments) as sw:
            await sw.configure("pk_test", options=embedded(data_directory))
            shown = await sw.get_paywall("open_coach_chat", products_by_name={"primary": "com.pockettrainer.pro.annual"},
                                         presentation_style={"type": "popup", "height": 60, "width": 80})
            assert shown.paywall.products[0].product_identifier == "com.pockettrainer.pro.annual"
            assert shown.paywall.presentation_style is not None and shown.paywall.presentation_style.type == "popup"
            await sw.dismiss()
            with pytest.raises(ProductNotFoundError):
                await sw.get_paywall("open_coach_chat", products_by_name={"primary": "com.nowhere"})

    run(scenario())


def test_closing_shuts_the_bridge_down_cleanly(bridge: str, data_directory: str, bridge_arguments: list[str]) -> None:
    async def scenario() -> int | None:
        sw = await Superwall.start(bridge, arguments=bridge_arguments, framing="content-length")
        await sw.configure("pk_test", options=embedded(data_directory))
        return await sw.close()

    assert run(scenario()) == 0


def test_the_synchronous_facade_runs_a_script(bridge: str, data_directory: str, bridge_arguments: list[str]) -> None:
    with SyncSuperwall.start(bridge, arguments=bridge_arguments) as sw:
        assert sw.configure("pk_test", options=embedded(data_directory)).configuration_status == "configured"
        assert sw.identify("runner_1") == "runner_1"
        assert sw.register("workout_shared").feature_granted
        assert sw.user().is_logged_in


def test_the_log_level_the_locale_override_and_the_options_in_effect_read_back(bridge: str, data_directory: str,
                                                                               bridge_arguments: list[str]) -> None:
    async def scenario() -> None:
        async with Superwall.start(bridge, arguments=bridge_arguments) as sw:
            await sw.configure("pk_test", options=embedded(data_directory))
            await sw.set_log_level("debug")
            assert await sw.log_level() == "debug"
            await sw.set_locale_identifier("de_DE")
            assert await sw.locale_identifier() == "de_DE"
            options = await sw.options()
            assert options["localeIdentifier"] == "de_DE" and options["logLevel"] == 10
            assert await sw.open_restore_on_web() == "https://pockettrainer.superwall.app/manage"
            await sw.dismiss_for_next_paywall()  # nothing on screen: nothing to do

    run(scenario())


def test_a_purchase_the_app_made_itself_is_observed_into_the_events_and_the_customer_info(
        bridge: str, data_directory: str, bridge_arguments: list[str]) -> None:
    from superwall_bridge import ObservedPurchaseNotStartedError, ObservingPurchasesError

    async def scenario() -> None:
        completed = asyncio.Event()

        class Delegate(RecordingDelegate):
            def handle_superwall_event(self, event: SuperwallEvent) -> None:
                super().handle_superwall_event(event)
                if event.name == "transaction_complete":
                    completed.set()

        delegate = Delegate()
        async with Superwall.start(bridge, arguments=bridge_arguments, delegate=delegate) as sw:
            await sw.configure("pk_test", options=embedded(data_directory, shouldObservePurchases=True))
            with pytest.raises(ObservedPurchaseNotStartedError):
                await sw.observe_purchase_result(PurchaseResult.cancelled())
            with pytest.raises(ObservingPurchasesError):
                await sw.purchase("com.pockettrainer.coach.monthly")
            await sw.observe_purchase_start("com.pockettrainer.coach.monthly")
            await sw.observe_purchase_result(PurchaseResult.purchased(StoreTransaction(transaction_id="app-store-77")))
            info = await sw.customer_info()
            assert [t.transaction_id for t in info.subscriptions + info.non_subscriptions] == ["app-store-77"]
            await asyncio.wait_for(completed.wait(), 10)
            assert delegate.events.index("transaction_start") < delegate.events.index("transaction_complete")

    run(scenario())


def test_a_trial_reminder_the_os_refused_shows_the_configured_alert(bridge: str, data_directory: str,
                                                                    bridge_arguments: list[str]) -> None:
    from superwall_bridge import PaywallAlert

    async def scenario() -> None:
        alerts: asyncio.Queue[PaywallAlert] = asyncio.Queue()

        class Screen(Presenter):
            def schedule_notification(self, session_id: str, id: str, title: str, subtitle: str | None, body: str,
                                      delay_ms: float) -> str:
                return "denied"  # the user turned notifications off

            def show_alert(self, alert: PaywallAlert) -> None:
                alerts.put_nowait(alert)

        screen = Screen()
        async with Superwall.start(bridge, arguments=bridge_arguments, paywall_presenter=screen) as sw:
            await sw.configure("pk_test", options=embedded(
                data_directory, paywalls={"notificationPermissionsDenied": {"title": "Notifications are off"}}))
            registering = asyncio.create_task(sw.register("open_coach_chat"))
            shown = await asyncio.wait_for(screen.shown.get(), 10)
            reminder = {"event_name": "schedule_notification", "type": "TRIAL_STARTED", "title": "Trial ends",
                        "body": "Tomorrow", "delay": 86_400_000}
            await sw.page_message(shown.session_id, {"version": 1, "payload": {"events": [reminder]}})
            alert = await asyncio.wait_for(alerts.get(), 10)
            assert (alert.title, alert.action_title, alert.action_url) == ("Notifications are off", "Open Settings", "app-settings:")
            await sw.paywall_action(shown.session_id, {"type": "close"})
            await registering

    run(scenario())


def test_logging_scopes_keep_the_core_lines_of_those_scopes_only(bridge: str, data_directory: str,
                                                                 bridge_arguments: list[str]) -> None:
    async def scenario() -> None:
        heard: list[tuple[str, str]] = []
        decided = asyncio.Event()

        class Delegate(SuperwallDelegate):
            def handle_log(self, level: str, scope: str, message: str | None, info: dict[str, Any] | None,
                           error: str | None) -> None:
                heard.append((level, scope))
                if scope == "paywallPresentation":
                    decided.set()

        async with Superwall.start(bridge, arguments=bridge_arguments, delegate=Delegate()) as sw:
            configured = await sw.configure("pk_test", options=embedded(
                data_directory, logging={"level": "debug", "scopes": ["paywallPresentation", "bounceButtons"]}))
            assert any("bounceButtons" in warning.message for warning in configured.warnings), configured.warnings
            assert (await sw.register("workout_shared")).feature_granted
            await asyncio.wait_for(decided.wait(), 10)
            await sw.identify("runner_7")  # identityManager's lines: not in the scopes
            await sw.flush_events()
            assert {scope for _, scope in heard} <= {"paywallPresentation", "superwall-bridge"}, heard

    run(scenario())


def test_a_missing_bridge_is_a_clear_error(tmp_path: Any) -> None:
    with pytest.raises(BridgeNotFoundError):
        find_bridge(tmp_path / "nope")


def test_a_system_without_proc_is_named_before_the_bridge_starts(bridge: str, tmp_path: Any,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from superwall_bridge import SystemRequirementError, _locate
    monkeypatch.setattr(_locate, "PROC_SELF", str(tmp_path / "proc" / "self" / "exe"))
    with pytest.raises(SystemRequirementError, match="needs /proc mounted"):
        run(Superwall.launch(bridge))
    with pytest.raises(SystemRequirementError, match="needs /proc mounted"):
        run(Superwall.launch(in_process=True))


def run_readme_example(section: str, bridge: str, tmp_path: Any) -> list[str]:
    """Runs the first Python block under the README's ``## section`` as written; answers its output lines."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    example = re.search(rf"## {re.escape(section)}\n.*?```python\n(.*?)```", readme, re.S)
    assert example is not None, section
    script = tmp_path / "example.py"
    script.write_text(example.group(1))
    finished = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "SUPERWALL_BRIDGE": bridge})
    assert finished.returncode == 0, finished.stderr
    return finished.stdout.splitlines()


def test_the_readme_quick_start_runs_as_written(bridge: str, tmp_path: Any) -> None:
    assert run_readme_example("Quick start", bridge, tmp_path) == ["skipped: noAudienceMatch", "run the feature"]


def test_the_readme_observer_mode_example_runs_as_written(bridge: str, tmp_path: Any) -> None:
    assert run_readme_example("Purchases your app makes itself (observer mode)", bridge, tmp_path) == ["['1000000123']"]


def test_the_readme_paywall_example_runs_as_written(bridge: str, tmp_path: Any) -> None:
    assert run_readme_example("Showing paywalls, buying, hearing events", bridge, tmp_path) == [
        "showing coach-upsell-gated", "event: paywall_open coach-upsell-gated", "event: transaction_complete coach-upsell-gated",
        "closed: purchased", "feature granted: True"]


def test_the_readme_prices_example_runs_as_written(bridge: str, tmp_path: Any) -> None:
    assert run_readme_example("Prices: your store's product details", bridge, tmp_path) == [
        "19.99 USD a month with a 7 day trial"]


def test_get_paywall_hands_the_app_a_session_it_drives_itself(bridge: str, data_directory: str, bridge_arguments: list[str]) -> None:
    async def scenario() -> None:
        ended: list[PaywallResult] = []

        class Handler(PresentationHandler):
            def on_dismiss(self, info: PaywallInfo, result: PaywallResult) -> None:
                ended.append(result)

        async with Superwall.start(bridge, arguments=bridge_arguments, paywall_presenter=Presenter()) as sw:
            await sw.configure("pk_test", options=embedded(data_directory))
            presentation = await sw.get_paywall("open_coach_chat", handler=Handler())
            assert presentation.paywall.info.identifier == "coach-upsell-gated"
            assert [product.id for product in presentation.paywall.products] == ["com.pockettrainer.coach.monthly"]
            await sw.paywall_action(presentation.session_id, {"type": "close"})
            await sw.user()
            await asyncio.sleep(0.05)
            assert ended == [PaywallResult("declined")]
            assert not sw._handlers, "the session's handler is released when it ends"

    run(scenario())


def test_the_conformance_runner_works_from_an_installed_package_anywhere(bridge: str, tmp_path: Any) -> None:
    """`python -m superwall_bridge.conformance` outside a checkout used to die with FileNotFoundError."""
    checkout = Path(__file__).resolve().parents[3]
    # The package alone, far from any checkout, as pip installs it elsewhere.
    shutil.copytree(checkout / "clients" / "python" / "superwall_bridge", tmp_path / "site" / "superwall_bridge")
    environment = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    lost = subprocess.run([sys.executable, "-m", "superwall_bridge.conformance", "--bridge", bridge],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60, env=environment)
    assert lost.returncode == 2 and "--conformance-dir" in lost.stderr and "Traceback" not in lost.stderr
    scenario = sorted((checkout / "protocol" / "conformance" / "scenarios").glob("*.json"))[0]
    found = subprocess.run([sys.executable, "-m", "superwall_bridge.conformance", "--bridge", bridge, str(scenario)],
                           cwd=tmp_path, capture_output=True, text=True, timeout=120, env=environment)
    assert found.returncode == 0, found.stdout + found.stderr
    assert "1 passed, 0 failed" in found.stdout


def test_explain_placement_says_why_with_the_rules_tree_and_changes_nothing(bridge: str, data_directory: str, bridge_arguments: list[str]) -> None:
    async def scenario() -> None:
        async with Superwall.start(bridge, arguments=bridge_arguments) as sw:
            await sw.configure("pk_test", options=embedded(data_directory))
            explanation = await sw.explain_placement("daily_limit_reached", user={"workouts_completed": 5})
            assert explanation.outcome == "paywall" and not explanation.feature_granted
            assert explanation.paywall is not None and explanation.paywall.identifier == "limit-reached-promo-code"
            audience = explanation.audiences[0]
            assert audience.matched and audience.occurrence is not None and audience.occurrence.stored_count == 0
            assert audience.rule is not None and audience.rule.matches
            threshold = audience.rule.tree.children[0]
            assert threshold.text == "user.workouts_completed >= 3"
            assert threshold.children[0].value_text == "5"
            # The overlay held for the call only.
            plain = await sw.explain_placement("daily_limit_reached")
            assert plain.outcome == "noAudienceMatch"
            assert plain.audiences[0].rule is not None and plain.audiences[0].rule.tree.children[0].children[0].error == "No such key: workouts_completed"

    run(scenario())


def test_a_decision_record_says_why_gate_by_gate_and_the_recent_ones_are_kept(bridge: str, data_directory: str, bridge_arguments: list[str]) -> None:
    async def scenario() -> None:
        async with Superwall.start(bridge, arguments=bridge_arguments) as sw:
            await sw.configure("pk_test", options=embedded(data_directory))
            result = await sw.register("daily_limit_reached", explain=True)
            decision = result.decision
            assert decision is not None and decision.call == "register"
            assert [gate.gate for gate in decision.gates] == ["config", "subscriptionStatus", "placement", "audiences"]
            assert (decision.outcome, decision.reason) == ("skipped", "noAudienceMatch")
            audiences = decision.gate_named("audiences")
            assert audiences is not None and not audiences.passed
            assert decision.audiences and decision.audiences[0].rule is not None
            text = str(decision)
            assert f"#{decision.sequence} register daily_limit_reached" in text
            assert "✗ audiences: no audience matched" in text and "audience 1 of" in text, text

            assert (await sw.register("daily_limit_reached")).decision is None, "off unless asked for"
            mistyped = await sw.presentation_result("daily_limit_reachd", explain=True)
            assert mistyped.decision is not None
            placement = mistyped.decision.gate_named("placement")
            assert placement is not None and placement.read == {"nearestPlacement": "daily_limit_reached"}
            with pytest.raises(PaywallSkippedError) as skipped:
                await sw.get_paywall("daily_limit_reachd", explain=True)
            assert skipped.value.decision is not None and skipped.value.decision.reason == "placementNotFound"

            recent = await sw.recent_decisions()
            assert not recent.records_every_decision
            assert [(kept.call, kept.placement) for kept in recent.decisions] == [
                ("register", "daily_limit_reached"), ("getPresentationResult", "daily_limit_reachd"),
                ("getPaywall", "daily_limit_reachd")], "only the calls that asked are kept"
            assert [kept.sequence for kept in recent.decisions] == sorted(kept.sequence for kept in recent.decisions)
            assert len((await sw.recent_decisions(limit=1)).decisions) == 1
            with pytest.raises(InvalidParamsError):
                await sw.recent_decisions(limit=51)

    run(scenario())


def test_a_session_that_records_decisions_answers_each_and_keeps_the_last(bridge: str, data_directory: str, bridge_arguments: list[str]) -> None:
    async def scenario() -> None:
        async with Superwall.start(bridge, arguments=bridge_arguments) as sw:
            await sw.configure("pk_test", options=embedded(data_directory, recordDecisions=True))
            assert (await sw.register("daily_limit_reached")).decision is not None
            assert (await sw.register("daily_limit_reached", explain=False)).decision is None, "a call may opt out"
            recent = await sw.recent_decisions()
            assert recent.records_every_decision
            assert [kept.placement for kept in recent.decisions][-2:] == ["daily_limit_reached", "daily_limit_reached"]

    run(scenario())


def test_a_manual_clock_moves_only_when_advanced_and_a_system_one_refuses(bridge: str, data_directory: str, bridge_arguments: list[str], tmp_path: Path) -> None:
    from superwall_bridge import ClockNotManualError

    async def scenario() -> None:
        async with Superwall.start(bridge, arguments=bridge_arguments) as sw:
            await sw.configure("pk_test", options={**embedded(data_directory), "clock": "manual"})
            first = await sw.advance_clock(0)
            later = await sw.advance_clock(3601)
            assert later.now_ms - first.now_ms == 3_601_000
        async with Superwall.start(bridge, arguments=bridge_arguments) as sw:
            await sw.configure("pk_test", options=embedded(str(tmp_path / "system")))
            with pytest.raises(ClockNotManualError):
                await sw.advance_clock(1)

    run(scenario())


def test_a_seed_repeats_the_variants_and_a_forced_variant_decides_the_placement(bridge: str, bridge_arguments: list[str], tmp_path: Path) -> None:
    async def variants(directory: Path) -> list[tuple[str, str]]:
        async with Superwall.start(bridge, arguments=bridge_arguments) as sw:
            await sw.configure("pk_test", options={**embedded(str(directory)), "randomSeed": 2026})
            return sorted((assignment.experiment_id, assignment.variant.id) for assignment in await sw.assignments())

    async def scenario() -> None:
        first = await variants(tmp_path / "first")
        assert first and first == await variants(tmp_path / "second")
        async with Superwall.start(bridge, arguments=bridge_arguments) as sw:
            await sw.configure("pk_test", options=embedded(str(tmp_path / "forced")))
            forced = await sw.override_assignment("2001", "3002")
            assert forced.variant.id == "3002" and forced.is_sent_to_server
            result = await sw.presentation_result("onboarding_complete")
            assert result.experiment is not None and result.experiment.variant.id == "3002"
            with pytest.raises(InvalidParamsError) as refused:
                await sw.override_assignment("2001", "nope")
            assert refused.value.data["path"] == "params.variantId"

    run(scenario())


def test_flush_events_writes_the_queue_out_at_once(bridge: str, bridge_arguments: list[str], tmp_path: Path) -> None:
    async def scenario() -> None:
        async with Superwall.start(bridge, arguments=bridge_arguments) as sw:
            # No automatic preload: nothing is tracked in the background between the flushes.
            await sw.configure("pk_test", options={**embedded(str(tmp_path)), "eventFlushIntervalMs": 86_400_000,
                                                   "paywalls": {"shouldPreload": False}})
            await sw.set_user_attributes({"plan": "gold"})
            flushed = await sw.flush_events()
            assert flushed > 0
            assert len((tmp_path / "events.jsonl").read_text().splitlines()) == flushed
            # A second flush writes out only what was tracked since: on a loaded machine, the
            # config's background refresh may end between the two and track its events.
            again = await sw.flush_events()
            assert len((tmp_path / "events.jsonl").read_text().splitlines()) == flushed + again
            assert again < flushed

    run(scenario())


def test_the_binary_bundled_in_the_wheel_is_found_before_path(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from superwall_bridge import _locate, client
    package = tmp_path / "site-packages" / "superwall_bridge"
    (package / "bin").mkdir(parents=True)
    (package / "bin" / "superwall-bridge").write_text("#!/bin/sh\n")
    monkeypatch.setattr(_locate, "__file__", str(package / "_locate.py"))
    monkeypatch.delenv("SUPERWALL_BRIDGE", raising=False)
    monkeypatch.setattr(client.shutil, "which", lambda name: "/usr/local/bin/superwall-bridge")
    assert find_bridge() == str(package / "bin" / "superwall-bridge")


def test_no_binary_anywhere_says_how_to_get_one(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from superwall_bridge import _locate, client
    monkeypatch.setattr(client, "__file__", str(tmp_path / "site-packages" / "superwall_bridge" / "client.py"))
    monkeypatch.setattr(_locate, "__file__", str(tmp_path / "site-packages" / "superwall_bridge" / "_locate.py"))
    monkeypatch.delenv("SUPERWALL_BRIDGE", raising=False)
    monkeypatch.setattr(client.shutil, "which", lambda name: None)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BridgeNotFoundError, match="platform wheel.*SUPERWALL_BRIDGE.*swift build"):
        find_bridge()


def test_a_placement_explanation_prints_as_the_clis_tree(bridge: str, data_directory: str, tmp_path: Path) -> None:
    user = {"workouts_completed": 5}
    (tmp_path / "user.json").write_text(json.dumps(user))
    demo = PROTOCOL.parent / "config" / "demo.json"
    cli = subprocess.run([bridge, "explain", "--config", str(demo), "--user", str(tmp_path / "user.json"),
                          "daily_limit_reached"], capture_output=True, text=True, check=True).stdout

    async def scenario() -> str:
        async with Superwall.start(bridge) as sw:
            await sw.configure("pk_test", options={"configSource": {"type": "file", "path": str(demo)},
                                                   "dataDirectory": data_directory})
            return str(await sw.explain_placement("daily_limit_reached", user=user))

    printed = asyncio.run(scenario())
    assert printed == cli
    assert "├─ user.workouts_completed >= 3  → true" in printed and len(printed) < 1500
