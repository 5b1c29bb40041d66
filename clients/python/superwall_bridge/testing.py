"""Test doubles for an app's integration tests against the bridge.

- :class:`FakeStore`, a purchase controller with scripted outcomes that sets the subscription
  status a real store would;
- :class:`PaywallDriver`, a paywall presenter that acts on each paywall shown as a test scripts
  it (purchase, restore, close, a custom action), or hands the paywall to an async test;
- :class:`EventRecorder`, a delegate that records every event and asserts on them;
- :class:`FakeSuperwallAPI`, a local Superwall API for HTTP-mode tests, with what the bridge sent it.

The pytest plugin (``superwall_bridge.pytest_plugin``, registered by installing the package)
gives each test these and a configured bridge; see docs/testing.md.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from collections import deque
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Coroutine, Literal, Mapping

from .callbacks import SuperwallDelegate
from .errors import BridgeClosedError, BridgeTimeoutError
from .fake_api import FakeSuperwallAPI, RecordedRequest
from .models import (
    PaywallDismissal, PaywallPresentation, Product, PurchaseResult, RestorationResult, SubscriptionStatus,
    SuperwallEvent,
)

if TYPE_CHECKING:
    from .client import Superwall
    from .models import PaywallInfo

__all__ = [
    "CallbackError", "EventRecorder", "FakeStore", "FakeSuperwallAPI", "PaywallAction", "PaywallDriver",
    "PaywallScriptError",
    "RecordedRequest",
]

Outcome = Literal["purchased", "cancelled", "pending", "failed"]


class FakeStore:
    """A purchase controller whose purchases end as scripted: ``purchased`` unless
    :meth:`will` says otherwise for a product. A purchase that goes through makes the user
    active with the product's entitlements (what a store's transaction listener does), and
    :meth:`restore_purchases` restores what was bought here, or ``restores`` when given."""

    def __init__(self, *, default: Outcome = "purchased", restores: list[str] | None = None) -> None:
        self.default: Outcome = default
        self.outcomes: dict[str, Outcome] = {}
        self.restorable = restores
        #: Every purchase asked of the store, by product identifier, in order.
        self.purchases: list[str] = []
        #: How many restores were asked.
        self.restores = 0
        self._owned: set[str] = set()
        self._client: Superwall | None = None

    def will(self, product_identifier: str, outcome: Outcome) -> FakeStore:
        """The next purchases of ``product_identifier`` end with ``outcome``."""
        self.outcomes[product_identifier] = outcome
        return self

    def attach(self, client: Superwall) -> None:
        """The bridge this store reports its subscription status to. Call :meth:`report_status`
        once it is configured, as a store's listener reports at launch: with a purchase
        controller, the bridge waits for the host to say the status before presenting."""
        self._client = client

    async def report_status(self) -> SubscriptionStatus:
        """Tells the bridge what the user owns here: active with those entitlements, else inactive."""
        return await self._report()

    async def purchase(self, product: Product, paywall_info: PaywallInfo | None) -> PurchaseResult:
        self.purchases.append(product.product_identifier)
        outcome = self.outcomes.get(product.product_identifier, self.default)
        if outcome == "purchased":
            self._owned.update(entitlement.id for entitlement in product.entitlements)
            await self._report()
            return PurchaseResult.purchased()
        if outcome == "failed":
            return PurchaseResult.failed(f"FakeStore: the purchase of {product.product_identifier} failed, as scripted")
        return PurchaseResult(outcome)

    async def restore_purchases(self) -> RestorationResult:
        self.restores += 1
        if self.restorable is not None:
            self._owned = set(self.restorable)
        await self._report()
        return RestorationResult.restored()

    async def _report(self) -> SubscriptionStatus:
        if self._client is None:
            raise RuntimeError("FakeStore is not attached to a bridge: call attach(client) first")
        status = SubscriptionStatus.active(*sorted(self._owned)) if self._owned else SubscriptionStatus.inactive()
        return await self._client.set_subscription_status(status)


class PaywallScriptError(AssertionError):
    """A paywall did not go as its script said: it was still on screen when the script ran
    out, an action was answered ``failed``, or a script was never used. Raised into the calls
    waiting on the bridge (a ``register`` would otherwise wait for the paywall to close), and
    kept in :attr:`PaywallDriver.failures`."""


class CallbackError(AssertionError):
    """A callback of the test's own (a delegate, presenter or purchase controller method)
    raised: the bridge was answered an error, and the pytest fixtures fail the test."""


@dataclass(frozen=True)
class PaywallAction:
    """What the driver does on a paywall shown: ``paywall/action``'s ``action``. An action the
    bridge answers ``failed`` fails the test unless it is :meth:`expecting_failure`."""

    action: dict[str, Any]
    expects_failure: bool = False

    def expecting_failure(self) -> PaywallAction:
        """The same action, whose ``failed`` answer is what the test expects."""
        return replace(self, expects_failure=True)

    def __str__(self) -> str:
        kind = str(self.action.get("type"))
        argument = self.action.get("productId") or self.action.get("name")
        return f"{kind} {argument}" if argument else kind

    @classmethod
    def purchase(cls, product_id: str) -> PaywallAction:
        return cls({"type": "purchase", "productId": product_id})

    @classmethod
    def restore(cls) -> PaywallAction:
        return cls({"type": "restore"})

    @classmethod
    def close(cls) -> PaywallAction:
        return cls({"type": "close"})

    @classmethod
    def custom(cls, name: str) -> PaywallAction:
        return cls({"type": "custom", "name": name})

    @classmethod
    def request_callback(cls, name: str, variables: Mapping[str, Any] | None = None) -> PaywallAction:
        """The page's custom callback ``name`` with its ``variables``, as a page's
        ``request_callback`` sends it; the app's handler answers it."""
        return cls({"type": "requestCallback", "name": name, "variables": dict(variables or {})})


@dataclass(frozen=True)
class _Script:
    actions: tuple[PaywallAction, ...]
    keep_open: bool
    optional: bool

    def __str__(self) -> str:
        return ", ".join(str(action) for action in self.actions) or "(no actions)"


class PaywallDriver:
    """A paywall presenter for tests. Each paywall shown is recorded in :attr:`shown`, and the
    actions scripted for it (:meth:`then`) are performed on it in order, as a user would, once
    the bridge has its answer to ``paywall/present``.

    A script that runs out with its paywall still on screen fails the test at once (a cancelled
    purchase or a restore that finds nothing leaves a real paywall up, and ``register`` would
    wait for it): the calls waiting on the bridge raise :class:`PaywallScriptError` naming the
    paywall and what each action answered. So does an action answered ``failed`` that the
    script did not expect. End such a script with :meth:`PaywallAction.close`, or pass
    ``keep_open=True`` to go on with the paywall in the test.

    A paywall with no script is closed at once with ``unscripted="close"``; with ``"wait"`` (the
    default) an async test takes it with :meth:`next_paywall` and acts with :meth:`act`. What
    went wrong is kept in :attr:`failures`, and a script no paywall used in
    :attr:`unused_scripts` (the pytest plugin fails the test with both).

    A paywall no ``register`` waits on (a deep link's, ``app_launch``'s, a page's custom
    placement) reaches the presenter after the call that caused it answered.
    :meth:`wait_for_paywall` (:meth:`presented` in an async test) waits for it, and
    :attr:`shown`, read in a sync test, first waits for the presentations asked for so far.
    """

    def __init__(self, *, unscripted: Literal["wait", "close"] = "wait") -> None:
        self.unscripted = unscripted
        #: How long reading :attr:`shown` in a sync test waits for presentations in flight.
        self.settle_timeout = 10.0
        self._shown: list[PaywallPresentation] = []
        #: How many of ``_shown`` a wait has taken.
        self._taken = 0
        #: What each action answered (``paywall/action``'s result), in order.
        self.answers: list[dict[str, Any]] = []
        #: Dismissals the bridge asked for.
        self.dismissals: list[PaywallDismissal] = []
        #: What went wrong, with why.
        self.failures: list[str] = []
        #: Failures no waiting call raised (the pytest plugin reports them when the test ends).
        self.unraised_failures: list[str] = []
        self._script: deque[_Script] = deque()
        self._waiting: asyncio.Queue[PaywallPresentation] | None = None
        self._client: Superwall | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    def attach(self, client: Superwall) -> None:
        """The bridge the driver acts through."""
        self._client = client

    @property
    def shown(self) -> list[PaywallPresentation]:
        """Every paywall shown, in order. Read outside the client's event loop (a sync test),
        it first waits until the presentations asked for so far have run, so the paywall of a
        ``handle_deep_link`` just answered is in it. In an async test, await :meth:`presented`."""
        loop = self._client.connection.loop if self._client is not None else None
        if loop is not None and loop.is_running() and not self._client_closed() and not _on_an_event_loop():
            try:
                asyncio.run_coroutine_threadsafe(self._settle(), loop).result(self.settle_timeout)
            except (concurrent.futures.TimeoutError, BridgeTimeoutError) as error:
                raise AssertionError(f"paywall_driver.shown waited {self.settle_timeout} s for the presentations "
                                     f"asked for so far, and they had not run: {error}") from error
            except BridgeClosedError:
                pass  # the bridge is gone: what it showed is all there is
        return self._shown

    def wait_for_paywall(self, by: str | None = None, *, timeout: float = 10) -> PaywallPresentation:
        """:meth:`presented`, for a sync test (``handle_deep_link(...)``, then this)."""
        _refuse_on_event_loop("wait_for_paywall", "presented")
        loop = self._client.connection.loop if self._client is not None else None
        if loop is None:
            raise RuntimeError("PaywallDriver is not attached to a bridge: call attach(client) first")
        return asyncio.run_coroutine_threadsafe(self.presented(by, timeout=timeout), loop).result(timeout + 5)

    async def presented(self, by: str | None = None, *, timeout: float = 10) -> PaywallPresentation:
        """The next paywall shown that no wait took yet, once every presentation asked for so
        far has run (``awaitPresentations``): the paywall of a deep link, of ``app_launch`` or of
        a page's custom placement, which come with no ``register`` waiting. With ``by``, the next
        one presented by that placement: its name (``"deepLink_open"``) or its id. Fails naming
        what was shown and what is on screen."""
        if self._client is None:
            raise RuntimeError("PaywallDriver is not attached to a bridge: call attach(client) first")
        on_screen = await self._client.await_presentations(timeout=timeout)
        await self._settle_deliveries()
        for index in range(self._taken, len(self._shown)):
            info = self._shown[index].paywall.info
            if by is None or by in (info.presented_by_placement_with_name, info.presented_by_placement_with_id):
                self._taken = index + 1
                return self._shown[index]
        shown = [presentation.paywall.info.identifier for presentation in self._shown]
        source = f" by {by!r}" if by is not None else ""
        raise AssertionError(f"no paywall was presented{source} once the presentations asked for so far had run; "
                             f"shown: {shown or 'none'} ({self._taken} taken by earlier waits); "
                             f"on screen: {on_screen.identifier if on_screen else 'none'}")

    async def _settle(self) -> None:
        if self._client is not None:
            await self._client.await_presentations(timeout=self.settle_timeout)
            await self._settle_deliveries()

    async def _settle_deliveries(self) -> None:
        """What arrived before the answer (the dismissal of a paywall closed at once) is handled."""
        if self._client is not None:
            connection = self._client.connection
            await connection.delivered(connection.arrivals_so_far(), timeout=5)

    def _client_closed(self) -> bool:
        return self._client is None or self._client.connection.is_closed

    def then(self, *actions: PaywallAction, keep_open: bool = False, optional: bool = False) -> PaywallDriver:
        """What to do on the next paywall shown, in order; call it again for the paywall after.
        ``keep_open``: the paywall may still be up when these are done (the test goes on with
        it). ``optional``: no paywall need ever use this script."""
        self._script.append(_Script(actions, keep_open, optional))
        return self

    @property
    def unused_scripts(self) -> list[str]:
        """The scripts no paywall used, but those marked ``optional``."""
        return [str(script) for script in self._script if not script.optional]

    async def present(self, presentation: PaywallPresentation) -> None:
        self._shown.append(presentation)
        if self._script:
            self._start(self._perform(self._script.popleft(), presentation))
        elif self.unscripted == "close":
            self._start(self._perform(_Script((PaywallAction.close(),), False, False), presentation))
        else:
            self._queue().put_nowait(presentation)

    def dismiss(self, dismissal: PaywallDismissal) -> None:
        self.dismissals.append(dismissal)

    async def next_paywall(self, timeout: float = 10) -> PaywallPresentation:
        """The next paywall shown that no script acted on (``unscripted="wait"``); a driver that
        closes unscripted paywalls answers :meth:`presented`."""
        if self.unscripted != "wait":
            return await self.presented(timeout=timeout)
        return await asyncio.wait_for(self._queue().get(), timeout)

    async def act(self, action: PaywallAction, *, on: PaywallPresentation | None = None) -> dict[str, Any]:
        """Performs ``action`` on ``on`` (the last paywall shown by default)."""
        if self._client is None:
            raise RuntimeError("PaywallDriver is not attached to a bridge: call attach(client) first")
        target = on or (self._shown[-1] if self._shown else None)
        if target is None:
            raise AssertionError("no paywall was shown to act on")
        answer = await self._client.paywall_action(target.session_id, action.action)
        self.answers.append(answer)
        return answer

    async def _perform(self, script: _Script, presentation: PaywallPresentation) -> None:
        ran: list[str] = []
        for action in script.actions:
            try:
                answer = await self.act(action, on=presentation)
            except Exception as error:  # noqa: BLE001 - kept for the test to see
                self._fail(presentation, ran, f"{action} raised {type(error).__name__}: {error}")
                return
            ran.append(f"{action} → {_outcome(answer)}")
            failure = _failure(answer)
            if failure is not None and not action.expects_failure:
                self._fail(presentation, ran, f"{action} was answered failed ({failure}); "
                                              "use PaywallAction.expecting_failure() if the test expects it")
                return
        if script.keep_open:
            return
        # The bridge asks for the dismissal before it answers the action that closed the
        # paywall: once what arrived so far is dispatched, the dismissal has been heard.
        if self._client is not None:
            connection = self._client.connection
            await connection.delivered(connection.arrivals_so_far(), timeout=5)
        await asyncio.sleep(0)
        if self._dismissed(presentation):
            return
        self._fail(presentation, ran, "it is still on screen after its script ran out; end the script with "
                                      "PaywallAction.close(), or pass keep_open=True to then() to go on with it")

    def _dismissed(self, presentation: PaywallPresentation) -> bool:
        return any(dismissal.session_id == presentation.session_id for dismissal in self.dismissals)

    def _fail(self, presentation: PaywallPresentation, ran: list[str], why: str) -> None:
        actions = "; ".join(ran) if ran else "no action ran"
        message = (f"paywall \"{presentation.paywall.info.identifier}\" (session {presentation.session_id}): "
                   f"{why}. Actions: {actions}")
        self.failures.append(message)
        raised = self._client.connection.fail_waiting(PaywallScriptError(message)) if self._client else 0
        if not raised:
            self.unraised_failures.append(message)

    def _start(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _queue(self) -> asyncio.Queue[PaywallPresentation]:
        if self._waiting is None:
            self._waiting = asyncio.Queue()
        return self._waiting


def _result(answer: Mapping[str, Any]) -> Mapping[str, Any]:
    result = answer.get("result")
    return result if isinstance(result, Mapping) else answer


def _outcome(answer: Mapping[str, Any]) -> str:
    kind = _result(answer).get("type")
    return str(kind) if kind is not None else "{}"


def _failure(answer: Mapping[str, Any]) -> str | None:
    result = _result(answer)
    if result.get("type") != "failed":
        return None
    return str(result.get("error") or "no reason given")


class EventRecorder(SuperwallDelegate):
    """A delegate that records every event the bridge tracks, with assertions on them. The
    assertions wait up to ``within`` seconds for an event still on its way (events are
    notifications, which may arrive just after the answer of the call that tracked them)."""

    def __init__(self) -> None:
        self.events: list[SuperwallEvent] = []
        self._changed = threading.Condition()

    def handle_superwall_event(self, event: SuperwallEvent) -> None:
        with self._changed:
            self.events.append(event)
            self._changed.notify_all()

    @property
    def names(self) -> list[str]:
        with self._changed:
            return [event.name for event in self.events]

    def count(self, name: str, **params: Any) -> int:
        """How many events named ``name`` (with these params) were tracked."""
        with self._changed:
            return sum(1 for event in self.events if _matches(event, name, params))

    def clear(self) -> None:
        with self._changed:
            self.events.clear()

    def assert_tracked(self, name: str, *, within: float = 2.0, times: int | None = None, **params: Any) -> SuperwallEvent:
        """The first event named ``name`` whose params include ``params`` (delegate names,
        un-prefixed: ``paywall_id=...``); ``times`` also pins how many there are. Fails with
        what was tracked instead. From a coroutine, use :meth:`tracked`."""
        _refuse_on_event_loop("assert_tracked", "tracked")
        deadline = time.monotonic() + within
        with self._changed:
            while True:
                found = [event for event in self.events if _matches(event, name, params)]
                if found and (times is None or len(found) == times):
                    return found[0]
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(self._describe_miss(name, params, len(found), times))
                self._changed.wait(remaining)

    async def tracked(self, name: str, *, within: float = 2.0, times: int | None = None, **params: Any) -> SuperwallEvent:
        """:meth:`assert_tracked` for async tests."""
        deadline = time.monotonic() + within
        while True:
            with self._changed:
                found = [event for event in self.events if _matches(event, name, params)]
                if found and (times is None or len(found) == times):
                    return found[0]
                if time.monotonic() >= deadline:
                    raise AssertionError(self._describe_miss(name, params, len(found), times))
            await asyncio.sleep(0.01)

    def assert_not_tracked(self, name: str, **params: Any) -> None:
        found = self.count(name, **params)
        if found:
            raise AssertionError(f"{name}{_describe(params)} was tracked {found} time(s); tracked: {self.names}")

    def assert_order(self, *names: str) -> None:
        """``names`` were tracked in this order (others may come between them)."""
        tracked = iter(self.names)
        for name in names:
            if not any(candidate == name for candidate in tracked):
                raise AssertionError(f"expected {list(names)} in this order; tracked: {self.names}")

    def _describe_miss(self, name: str, params: Mapping[str, Any], found: int, times: int | None) -> str:
        if found and times is not None:
            return f"{name}{_describe(params)} was tracked {found} time(s), not {times}"
        same_name = [event.params for event in self.events if event.name == name]
        hint = f"; {name} was tracked with params {same_name}" if same_name else ""
        return f"{name}{_describe(params)} was not tracked; tracked: {[event.name for event in self.events]}{hint}"


def _matches(event: SuperwallEvent, name: str, params: Mapping[str, Any]) -> bool:
    return event.name == name and all(event.params.get(key) == value for key, value in params.items())


def _describe(params: Mapping[str, Any]) -> str:
    return f" with {dict(params)}" if params else ""


def _on_an_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _refuse_on_event_loop(method: str, instead: str) -> None:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise RuntimeError(f"{method} blocks while it waits, and would block this event loop: await {instead}() instead")
