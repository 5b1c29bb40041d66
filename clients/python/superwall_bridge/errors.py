"""Exceptions raised by the client.

Every error the bridge answers carries a stable ``data.kind``; :func:`error_from_wire` maps it
to a subclass of :class:`BridgeError`, so callers can ``except PaywallSkippedError`` rather
than compare strings. Kinds this version does not know become a plain :class:`BridgeError`
with the kind kept in :attr:`BridgeError.kind`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:
    from ._protocol import PresentationDecision


class SuperwallBridgeError(Exception):
    """Base class of everything this package raises."""


class BridgeError(SuperwallBridgeError):
    """An error answered by the bridge: ``{code, message, data: {kind, ...}}``."""

    #: The ``data.kind`` this class stands for (``None`` on the base class).
    KIND: str | None = None

    def __init__(self, code: int, message: str, kind: str | None = None, data: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.kind = kind
        self.data: dict[str, Any] = dict(data or {})

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code}, kind={self.kind!r}, message={self.message!r})"

    @property
    def decision(self) -> PresentationDecision | None:
        """The decision record of a ``getPaywall`` that asked for it (``explain=True``) and
        found no paywall to show: why it was skipped or failed."""
        from ._protocol import PresentationDecision

        wire = self.data.get("decision")
        return PresentationDecision.from_wire(wire) if isinstance(wire, Mapping) else None


# Protocol-level errors.
class ParseError(BridgeError):
    KIND = "parseError"


class InvalidRequestError(BridgeError):
    KIND = "invalidRequest"


class MethodNotFoundError(BridgeError):
    KIND = "methodNotFound"


class NotImplementedByBridgeError(BridgeError):
    """A method of the contract this build of the bridge does not provide yet."""

    KIND = "notImplemented"


class InvalidParamsError(BridgeError):
    """Params of the wrong shape; :attr:`path` names the field (``params.placement``)."""

    KIND = "invalidParams"

    @property
    def path(self) -> str | None:
        return self.data.get("path")


class InternalBridgeError(BridgeError):
    KIND = "internalError"


class UnsupportedProtocolVersionError(BridgeError):
    """The bridge speaks another major version of the protocol; ``data["supported"]`` says which."""

    KIND = "unsupportedProtocolVersion"


class NotInitializedError(BridgeError):
    KIND = "notInitialized"


class NotConfiguredError(BridgeError):
    KIND = "notConfigured"


class RequestTimeoutError(BridgeError):
    KIND = "requestTimeout"


class RequestCancelledError(BridgeError):
    KIND = "requestCancelled"


class ConnectionClosedError(BridgeError):
    KIND = "connectionClosed"


class ShutDownError(BridgeError):
    KIND = "shutDown"


# Domain errors (SuperwallKit's numbers where it has them).
class ApiKeyMismatchError(BridgeError):
    KIND = "apiKeyMismatch"


class InvalidUserIdError(BridgeError):
    KIND = "invalidUserId"


class ReservedPlacementNameError(BridgeError):
    KIND = "reservedPlacementName"


class PaywallSessionNotFoundError(BridgeError):
    KIND = "paywallSessionNotFound"


class ProductNotFoundError(BridgeError):
    KIND = "productNotFound"


class PurchaseInProgressError(BridgeError):
    KIND = "purchaseInProgress"


class CustomerInfoTimeoutError(BridgeError):
    KIND = "customerInfoTimeout"


class NotObservingPurchasesError(BridgeError):
    """An ``observe_purchase_*`` report without ``shouldObservePurchases`` in ``configure``."""

    KIND = "notObservingPurchases"


class ObservingPurchasesError(BridgeError):
    """``purchase`` while ``shouldObservePurchases`` is on: the app buys through its own store."""

    KIND = "observingPurchases"


class ObservedPurchaseNotStartedError(BridgeError):
    """A purchase's end reported with no ``observe_purchase_start`` before it."""

    KIND = "observedPurchaseNotStarted"


class NoPurchaseControllerError(BridgeError):
    KIND = "noPurchaseController"


class PaywallSkippedError(BridgeError):
    """``get_paywall`` found nothing to show; :attr:`skip_reason` says why."""

    KIND = "paywallSkipped"

    @property
    def skip_reason(self) -> Any:
        from .models import SkipReason

        reason = self.data.get("skipReason")
        return SkipReason.from_wire(reason) if isinstance(reason, dict) else None


class PaywallAlreadyPresentedError(BridgeError):
    KIND = "paywallAlreadyPresented"


class NoPresenterError(BridgeError):
    KIND = "noPresenter"


class NoConfigError(BridgeError):
    KIND = "noConfig"


class SubscriptionStatusTimeoutError(BridgeError):
    KIND = "subscriptionStatusTimeout"


class PaywallNotFoundError(BridgeError):
    KIND = "paywallNotFound"


class ConfigUnavailableError(BridgeError):
    KIND = "configUnavailable"


class DataDirectoryInUseError(BridgeError):
    KIND = "dataDirectoryInUse"


class ClockNotManualError(BridgeError):
    """``advance_clock`` on a bridge whose ``configure`` did not ask for ``clock: "manual"``."""

    KIND = "clockNotManual"


# Raised by the client itself, not answered by the bridge.
class BridgeTimeoutError(SuperwallBridgeError, TimeoutError):
    """The bridge did not answer a call within its timeout. The call was cancelled."""

    def __init__(self, method: str, timeout: float, waiting_on: list[str] | None = None) -> None:
        waits = list(waiting_on or [])
        reason = f": {'; '.join(waits)}" if waits else ""
        super().__init__(f"{method} got no answer within {timeout:g} s{reason}")
        self.method = method
        self.timeout = timeout
        #: What was still open when it timed out: paywalls on screen, the bridge's requests
        #: this client had not answered.
        self.waiting_on = waits


class BridgeClosedError(SuperwallBridgeError, ConnectionError):
    """The bridge process went away (it exited, or closed its output) before answering."""

    def __init__(self, message: str, returncode: int | None = None, stderr_tail: str = "") -> None:
        super().__init__(message + (f"\n{stderr_tail}" if stderr_tail else ""))
        self.returncode = returncode
        self.stderr_tail = stderr_tail


class UnknownPlacementError(SuperwallBridgeError, LookupError):
    """A placement the config does not know, with ``Superwall.unknown_placements = "fail"``
    (the test fixtures' default): SuperwallKit skips it and grants the feature, so a typo would
    pass a test. :attr:`nearest` is the config's placement it most likely meant."""

    def __init__(self, placement: str, nearest: str | None) -> None:
        suggestion = f"; did you mean {nearest!r}?" if nearest else ""
        super().__init__(f"no campaign of the config has the placement {placement!r}{suggestion} "
                         "(SuperwallKit would skip it and grant the feature)")
        self.placement = placement
        self.nearest = nearest


class BridgeNotFoundError(SuperwallBridgeError, FileNotFoundError):
    """No bridge binary: install the platform wheel, pass ``bridge_path``, set ``SUPERWALL_BRIDGE``, or run ``swift build``."""


class SystemRequirementError(SuperwallBridgeError, OSError):
    """This system lacks what the bridge needs to start (``/proc``, see docs/platforms.md)."""


class ProtocolViolationError(SuperwallBridgeError):
    """The bridge sent something that is not JSON-RPC 2.0 (a bug in the bridge)."""


_BY_KIND: dict[str, type[BridgeError]] = {
    cls.KIND: cls
    for cls in (
        ParseError, InvalidRequestError, MethodNotFoundError, NotImplementedByBridgeError, InvalidParamsError,
        InternalBridgeError, UnsupportedProtocolVersionError, NotInitializedError, NotConfiguredError, RequestTimeoutError, RequestCancelledError,
        ConnectionClosedError, ShutDownError, ApiKeyMismatchError, InvalidUserIdError, ReservedPlacementNameError,
        PaywallSessionNotFoundError, ProductNotFoundError, PurchaseInProgressError, CustomerInfoTimeoutError,
        NotObservingPurchasesError, ObservingPurchasesError, ObservedPurchaseNotStartedError, NoPurchaseControllerError, PaywallSkippedError, PaywallAlreadyPresentedError, NoPresenterError, NoConfigError,
        SubscriptionStatusTimeoutError, PaywallNotFoundError, ConfigUnavailableError, DataDirectoryInUseError,
        ClockNotManualError,
    )
    if cls.KIND is not None
}

_BY_CODE: dict[int, type[BridgeError]] = {
    -32700: ParseError, -32600: InvalidRequestError, -32601: MethodNotFoundError, -32602: InvalidParamsError,
    -32603: InternalBridgeError, -32002: NotInitializedError, -32001: NotConfiguredError, -32800: RequestCancelledError,
    100: PaywallSkippedError, 102: PaywallAlreadyPresentedError, 103: NoPresenterError, 104: NoConfigError,
    105: SubscriptionStatusTimeoutError, 404: PaywallNotFoundError,
}


def error_from_wire(error: Any) -> BridgeError:
    """The exception for a JSON-RPC error object, by ``data.kind``, then by ``code``."""
    if not isinstance(error, dict):
        return BridgeError(-32603, f"malformed error object: {error!r}")
    raw_code, raw_message, raw_data = error.get("code"), error.get("message"), error.get("data")
    code = raw_code if isinstance(raw_code, int) else -32603
    message = raw_message if isinstance(raw_message, str) else "(no message)"
    data: dict[str, Any] = raw_data if isinstance(raw_data, dict) else {}
    kind = data.get("kind") if isinstance(data.get("kind"), str) else None
    cls = _BY_KIND.get(kind or "") or _BY_CODE.get(code, BridgeError)
    return cls(code, message, kind, data)
