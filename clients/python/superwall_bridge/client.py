"""The asyncio client: :class:`Superwall`."""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import time
from typing import Any, Coroutine, Generator, Literal, Mapping, Sequence

from . import __version__ as _version
from .callbacks import PaywallPresenter, PresentationHandler, PurchaseController, SuperwallDelegate, TestModeUI, resolve
from .connection import Connection, Framing, RemoteError, WireObserver
from ._locate import checkout_build, named, shipped
from .errors import BridgeNotFoundError, PaywallSkippedError, UnknownPlacementError, UnsupportedProtocolVersionError
from .models import (
    Assignment, ClockReading, ConfigRefresh, ConfigureResult, CustomCallback, CustomCallbackResult, CustomerInfo, Entitlement, EntitlementsInfo,
    ErrorInfo, PaywallAlert, PaywallDismissal, PreloadedPaywall, PaywallInfo, PaywallPresentation, PaywallResult, PresentationResult, Product,
    PurchaseResult, RegisterResult, ServerInfo, SkipReason, StoreDetails, SubscriptionStatus, SuperwallEvent, SurveyAnswer, SurveyRequest,
    PlacementExplanation, RecentDecisions, UserIdentity,
)

PROTOCOL_VERSION = "1.0"

#: Seconds a call waits for its answer unless told otherwise.
DEFAULT_TIMEOUT = 30.0
#: ``register``, ``purchase`` and ``restore_purchases`` end when the user is done, and the
#: bridge bounds its own waits on the client (a purchase by 10 minutes); these wait longer.
INTERACTIVE_TIMEOUT = 900.0


def bundled_bridge() -> str | None:
    """The binary the platform wheel ships inside this package, if this install has one."""
    return shipped("bin/superwall-bridge")


def find_bridge(bridge_path: str | os.PathLike[str] | None = None) -> str:
    """The bridge binary: ``bridge_path``, else ``$SUPERWALL_BRIDGE``, else the one bundled in
    the platform wheel, else ``superwall-bridge`` on ``PATH``, else (for a client used from the
    bridge's own checkout) that checkout's ``swift build`` output. Never a file found by
    searching the working directory."""
    if chosen := named(bridge_path, "SUPERWALL_BRIDGE", "bridge binary"):
        return chosen
    if bundled := bundled_bridge():
        return bundled
    if on_path := shutil.which("superwall-bridge"):
        return on_path
    if checkout := checkout_build("superwall-bridge", ("debug", "release")):
        return checkout
    raise BridgeNotFoundError(
        "superwall-bridge not found: install the platform wheel, which bundles it (pip install superwall-bridge), "
        "pass bridge_path, set SUPERWALL_BRIDGE, or build it with `swift build` in the bridge's checkout")


class Starting:
    """What :meth:`Superwall.start` returns: awaitable, and an async context manager."""

    def __init__(self, launching: Coroutine[Any, Any, Superwall]) -> None:
        self._launching = launching
        self._client: Superwall | None = None

    def __await__(self) -> Generator[Any, None, Superwall]:
        return self._launching.__await__()

    async def __aenter__(self) -> Superwall:
        self._client = await self._launching
        return self._client

    async def __aexit__(self, *exc_info: Any) -> None:
        if self._client is not None:
            await self._client.close()


class Superwall:
    """A running bridge and the Superwall SDK it serves.

    Start one with :meth:`start` (or ``async with Superwall.start(...) as sw``), then call
    :meth:`configure`. Every method has a ``timeout`` (seconds); a bridge that does not answer
    in time raises :class:`~superwall_bridge.errors.BridgeTimeoutError`, one that exits raises
    :class:`~superwall_bridge.errors.BridgeClosedError` in every waiting call.
    """

    def __init__(self, connection: Connection, server: ServerInfo, *, delegate: SuperwallDelegate | None,
                 purchase_controller: PurchaseController | None, paywall_presenter: PaywallPresenter | None,
                 timeout: float, test_mode_ui: TestModeUI | None = None,
                 interactive_timeout: float = INTERACTIVE_TIMEOUT) -> None:
        self._connection = connection
        self.server = server
        self.delegate = delegate
        self.purchase_controller = purchase_controller
        self.paywall_presenter = paywall_presenter
        self.test_mode_ui = test_mode_ui
        self.timeout = timeout
        #: The timeout of calls that end when the user is done (``register``, ``purchase``,
        #: ``paywall_action``, ...) when they are given none.
        self.interactive_timeout = interactive_timeout
        self._handlers: dict[Any, PresentationHandler] = {}
        #: ``"fail"``: ``register``, ``presentation_result`` and ``get_paywall`` raise
        #: :class:`~superwall_bridge.errors.UnknownPlacementError` for a placement the config
        #: does not know, naming the nearest one, instead of answering SuperwallKit's skip
        #: (which grants the feature). The test fixtures set it.
        self.unknown_placements: Literal["allow", "fail"] = "allow"
        #: Paywalls on screen, by session id: what ``paywall/present`` showed and
        #: ``paywall/dismiss`` did not take down yet.
        self._on_screen: dict[str, str] = {}
        #: The bridge's requests this client is answering, with when each came.
        self._answering: dict[int, tuple[str, float]] = {}
        self._answer_ids = itertools.count(1)
        connection.waiting_on = self.waiting_on

    @classmethod
    def start(cls, bridge_path: str | os.PathLike[str] | None = None, **options: Any) -> Starting:
        """Spawns the bridge and initializes the session. Await it (``sw = await
        Superwall.start()``) or use it as a context manager that closes the bridge at the end
        (``async with Superwall.start() as sw``). Takes the keyword arguments of :meth:`launch`."""
        return Starting(cls.launch(bridge_path, **options))

    @classmethod
    async def launch(
        cls,
        bridge_path: str | os.PathLike[str] | None = None,
        *,
        delegate: SuperwallDelegate | None = None,
        purchase_controller: PurchaseController | None = None,
        paywall_presenter: PaywallPresenter | None = None,
        test_mode_ui: TestModeUI | None = None,
        custom_callbacks: bool = True,
        framing: Framing = "ndjson",
        arguments: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        interactive_timeout: float = INTERACTIVE_TIMEOUT,
        client_name: str = "superwall-bridge-python",
        observer: WireObserver | None = None,
        in_process: bool = False,
        library_path: str | os.PathLike[str] | None = None,
        bridge_options: Mapping[str, Any] | None = None,
    ) -> Superwall:
        """Spawns the bridge and initializes the session, declaring what this client handles:
        a purchase controller, a paywall presenter, test mode's choices, custom callbacks
        (answered by each ``register``'s handler) and a delegate.

        With ``in_process=True`` the bridge runs in this process instead, loaded from
        ``libsuperwall_bridge.so`` (``library_path``, else ``$SUPERWALL_BRIDGE_LIBRARY``, else
        the one the platform wheel ships); ``bridge_options`` then stand for the command line's flags
        (``{"logLevel": "debug", "trace": "/path"}``), and ``bridge_path``, ``framing``,
        ``arguments`` and ``env`` do not apply."""
        holder: list[Superwall] = []

        async def on_request(method: str, params: Any, request_id: Any) -> Any:
            return await holder[0]._answer(method, params)

        async def on_notification(method: str, params: Any) -> None:
            if holder:
                await holder[0]._hear(method, params)

        if in_process:
            connection = await Connection.open_in_process(
                library_path, bridge_options, on_request=on_request, on_notification=on_notification, observer=observer)
        else:
            connection = await Connection.spawn(
                find_bridge(bridge_path), arguments, env=env, framing=framing,
                on_request=on_request, on_notification=on_notification, observer=observer)
        try:
            reply = await connection.request("initialize", {
                "protocolVersion": PROTOCOL_VERSION,
                "client": {"name": client_name, "version": _version},
                "capabilities": {
                    "purchaseController": purchase_controller is not None,
                    "paywallPresenter": paywall_presenter is not None,
                    "customCallbacks": custom_callbacks,
                    "delegate": delegate is not None,
                    "paywallPreloader": callable(getattr(paywall_presenter, "preload", None)),
                    "testModeUI": test_mode_ui is not None,
                },
            }, timeout=timeout)
        except BaseException:
            await connection.close(timeout=1)
            raise
        bridge_version = str(reply.get("protocolVersion", "")) if isinstance(reply, dict) else ""
        if bridge_version.split(".")[0] != PROTOCOL_VERSION.split(".")[0]:
            await connection.close(timeout=1)
            raise UnsupportedProtocolVersionError(
                -32602,
                f"this client speaks protocol {PROTOCOL_VERSION} and the bridge answered initialize with protocol "
                f"{bridge_version or '(none)'}: install a client and a bridge of the same major version",
                "unsupportedProtocolVersion", {"client": PROTOCOL_VERSION, "bridge": bridge_version})
        client = cls(connection, ServerInfo.from_wire(reply), delegate=delegate, purchase_controller=purchase_controller,
                     paywall_presenter=paywall_presenter, timeout=timeout, test_mode_ui=test_mode_ui,
                     interactive_timeout=interactive_timeout)
        holder.append(client)
        return client

    async def __aenter__(self) -> Superwall:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()

    @property
    def connection(self) -> Connection:
        """The JSON-RPC session (for methods this class does not wrap yet: ``await sw.call(...)``)."""
        return self._connection

    async def call(self, method: str, params: Mapping[str, Any] | None = None, *, timeout: float | None = None) -> Any:
        """Any method of the protocol, answered as raw JSON."""
        return await self._connection.request(method, dict(params) if params is not None else {},
                                              timeout=self.timeout if timeout is None else timeout)

    # MARK: Lifecycle

    async def shutdown(self, *, timeout: float | None = None) -> None:
        """Asks the bridge to finish, flush and persist (``shutdown``), then to exit."""
        await self.call("shutdown", timeout=timeout)
        await self._connection.notify("exit")

    async def close(self, *, timeout: float = 5.0) -> int | None:
        """Shuts the bridge down cleanly if it still runs, and waits for it to exit. Returns its status."""
        if not self._connection.is_closed:
            try:
                await self.shutdown(timeout=timeout)
            except Exception:  # already going away: closing stdin still ends it
                pass
        return await self._connection.close(timeout=timeout)

    # MARK: Configuration and identity

    async def configure(self, api_key: str, *, options: Mapping[str, Any] | None = None,
                        device: Mapping[str, Any] | None = None, store_products: Sequence[StoreDetails] = (),
                        timeout: float | None = None) -> ConfigureResult:
        """``configure``: loads the config (``options["configSource"]``: ``{"type": "embedded"}``,
        ``{"type": "file", "path": ...}`` or ``{"type": "http", "baseUrl": ...}``) and the user."""
        params: dict[str, Any] = {"apiKey": api_key, "options": dict(options or {})}
        if device is not None:
            params["device"] = dict(device)
        if store_products:
            params["storeProducts"] = [product.to_wire() for product in store_products]
        return ConfigureResult.from_wire(await self.call("configure", params, timeout=timeout))

    async def configuration_status(self) -> str:
        return str((await self.call("getConfigurationStatus"))["status"])

    async def set_delegate(self, delegate: SuperwallDelegate | None) -> None:
        """Binds (or unbinds) the delegate; binding delivers what the bridge kept meanwhile."""
        self.delegate = delegate
        await self.call("setDelegate", {"enabled": delegate is not None})

    async def identify(self, user_id: str, *, restore_paywall_assignments: bool = False) -> str:
        return str((await self.call("identify", {"userId": user_id, "options": {"restorePaywallAssignments": restore_paywall_assignments}}))["userId"])

    async def reset(self) -> str:
        """Forgets the user; answers the new anonymous id."""
        return str((await self.call("reset"))["userId"])

    async def user(self) -> UserIdentity:
        return UserIdentity.from_wire(await self.call("getUserId"))

    async def set_user_attributes(self, attributes: Mapping[str, Any]) -> dict[str, Any]:
        """Merges ``attributes`` (``None`` removes a key); answers the merged attributes."""
        return dict((await self.call("setUserAttributes", {"attributes": dict(attributes)}))["attributes"])

    async def user_attributes(self) -> dict[str, Any]:
        return dict((await self.call("getUserAttributes"))["attributes"])

    async def set_integration_attributes(self, attributes: Mapping[str, Any]) -> dict[str, Any]:
        return dict((await self.call("setIntegrationAttributes", {"attributes": dict(attributes)}))["attributes"])

    async def integration_attributes(self) -> dict[str, Any]:
        """``getIntegrationAttributes``: the attribution ids set with :meth:`set_integration_attributes`."""
        return dict((await self.call("getIntegrationAttributes"))["attributes"])

    async def device_attributes(self) -> dict[str, Any]:
        return dict((await self.call("getDeviceAttributes"))["attributes"])

    async def set_locale_identifier(self, locale_identifier: str | None) -> None:
        """The locale rules and templates see (``de_DE``); ``None`` goes back to the device's."""
        await self.call("setLocaleIdentifier", {"localeIdentifier": locale_identifier})

    async def locale_identifier(self) -> str | None:
        """SuperwallKit's ``localeIdentifier`` getter: the override in effect; ``None`` is the device's."""
        value = (await self.call("getLocaleIdentifier"))["localeIdentifier"]
        return str(value) if value is not None else None

    async def options(self) -> dict[str, Any]:
        """SuperwallKit's options as they are now (``config_attributes``' form and names):
        ``configure``'s, with what was changed since."""
        return dict((await self.call("getOptions"))["options"])

    async def set_override_products_by_name(self, products_by_name: Mapping[str, str]) -> None:
        """SuperwallKit's ``overrideProductsByName``, after :meth:`configure`: a paywall product's
        name (``"primary"``) to the product shown and sold in its place, from the next presentation on."""
        await self.call("setOverrideProductsByName", {"productsByName": dict(products_by_name)})

    async def override_products_by_name(self) -> dict[str, str]:
        """The ``overrideProductsByName`` in effect: ``configure``'s, or the last set."""
        return dict((await self.call("getOverrideProductsByName"))["productsByName"])

    async def set_event_tracking_behavior(self, behavior: Literal["all", "superwallOnly", "none"]) -> None:
        """Which events go out from now on, as SuperwallKit's ``eventTrackingBehavior`` setter
        (a consent flow): anything but ``"all"`` also drops what waits to be sent."""
        await self.call("setEventTrackingBehavior", {"behavior": behavior})

    async def set_platform_wrapper(self, platform_wrapper: str, version: str) -> None:
        """Says which wrapper SDK drives the bridge (``"Flutter"``, ``"2.3.1"``); the device
        attributes and the API's headers report it. Allowed before :meth:`configure`."""
        await self.call("setPlatformWrapper", {"platformWrapper": platform_wrapper, "version": version})

    async def set_interface_style(self, style: Literal["light", "dark"] | None) -> None:
        """``light`` or ``dark``; ``None`` goes back to the device's."""
        await self.call("setInterfaceStyle", {"style": style})

    # MARK: Presentation

    async def register(self, placement: str, *, params: Mapping[str, Any] | None = None, has_feature: bool = False,
                       handler: PresentationHandler | None = None, timeout: float | None = None,
                       explain: bool | None = None) -> RegisterResult:
        """SuperwallKit's ``register``: answers when the presentation ends (skipped, dismissed,
        or failed) with ``feature_granted``, the bridge's decision to run the feature. The
        handler's callbacks have all run by the time this returns. With ``explain=True`` the
        result's ``decision`` says why: every gate the presentation ran, what it read and how
        long it waited (``print(result.decision)``)."""
        request_id = f"register-{self._connection.next_request_id()}"
        self._handlers[request_id] = handler or PresentationHandler()
        arguments: dict[str, Any] = {"placement": placement, "params": dict(params or {}), "hasFeature": has_feature}
        if explain is not None:
            arguments["explain"] = explain
        try:
            wire = await self._connection.request(
                "register", arguments, timeout=self._interactive(timeout), request_id=request_id)
            await self._connection.delivered(self._connection.arrivals_so_far())
            result = RegisterResult.from_wire(wire)
            if result.skip_reason is not None and result.skip_reason.type == "placementNotFound":
                await self._check_known(placement)
            return result
        finally:
            self._handlers.pop(request_id, None)

    async def presentation_result(self, placement: str, *, params: Mapping[str, Any] | None = None,
                                  explain: bool | None = None) -> PresentationResult:
        """SuperwallKit's ``getPresentationResult``; ``explain`` as :meth:`register`'s."""
        arguments: dict[str, Any] = {"placement": placement, "params": dict(params or {})}
        if explain is not None:
            arguments["explain"] = explain
        result = PresentationResult.from_wire(await self.call("getPresentationResult", arguments))
        if result.type == "placementNotFound":
            await self._check_known(placement)
        return result

    async def _check_known(self, placement: str) -> None:
        """Raises for a placement the config does not know, when told to (``unknown_placements``)."""
        if self.unknown_placements == "fail":
            explanation = await self.explain_placement(placement)
            raise UnknownPlacementError(placement, explanation.nearest_placement)

    async def get_paywall(self, placement: str, *, params: Mapping[str, Any] | None = None,
                          products_by_name: Mapping[str, str] | None = None, presentation_style: Mapping[str, Any] | None = None,
                          handler: PresentationHandler | None = None, explain: bool | None = None) -> PaywallPresentation:
        """SuperwallKit's ``getPaywall``: the paywall to show yourself, driven with
        :meth:`paywall_action`. ``products_by_name`` and ``presentation_style`` are SuperwallKit's
        ``PaywallOverrides`` (``{"primary": "com.app.annual"}``, ``{"type": "drawer", "height": 70}``).
        Raises :class:`~superwall_bridge.errors.PaywallSkippedError` when there is none. With
        ``explain=True``, the decision record is the result's ``decision``, or the error's."""
        request_id = f"getPaywall-{self._connection.next_request_id()}"
        self._handlers[request_id] = handler or PresentationHandler()
        arguments: dict[str, Any] = {"placement": placement, "params": dict(params or {})}
        if explain is not None:
            arguments["explain"] = explain
        overrides: dict[str, Any] = {}
        if products_by_name:
            overrides["productsByName"] = dict(products_by_name)
        if presentation_style:
            overrides["presentationStyle"] = dict(presentation_style)
        if overrides:
            arguments["overrides"] = overrides
        try:
            return PaywallPresentation.from_wire(await self._connection.request(
                "getPaywall", arguments, timeout=self.timeout, request_id=request_id))
        except PaywallSkippedError as skipped:
            self._handlers.pop(request_id, None)
            if skipped.skip_reason is not None and skipped.skip_reason.type == "placementNotFound":
                await self._check_known(placement)
            raise
        except BaseException:
            self._handlers.pop(request_id, None)
            raise

    async def paywall_action(self, session_id: str, action: Mapping[str, Any], *, timeout: float | None = None) -> dict[str, Any]:
        """Forwards what the user did on a paywall: ``{"type": "close"}``, ``{"type": "purchase",
        "productId": ...}``, ``{"type": "requestCallback", "name": ..., "variables": ...}``, ..."""
        return dict(await self.call("paywall/action", {"sessionId": session_id, "action": dict(action)},
                                    timeout=self._interactive(timeout)))

    async def page_message(self, session_id: str, message: str | Mapping[str, Any], *, timeout: float | None = None) -> int:
        """Forwards what the paywall's page posted (the envelope, or the string holding it);
        the bridge performs its events in order. Answers how many ran."""
        posted = message if isinstance(message, str) else dict(message)
        return int((await self.call("paywall/pageMessage", {"sessionId": session_id, "message": posted},
                                     timeout=self._interactive(timeout)))["events"])

    async def page_load(self, session_id: str, outcome: Literal["finished", "failed", "processTerminated", "exit"], *,
                        http_status: int | None = None, reason: str | None = None) -> dict[str, Any]:
        """Reports how loading the paywall's page went; answers ``{action, url?, timeoutMs?}``:
        ``wait`` for the page's ping, ``load`` another URL, ``reload``, or ``close``."""
        params: dict[str, Any] = {"sessionId": session_id, "outcome": outcome}
        if http_status is not None:
            params["httpStatus"] = http_status
        if reason is not None:
            params["reason"] = reason
        return dict(await self.call("paywall/pageLoad", params))

    async def app_did_become_active(self) -> None:
        """The app came to the foreground (UIKit's ``applicationDidBecomeActive``): ``app_open``, and
        a new session when it was away longer than the config's session timeout."""
        await self._connection.notify("app/didBecomeActive")

    async def app_will_resign_active(self) -> None:
        """The app went to the background (UIKit's ``applicationWillResignActive``): ``app_close``."""
        await self._connection.notify("app/willResignActive")

    async def dismiss(self) -> None:
        """SuperwallKit's ``dismiss()``: closes the paywall on screen, if any, as declined."""
        await self.call("dismiss")

    async def dismiss_for_next_paywall(self) -> None:
        """Superwall-Android's ``dismissForNextPaywall()``: closes the paywall on screen for
        another (its feature is not granted; a waiting ``register`` answers all the same)."""
        await self.call("dismiss", {"forNextPaywall": True})

    async def open_restore_on_web(self) -> str | None:
        """Superwall-Android's ``openRestoreOnWeb()``: the config's web restore page, for the app
        to open in a browser; ``None`` when the config has none."""
        url = (await self.call("openRestoreOnWeb"))["url"]
        return str(url) if url is not None else None

    async def toggle_paywall_spinner(self, *, is_hidden: bool) -> str | None:
        """SuperwallKit's ``togglePaywallSpinner(isHidden:)``: shows the paywall's spinner over a
        ready page, or hides the spinner of a manual load or a purchase (for a custom action doing
        async work). Returns the loading state the presenter was asked to show, ``None`` when no
        paywall is on screen."""
        state = (await self.call("togglePaywallSpinner", {"isHidden": is_hidden}))["loadingState"]
        return str(state) if state is not None else None

    async def is_paywall_presented(self) -> bool:
        """SuperwallKit's ``isPaywallPresented``."""
        return bool((await self.call("isPaywallPresented"))["isPaywallPresented"])

    async def latest_paywall_info(self) -> PaywallInfo | None:
        """SuperwallKit's ``latestPaywallInfo``: the paywall on screen's info, else the last
        dismissed one's; ``None`` before any."""
        info = (await self.call("latestPaywallInfo"))["paywallInfo"]
        return PaywallInfo.from_wire(info) if isinstance(info, dict) else None

    async def refresh_configuration(self, *, timeout: float | None = None) -> ConfigRefresh:
        """SuperwallKit's ``refreshConfiguration``: fetches the config again. A failure keeps the
        config in use and is in ``error`` (with the JSON path of an invalid config)."""
        return ConfigRefresh.from_wire(await self.call("refreshConfiguration", timeout=timeout))

    async def event_queue_status(self) -> dict[str, int]:
        """The outgoing event queue: ``{"waiting": n, "dropped": n}``."""
        return {key: int(value) for key, value in (await self.call("getEventQueueStatus")).items()}

    async def flush_events(self) -> int:
        """``flushEvents``: sends the queued events now (to the collector, or the data directory's
        ``events.jsonl``) rather than at the next flush interval; answers how many went out. Waits
        at most 10 s for a collector; what is not sent stays queued."""
        return int((await self.call("flushEvents"))["flushed"])

    async def handle_deep_link(self, url: str) -> bool:
        """SuperwallKit's ``handleDeepLink``: whether Superwall handled the link. Tracks
        ``deepLink_open`` (which closes the paywall on screen and may present one); a link sent
        before :meth:`configure` is kept and routed once the config is ready. It answers before
        the paywall it presents is up: :meth:`await_presentations` waits for that."""
        return bool((await self.call("handleDeepLink", {"url": url}))["handled"])

    async def await_presentations(self, *, timeout: float | None = None) -> PaywallInfo | None:
        """``awaitPresentations``: returns once every presentation asked for before it has run
        (shown, skipped or failed), a paywall no ``register`` waits on included (a deep link's,
        ``app_launch``'s, a page's custom placement); answers the info of the paywall on screen
        then, if any."""
        on_screen = (await self.call("awaitPresentations", timeout=self._interactive(timeout)))["onScreen"]
        return PaywallInfo.from_wire(on_screen["paywallInfo"]) if on_screen is not None else None

    async def preload_all_paywalls(self, *, timeout: float | None = None) -> list[str]:
        """SuperwallKit's ``preloadAllPaywalls``: loads the paywalls the user could be shown
        (and asks a presenter with ``preload`` to warm them); answers their identifiers."""
        return list((await self.call("preloadAllPaywalls", timeout=self._interactive(timeout)))["paywalls"])

    async def preload_paywalls(self, placements: Sequence[str], *, timeout: float | None = None) -> list[str]:
        """SuperwallKit's ``preloadPaywalls(forPlacements:)``: only those placements' paywalls."""
        return list((await self.call("preloadPaywalls", {"placements": list(placements)}, timeout=self._interactive(timeout)))["paywalls"])

    async def assignments(self) -> list[Assignment]:
        return [Assignment.from_wire(item) for item in (await self.call("getAssignments"))["assignments"]]

    async def confirm_all_assignments(self) -> list[Assignment]:
        return [Assignment.from_wire(item) for item in (await self.call("confirmAllAssignments"))["assignments"]]

    # MARK: Subscription status, entitlements, purchases

    async def set_subscription_status(self, status: SubscriptionStatus) -> SubscriptionStatus:
        return SubscriptionStatus.from_wire((await self.call("setSubscriptionStatus", {"status": status.to_wire()}))["status"])

    async def subscription_status(self) -> SubscriptionStatus:
        return SubscriptionStatus.from_wire((await self.call("getSubscriptionStatus"))["status"])

    async def entitlements(self) -> EntitlementsInfo:
        return EntitlementsInfo.from_wire(await self.call("getEntitlements"))

    async def entitlements_for_products(self, product_ids: Sequence[str]) -> list[Entitlement]:
        wire = await self.call("getEntitlementsByProductIds", {"productIds": list(product_ids)})
        return [Entitlement.from_wire(item) for item in wire["entitlements"]]

    async def customer_info(self, *, timeout: float | None = None) -> CustomerInfo:
        return CustomerInfo.from_wire(await self.call("getCustomerInfo", timeout=timeout))

    async def products(self, product_ids: Sequence[str] | None = None) -> list[Product]:
        params = {"productIds": list(product_ids)} if product_ids is not None else {}
        return [Product.from_wire(item) for item in (await self.call("getProducts", params))["products"]]

    async def set_store_products(self, products: Sequence[StoreDetails]) -> None:
        await self.call("setStoreProducts", {"products": [product.to_wire() for product in products]})

    async def purchase(self, product_id: str, *, timeout: float | None = None) -> PurchaseResult:
        """A purchase the app starts outside any paywall."""
        return PurchaseResult.from_wire((await self.call("purchase", {"productId": product_id}, timeout=self._interactive(timeout)))["result"])

    async def restore_purchases(self, *, timeout: float | None = None) -> PurchaseResult:
        return PurchaseResult.from_wire((await self.call("restorePurchases", timeout=self._interactive(timeout)))["result"])

    # MARK: Observer mode (configure's options.shouldObservePurchases)

    async def observe_purchase_start(self, product_id: str) -> None:
        """Superwall-Android's ``observePurchaseStart``: your app started buying ``product_id``
        through its own store. Tracks ``transaction_start``."""
        await self.call("observePurchaseStart", {"productId": product_id})

    async def observe_purchase_result(self, result: PurchaseResult, *, product_id: str | None = None) -> None:
        """Superwall-Android's ``observePurchaseResult``: how your app's own purchase ended (that of
        ``product_id``, else the latest started). ``PurchaseResult.purchased(transaction)`` records
        the transaction in the customer info and tracks ``transaction_complete``; ``cancelled()``
        tracks ``transaction_abandon``."""
        params: dict[str, Any] = {"result": result.to_wire()}
        if product_id is not None:
            params["productId"] = product_id
        await self.call("observePurchaseResult", params)

    async def observe_purchase_error(self, product_id: str, error: str) -> None:
        """Superwall-Android's ``observePurchaseError``: your app's own purchase failed;
        ``transaction_fail`` with ``error`` as its message."""
        await self.call("observePurchaseError", {"productId": product_id, "error": error})

    # MARK: Tools

    async def evaluate_expression(self, expression: str, *, params: Mapping[str, Any] | None = None,
                                  context: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """``debug/evaluateExpression``: ``{"value": {"type", "value"}}`` or ``{"error": {...}}``."""
        request: dict[str, Any] = {"expression": expression}
        if params is not None:
            request["params"] = dict(params)
        if context is not None:
            request["context"] = dict(context)
        return dict(await self.call("debug/evaluateExpression", request))

    async def explain_placement(self, placement: str, *, params: Mapping[str, Any] | None = None,
                                user: Mapping[str, Any] | None = None) -> PlacementExplanation:
        """``debug/explainPlacement``: what :meth:`register` would do for ``placement`` now, and
        why, with no side effect. ``user`` overlays the user's attributes for this call only."""
        request: dict[str, Any] = {"placement": placement}
        if params is not None:
            request["params"] = dict(params)
        if user is not None:
            request["user"] = dict(user)
        return PlacementExplanation.from_wire(await self.call("debug/explainPlacement", request))

    async def recent_decisions(self, limit: int | None = None) -> RecentDecisions:
        """``debug/recentDecisions``: the decision records kept last (at most 50), oldest first.
        With ``configure``'s ``options={"recordDecisions": True}`` (or the log at debug) every
        presentation's is kept, and ``records_every_decision`` is true; otherwise only those of
        the calls that asked for theirs (``explain=True``)."""
        request: dict[str, Any] = {} if limit is None else {"limit": limit}
        return RecentDecisions.from_wire(await self.call("debug/recentDecisions", request))

    async def advance_clock(self, seconds: float) -> ClockReading:
        """``debug/advanceClock``: moves the bridge's clock on, when ``configure`` asked for
        ``options={"clock": "manual"}``; otherwise raises with ``kind == "clockNotManual"``."""
        return ClockReading.from_wire(await self.call("debug/advanceClock", {"seconds": seconds}))

    async def override_assignment(self, experiment_id: str, variant_id: str) -> Assignment:
        """``debug/overrideAssignment``: gives the user that variant, as a server assignment would
        (confirmed, kept while the config has it). For tests of one branch of an experiment; an
        experiment or variant the config lacks raises ``InvalidParamsError`` naming it."""
        answer = await self.call("debug/overrideAssignment", {"experimentId": experiment_id, "variantId": variant_id})
        return Assignment.from_wire(answer["assignment"])

    async def set_log_level(self, level: str) -> None:
        await self.call("setLogLevel", {"level": level})

    async def log_level(self) -> str:
        """The log level in effect, by SuperwallKit's name (``debug``, ``info``, ``warn``, ``error``, ``none``)."""
        return str((await self.call("getLogLevel"))["level"])

    # MARK: The bridge's requests and notifications

    def waiting_on(self) -> list[str]:
        """What is open now: each paywall on screen, and each of the bridge's requests this
        client has not answered yet (what a call that times out was most likely waiting for)."""
        now = time.monotonic()
        open_now = [f"paywall \"{identifier}\" (session {session_id}) is still on screen"
                    for session_id, identifier in self._on_screen.items()]
        open_now += [f"this client has not answered the bridge's {what} for {now - since:.1f} s"
                     for what, since in self._answering.values()]
        return open_now

    def _interactive(self, timeout: float | None) -> float:
        return self.interactive_timeout if timeout is None else timeout

    async def _answer(self, method: str, params: Any) -> Any:
        params = params if isinstance(params, dict) else {}
        if method == "paywall/present":
            paywall = params.get("paywall")
            info = paywall.get("info") if isinstance(paywall, dict) else None
            identifier = info.get("identifier", "?") if isinstance(info, dict) else "?"
            self._on_screen[str(params.get("sessionId"))] = str(identifier)
        elif method == "paywall/dismiss":
            self._on_screen.pop(str(params.get("sessionId")), None)
        answer_id = next(self._answer_ids)
        product = params.get("product") if isinstance(params.get("product"), dict) else None
        what = f"{method} ({product.get('productIdentifier')})" if product else method
        self._answering[answer_id] = (what, time.monotonic())
        try:
            return await self._perform(method, params)
        finally:
            del self._answering[answer_id]

    async def _perform(self, method: str, params: dict[str, Any]) -> Any:
        if method == "purchaseController/purchase":
            controller = self._require(self.purchase_controller, method)
            info = params.get("paywallInfo")
            result = await resolve(controller.purchase(Product.from_wire(params["product"]),
                                                       PaywallInfo.from_wire(info) if isinstance(info, dict) else None))
            return result.to_wire()
        if method == "purchaseController/restorePurchases":
            controller = self._require(self.purchase_controller, method)
            return (await resolve(controller.restore_purchases())).to_wire()
        if method == "testMode/purchase":
            chooser = self._require(self.test_mode_ui, method)
            return {"outcome": await resolve(chooser.choose_purchase_outcome(Product.from_wire(params["product"])))}
        if method == "testMode/restore":
            chooser = self._require(self.test_mode_ui, method)
            available = [str(entitlement) for entitlement in params.get("availableEntitlements", [])]
            return {"entitlements": await resolve(chooser.choose_restored_entitlements(available))}
        if method == "paywall/present":
            presenter = self._require(self.paywall_presenter, method)
            await resolve(presenter.present(PaywallPresentation.from_wire(params)))
            return {}
        if method == "paywall/dismiss":
            presenter = self._require(self.paywall_presenter, method)
            state = await resolve(presenter.dismiss(PaywallDismissal.from_wire(params)))
            return {"state": dict(state)} if isinstance(state, Mapping) else {}
        if method == "paywall/preload":
            presenter = self._require(self.paywall_presenter, method)
            await resolve(presenter.preload(PreloadedPaywall.from_wire(params["paywall"])))
            return {}
        if method == "paywall/showAlert":
            presenter = self._require(self.paywall_presenter, method)
            show_alert = getattr(presenter, "show_alert", None)
            if show_alert is None:
                raise RemoteError(-32601, "This client's paywall presenter does not show alerts.", {"kind": "methodNotFound", "method": method})
            await resolve(show_alert(PaywallAlert.from_wire(params)))
            return {}
        if method == "paywall/presentSurvey":
            presenter = self._require(self.paywall_presenter, method)
            present_survey = getattr(presenter, "present_survey", None)
            if present_survey is None:
                raise RemoteError(-32601, "This client's paywall presenter does not show surveys.", {"kind": "methodNotFound", "method": method})
            answer = await resolve(present_survey(SurveyRequest.from_wire(params)))
            if not isinstance(answer, SurveyAnswer):
                raise TypeError(f"present_survey must return a SurveyAnswer, not {type(answer).__name__}")
            return answer.to_wire()
        if method in _PAGE_EFFECTS:
            presenter = self._require(self.paywall_presenter, method)
            name, arguments = _PAGE_EFFECTS[method]
            perform = getattr(presenter, name, None)
            if perform is None:
                raise RemoteError(-32601, f"This client's paywall presenter does not implement {name}.", {"kind": "methodNotFound", "method": method})
            answer = await resolve(perform(*(params.get(argument) for argument in arguments)))
            if method == "paywall/requestPermission":
                return {"status": answer}
            # A notification the OS refused (``"denied"``) shows configure's notificationPermissionsDenied.
            return {"status": answer} if method == "paywall/scheduleNotification" and answer in ("granted", "denied") else {}
        if method == "handler/onCustomCallback":
            callback = CustomCallback.from_wire(params)
            handler = self._handlers.get(callback.register_id)
            if handler is None:
                return CustomCallbackResult.failure().to_wire()
            return (await resolve(handler.on_custom_callback(callback))).to_wire()
        raise RemoteError(-32601, f"This client does not handle {method}.", {"kind": "methodNotFound", "method": method})

    @staticmethod
    def _require(implementation: Any, method: str) -> Any:
        if implementation is None:
            raise RemoteError(-32601, f"This client declared no handler for {method}.", {"kind": "methodNotFound", "method": method})
        return implementation

    async def _hear(self, method: str, params: Any) -> None:
        params = params if isinstance(params, dict) else {}
        if method.startswith("handler/"):
            register_id = params.get("registerId")
            handler = self._handlers.get(register_id)
            if handler is not None:
                await _deliver_to_handler(handler, method, params)
                # A get_paywall's session outlives its call: its handler goes when the session ends.
                if method in ("handler/onDismiss", "handler/onError") and str(register_id).startswith("getPaywall-"):
                    self._handlers.pop(register_id, None)
        elif method.startswith("delegate/") and self.delegate is not None:
            await _deliver_to_delegate(self.delegate, method, params)
        elif method == "paywall/pageEvent" and self.paywall_presenter is not None:
            page_event = getattr(self.paywall_presenter, "page_event", None)
            if page_event is not None:
                await resolve(page_event(params.get("sessionId", ""), params.get("accept64", "")))
        elif method == "config/didRefresh" and self.delegate is not None:
            await resolve(self.delegate.config_did_refresh(ConfigRefresh.from_wire(params)))


#: The page's effects the bridge asks of the paywall presenter: method, and the presenter's
#: optional method with the params it takes, in order.
_PAGE_EFFECTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "paywall/openUrl": ("open_url", ("sessionId", "url", "mode")),
    "paywall/requestReview": ("request_review", ("sessionId", "type", "url")),
    "paywall/requestPermission": ("request_permission", ("sessionId", "permission")),
    "paywall/scheduleNotification": ("schedule_notification", ("sessionId", "id", "title", "subtitle", "body", "delayMs")),
    "paywall/haptic": ("haptic", ("sessionId", "type")),
    "paywall/loadingState": ("loading_state", ("sessionId", "state")),
}


async def _deliver_to_handler(handler: PresentationHandler, method: str, params: dict[str, Any]) -> None:
    info = PaywallInfo.from_wire(params["paywallInfo"]) if isinstance(params.get("paywallInfo"), dict) else None
    result = PaywallResult.from_wire(params["result"]) if isinstance(params.get("result"), dict) else None
    if method == "handler/onPresent" and info:
        await resolve(handler.on_present(info))
    elif method == "handler/onWillDismiss" and info and result:
        await resolve(handler.on_will_dismiss(info, result))
    elif method == "handler/onDismiss" and info and result:
        await resolve(handler.on_dismiss(info, result))
    elif method == "handler/onSkip" and isinstance(params.get("reason"), dict):
        await resolve(handler.on_skip(SkipReason.from_wire(params["reason"])))
    elif method == "handler/onError" and isinstance(params.get("error"), dict):
        await resolve(handler.on_error(ErrorInfo.from_wire(params["error"])))


async def _deliver_to_delegate(delegate: SuperwallDelegate, method: str, params: dict[str, Any]) -> None:
    name = method.removeprefix("delegate/")
    info = PaywallInfo.from_wire(params["paywallInfo"]) if isinstance(params.get("paywallInfo"), dict) else None
    paywall_callbacks = {
        "willPresentPaywall": delegate.will_present_paywall, "didPresentPaywall": delegate.did_present_paywall,
        "willDismissPaywall": delegate.will_dismiss_paywall, "didDismissPaywall": delegate.did_dismiss_paywall,
    }
    if name == "handleSuperwallEvent":
        await resolve(delegate.handle_superwall_event(SuperwallEvent.from_wire(params)))
    elif name in paywall_callbacks and info:
        await resolve(paywall_callbacks[name](info))
    elif name == "subscriptionStatusDidChange":
        await resolve(delegate.subscription_status_did_change(SubscriptionStatus.from_wire(params["from"]), SubscriptionStatus.from_wire(params["to"])))
    elif name == "customerInfoDidChange":
        await resolve(delegate.customer_info_did_change(CustomerInfo.from_wire(params["from"]), CustomerInfo.from_wire(params["to"])))
    elif name == "handleCustomPaywallAction":
        await resolve(delegate.handle_custom_paywall_action(params.get("name", "")))
    elif name == "paywallWillOpenURL":
        await resolve(delegate.paywall_will_open_url(params.get("url", "")))
    elif name == "paywallWillOpenDeepLink":
        await resolve(delegate.paywall_will_open_deep_link(params.get("url", "")))
    elif name == "userAttributesDidChange":
        await resolve(delegate.user_attributes_did_change(dict(params.get("attributes") or {})))
    elif name == "handleSuperwallDeepLink":
        await resolve(delegate.handle_superwall_deep_link(params.get("url", ""), list(params.get("pathComponents") or []),
                                                          dict(params.get("queryParameters") or {})))
    elif name == "handleLog":
        await resolve(delegate.handle_log(params.get("level", ""), params.get("scope", ""), params.get("message"),
                                          params.get("info"), params.get("error")))
    elif name == "willRedeemLink":
        await resolve(delegate.will_redeem_link())
    elif name == "didRedeemLink":
        await resolve(delegate.did_redeem_link(dict(params.get("result") or {})))
    elif name == "testModeTransaction":
        product = params.get("product")
        await resolve(delegate.test_mode_transaction(params.get("type", ""), Product.from_wire(product) if isinstance(product, dict) else None))
    else:
        await resolve(delegate.unknown_notification(method, params))
