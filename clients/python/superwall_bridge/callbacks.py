"""What the app implements: a delegate, a purchase controller, a paywall presenter, test
mode's choices, and a handler for one ``register``. Every method may be a plain function or a coroutine."""

from __future__ import annotations

import inspect
from typing import Any, Awaitable, Literal, Mapping, Protocol, TypeVar, runtime_checkable

from .models import (
    ConfigRefresh, CustomCallback, CustomCallbackResult, CustomerInfo, ErrorInfo, PaywallDismissal, PaywallInfo, PaywallPresentation,
    PaywallResult, Product, PurchaseResult, RestorationResult, SkipReason, SubscriptionStatus, SuperwallEvent,
)

T = TypeVar("T")


async def resolve(value: T | Awaitable[T]) -> T:
    """The value, awaited when a callback returned a coroutine."""
    if inspect.isawaitable(value):
        return await value
    return value


class SuperwallDelegate:
    """SuperwallKit's ``SuperwallDelegate``: override what you need; the rest do nothing.

    The bridge keeps delegate notifications sent before a delegate is bound and delivers
    them once one is, so passing a delegate to :meth:`Superwall.start` loses nothing of
    ``configure``.
    """

    def handle_superwall_event(self, event: SuperwallEvent) -> Any: ...

    def subscription_status_did_change(self, old: SubscriptionStatus, new: SubscriptionStatus) -> Any: ...

    def customer_info_did_change(self, old: CustomerInfo, new: CustomerInfo) -> Any: ...

    def will_present_paywall(self, info: PaywallInfo) -> Any: ...

    def did_present_paywall(self, info: PaywallInfo) -> Any: ...

    def will_dismiss_paywall(self, info: PaywallInfo) -> Any: ...

    def did_dismiss_paywall(self, info: PaywallInfo) -> Any: ...

    def handle_custom_paywall_action(self, name: str) -> Any: ...

    def paywall_will_open_url(self, url: str) -> Any: ...

    def paywall_will_open_deep_link(self, url: str) -> Any: ...

    def user_attributes_did_change(self, attributes: dict[str, Any]) -> Any: ...

    def handle_superwall_deep_link(self, url: str, path_components: list[str], query_parameters: dict[str, Any]) -> Any: ...

    def handle_log(self, level: str, scope: str, message: str | None, info: dict[str, Any] | None, error: str | None) -> Any: ...

    def test_mode_transaction(self, kind: str, product: Product | None) -> Any:
        """Test mode (no purchase controller) simulated a ``"purchase"`` or ``"restore"``."""

    def will_redeem_link(self) -> Any:
        """A redemption link was opened; its code is being redeemed."""

    def did_redeem_link(self, result: dict[str, Any]) -> Any:
        """How redeeming a web-checkout code ended: ``{code, status, message, redemptionInfo}``."""

    def config_did_refresh(self, refresh: ConfigRefresh) -> Any:
        """``config/didRefresh``: a refresh finished (``refreshConfiguration``, or a watched config file changed)."""

    def unknown_notification(self, method: str, params: Any) -> Any:
        """A ``delegate/*`` notification this version of the client does not know; ignored by default."""


@runtime_checkable
class PurchaseController(Protocol):
    """Purchases through the app's own store code (SuperwallKit's ``PurchaseController``).

    Set the subscription status (``await sw.set_subscription_status(...)``) before answering
    ``purchased`` or ``restored``: the bridge never changes it for a controller.

    A Google Play product (an Android session's) has ``product.play_store``: its product id, base
    plan and offer, what Superwall-Android's ``purchase(activity, productDetails, basePlanId,
    offerId)`` gets.
    """

    def purchase(self, product: Product, paywall_info: PaywallInfo | None) -> PurchaseResult | Awaitable[PurchaseResult]: ...

    def restore_purchases(self) -> RestorationResult | Awaitable[RestorationResult]: ...


TestModePurchaseOutcome = Literal["purchased", "abandoned", "failed"]


@runtime_checkable
class TestModeUI(Protocol):
    """Test mode's choices, as SuperwallKit's test-mode drawers: how each simulated purchase
    ends, and which entitlements a simulated restore finds. Without one, test mode's purchases
    go through and its restores find what it bought."""

    def choose_purchase_outcome(self, product: Product) -> TestModePurchaseOutcome | Awaitable[TestModePurchaseOutcome]: ...

    def choose_restored_entitlements(self, available: list[str]) -> list[str] | None | Awaitable[list[str] | None]:
        """The entitlements the restore finds, from every one the config's products grant;
        ``None`` cancels the restore."""
        ...


@runtime_checkable
class PaywallPresenter(Protocol):
    """Shows and hides paywalls for the bridge. Raise from :meth:`present` to refuse (the
    presentation then fails with ``noPresenter``).

    A presenter that renders the paywall's page in a web view also defines, as it can:

    - ``page_event(session_id, accept64)``: evaluate ``window.paywall.accept64(accept64)``
      in the page, in order (``paywall/pageEvent``); forward what the page posts with
      :meth:`Superwall.page_message` and how it loads with :meth:`Superwall.page_load`;
    - ``show_alert(alert: PaywallAlert)``: the alerts SuperwallKit shows over a paywall;
    - ``present_survey(request: SurveyRequest) -> SurveyAnswer``: show a paywall's survey
      as it closes and answer what the user chose (``paywall/presentSurvey``); without it the
      paywall closes without its survey;
    - ``preload(paywall: PreloadedPaywall)``: load the paywall's page into a web view kept for
      when it shows (declares the ``paywallPreloader`` capability; ``paywall/preload``);
    - ``open_url(session_id, url, mode)``, ``request_review(session_id, type, url)``,
      ``request_permission(session_id, permission) -> "granted" | "denied" | "unsupported"``,
      ``schedule_notification(session_id, id, title, subtitle, body, delay_ms) -> None | "granted" | "denied"``
      (``"denied"`` when the OS refused to notify: ``paywalls.notificationPermissionsDenied``'s alert is shown),
      ``haptic(session_id, type)``, ``loading_state(session_id, state)``: what the page asks
      of the host. One that is missing answers ``methodNotFound``, and the bridge applies
      its documented default (protocol/README.md)."""

    def present(self, presentation: PaywallPresentation) -> None | Awaitable[None]: ...

    def dismiss(self, dismissal: PaywallDismissal) -> None | Mapping[str, Any] | Awaitable[None | Mapping[str, Any]]:
        """Takes the paywall down. A presenter that renders the page returns what its
        ``window.app.getAllState()`` answers: it becomes ``PaywallInfo.state`` (SuperwallKit's)."""
        ...


class PresentationHandler:
    """Hears how one ``register`` goes (SuperwallKit's ``PaywallPresentationHandler``).
    Override what you need."""

    def on_present(self, info: PaywallInfo) -> Any: ...

    def on_will_dismiss(self, info: PaywallInfo, result: PaywallResult) -> Any: ...

    def on_dismiss(self, info: PaywallInfo, result: PaywallResult) -> Any: ...

    def on_skip(self, reason: SkipReason) -> Any: ...

    def on_error(self, error: ErrorInfo) -> Any: ...

    def on_custom_callback(self, callback: CustomCallback) -> CustomCallbackResult | Awaitable[CustomCallbackResult]:
        """A paywall's custom callback. The default answers failure, as an app without a handler would."""
        return CustomCallbackResult.failure()
