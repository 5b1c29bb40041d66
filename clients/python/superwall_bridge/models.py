"""The protocol's types as dataclasses.

Fields are the wire's camelCase keys in snake_case. Decoding is lenient, as the protocol asks
of clients: unknown fields are ignored (each model keeps the whole wire object in ``raw``),
missing ones take their defaults, and dates become timezone-aware ``datetime`` objects.
"""

from __future__ import annotations

import dataclasses
import re
import sys
import types
import typing
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, ClassVar, Literal, Mapping, TypeVar, Union

T = TypeVar("T", bound="WireModel")

_CAMEL_BOUNDARY = re.compile(r"_([a-z])")


def _camel(name: str) -> str:
    return _CAMEL_BOUNDARY.sub(lambda match: match.group(1).upper(), name)


def parse_date(value: Any) -> datetime | None:
    """An ISO-8601 string (``2026-11-22T10:00:00.000Z``) or milliseconds since 1970."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return datetime.fromtimestamp(value / 1000, tz=timezone.utc)
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    return None


def format_date(value: datetime) -> str:
    """ISO-8601 UTC with milliseconds, as the bridge writes dates."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class WireModel:
    """Decoding from the wire's JSON for the dataclasses below."""

    #: Wire keys that do not follow the camelCase rule, by field name.
    WIRE_NAMES: ClassVar[Mapping[str, str]] = {}

    @classmethod
    def from_wire(cls: type[T], data: Any) -> T:
        if not isinstance(data, dict):
            raise TypeError(f"{cls.__name__} expects a JSON object, got {type(data).__name__}")
        hints = _hints(cls)
        values: dict[str, Any] = {}
        for item in dataclasses.fields(cls):  # type: ignore[arg-type]
            if item.name == "raw":
                continue
            key = cls.WIRE_NAMES.get(item.name, _camel(item.name))
            if key in data:
                values[item.name] = _decode(hints[item.name], data[key])
        instance = cls(**values)
        if any(item.name == "raw" for item in dataclasses.fields(cls)):  # type: ignore[arg-type]
            object.__setattr__(instance, "raw", data)
        return instance


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls, vars(sys.modules[cls.__module__]))
    return _HINTS[cls]


def _decode(hint: Any, value: Any) -> Any:
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        if value is None:
            return None
        options = [option for option in typing.get_args(hint) if option is not type(None)]
        return _decode(options[0], value) if len(options) == 1 else value
    if value is None:
        return None
    if origin is list:
        (element,) = typing.get_args(hint) or (Any,)
        return [_decode(element, item) for item in value] if isinstance(value, list) else []
    if origin is dict or hint is dict:
        return dict(value) if isinstance(value, dict) else {}
    if origin is Literal:
        return value
    if hint is datetime:
        return parse_date(value)
    if isinstance(hint, type) and issubclass(hint, WireModel):
        return hint.from_wire(value) if isinstance(value, dict) else None
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


# MARK: Entitlements and subscription status


@dataclass(frozen=True)
class Entitlement(WireModel):
    """What a product unlocks, and the user's hold on it (SuperwallKit's ``Entitlement``)."""

    id: str
    type: str = "serviceLevel"
    #: True by default, as SuperwallKit's ``Entitlement(id:)``: an entitlement the app grants is active.
    is_active: bool = True
    product_ids: list[str] = field(default_factory=list)
    latest_product_id: str | None = None
    store: str | None = None
    starts_at: datetime | None = None
    renewed_at: datetime | None = None
    expires_at: datetime | None = None
    is_lifetime: bool | None = None
    will_renew: bool | None = None
    state: str | None = None
    offer_type: str | None = None
    renews_at: datetime | None = None
    is_revoked: bool = False
    is_in_grace_period: bool = False
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def to_wire(self) -> dict[str, Any]:
        """The entitlement as ``setSubscriptionStatus`` takes it: only what is known."""
        wire: dict[str, Any] = {"id": self.id, "type": self.type, "isActive": self.is_active}
        optional = {
            "productIds": self.product_ids or None, "latestProductId": self.latest_product_id, "store": self.store,
            "isLifetime": self.is_lifetime, "willRenew": self.will_renew, "state": self.state, "offerType": self.offer_type,
            "startsAt": self.starts_at and format_date(self.starts_at),
            "renewedAt": self.renewed_at and format_date(self.renewed_at),
            "expiresAt": self.expires_at and format_date(self.expires_at),
        }
        wire.update({key: value for key, value in optional.items() if value is not None})
        return wire


@dataclass(frozen=True)
class SubscriptionStatus(WireModel):
    """``{type: "unknown" | "inactive" | "active", entitlements}``."""

    type: Literal["unknown", "inactive", "active"]
    entitlements: list[Entitlement] = field(default_factory=list)

    @classmethod
    def unknown(cls) -> SubscriptionStatus:
        return cls("unknown")

    @classmethod
    def inactive(cls) -> SubscriptionStatus:
        return cls("inactive")

    @classmethod
    def active(cls, *entitlements: Entitlement | str) -> SubscriptionStatus:
        """Active with these entitlements (ids become active App Store entitlements)."""
        return cls("active", [Entitlement(e) if isinstance(e, str) else e for e in entitlements])

    @property
    def is_active(self) -> bool:
        return self.type == "active"

    def to_wire(self) -> dict[str, Any]:
        if self.type == "active":
            return {"type": "active", "entitlements": [e.to_wire() for e in self.entitlements]}
        return {"type": self.type}


@dataclass(frozen=True)
class EntitlementsInfo(WireModel):
    """``getEntitlements``: active, inactive, every one a product unlocks, and the web's."""

    active: list[Entitlement] = field(default_factory=list)
    inactive: list[Entitlement] = field(default_factory=list)
    all: list[Entitlement] = field(default_factory=list)
    web: list[Entitlement] = field(default_factory=list)


# MARK: Products


@dataclass(frozen=True)
class StorePeriod(WireModel):
    unit: Literal["day", "week", "month", "year"]
    count: int = 1


@dataclass(frozen=True)
class IntroductoryOffer(WireModel):
    """A product's introductory offer: a free trial or a discounted first period(s)."""

    period: StorePeriod
    payment_mode: Literal["freeTrial", "payAsYouGo", "payUpFront"] = "freeTrial"
    price: float = 0
    period_count: int = 1

    def to_wire(self) -> dict[str, Any]:
        return {"price": self.price, "period": {"unit": self.period.unit, "count": self.period.count},
                "periodCount": self.period_count, "paymentMode": self.payment_mode}


@dataclass(frozen=True)
class StoreDetails(WireModel):
    """What the client's store says of a product (``setStoreProducts``). ``price_locale`` is
    the storefront's locale (``de_DE``); the paywall page's prices are formatted in it."""

    product_identifier: str
    price: float | None = None
    currency_code: str | None = None
    localized_price: str | None = None
    period: StorePeriod | None = None
    trial_period_days: int | None = None
    is_consumable: bool | None = None
    price_locale: str | None = None
    introductory_offer: IntroductoryOffer | None = None
    subscription_group_id: str | None = None
    is_eligible_for_intro_offer: bool | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"productIdentifier": self.product_identifier}
        for key, value in (("price", self.price), ("currencyCode", self.currency_code), ("localizedPrice", self.localized_price),
                           ("trialPeriodDays", self.trial_period_days), ("isConsumable", self.is_consumable),
                           ("priceLocale", self.price_locale), ("subscriptionGroupId", self.subscription_group_id),
                           ("isEligibleForIntroOffer", self.is_eligible_for_intro_offer)):
            if value is not None:
                wire[key] = value
        if self.period is not None:
            wire["period"] = {"unit": self.period.unit, "count": self.period.count}
        if self.introductory_offer is not None:
            wire["introductoryOffer"] = self.introductory_offer.to_wire()
        return wire


@dataclass(frozen=True)
class Product(WireModel):
    id: str
    product_identifier: str
    reference_name: str | None = None
    store: str = "appStore"
    entitlements: list[Entitlement] = field(default_factory=list)
    store_details: StoreDetails | None = None
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


# MARK: Experiments and paywalls


@dataclass(frozen=True)
class Variant(WireModel):
    id: str
    type: Literal["treatment", "holdout"]
    paywall_id: str | None = None


@dataclass(frozen=True)
class Experiment(WireModel):
    id: str
    group_id: str
    variant: Variant


@dataclass(frozen=True)
class Assignment(WireModel):
    experiment_id: str
    variant: Variant
    is_sent_to_server: bool = False


@dataclass(frozen=True)
class PresentationStyle(WireModel):
    type: str
    height: float | None = None
    width: float | None = None
    corner_radius: float | None = None


@dataclass(frozen=True)
class PaywallInfo(WireModel):
    """The paywall a presentation concerns (SuperwallKit's ``PaywallInfo``, headless fields)."""

    identifier: str
    name: str | None = None
    database_id: str | None = None
    url: str | None = None
    cache_key: str | None = None
    build_id: str | None = None
    experiment: Experiment | None = None
    products: list[Product] = field(default_factory=list)
    product_ids: list[str] = field(default_factory=list)
    presented_by_placement_with_name: str | None = None
    presented_by_placement_with_id: str | None = None
    presented_by_placement_at: datetime | None = None
    presented_by: str | None = None
    presentation_source_type: str | None = None
    is_free_trial_available: bool = False
    feature_gating_behavior: Literal["gated", "nonGated"] = "nonGated"
    close_reason: str = "none"
    presentation_id: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class PaywallResult(WireModel):
    """How a paywall ended: ``declined``, ``purchased`` (with the product) or ``restored``."""

    type: Literal["declined", "purchased", "restored"]
    product_id: str | None = None


@dataclass(frozen=True)
class SkipReason(WireModel):
    """Why nothing was shown: ``holdout`` (with its experiment), ``noAudienceMatch``, ``placementNotFound``."""

    type: Literal["holdout", "noAudienceMatch", "placementNotFound"]
    experiment: Experiment | None = None


@dataclass(frozen=True)
class ErrorInfo(WireModel):
    """An error inside a result (``register``'s ``error``, ``handler/onError``)."""

    code: int
    message: str
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> str | None:
        return self.data.get("kind")


@dataclass(frozen=True)
class RegisterResult(WireModel):
    """How a ``register`` ended. ``feature_granted`` is the bridge's decision: run the feature when it is true."""

    feature_granted: bool
    outcome: Literal["skipped", "dismissed", "error"]
    skip_reason: SkipReason | None = None
    paywall_info: PaywallInfo | None = None
    paywall_result: PaywallResult | None = None
    error: ErrorInfo | None = None


@dataclass(frozen=True)
class PresentationResult(WireModel):
    """``getPresentationResult``: what ``register`` would do, without doing it."""

    type: Literal["placementNotFound", "noAudienceMatch", "paywall", "holdout", "paywallNotAvailable"]
    experiment: Experiment | None = None


@dataclass(frozen=True)
class PageLoadTarget(WireModel):
    """A URL for the web view to load, with its timeout (None: the web view's default)."""

    url: str
    timeout_ms: int | None = None


@dataclass(frozen=True)
class PaywallPage(WireModel):
    """``paywall.page``: what the host needs to load the paywall's page in a web view."""

    load: PageLoadTarget | None = None
    document_start_script: str = ""
    document_end_style: str = ""
    web_view: dict[str, bool] = field(default_factory=dict)
    background_color_hex: str = "#FFFFFF"
    dark_background_color_hex: str | None = None
    loading_controls_after_ms: int = 5000
    presentation_delay_ms: int = 0


@dataclass(frozen=True)
class Paywall(WireModel):
    """A paywall to show: its info, url, presentation style, products and page."""

    info: PaywallInfo
    url: str | None = None
    presentation_style: PresentationStyle | None = None
    products: list[Product] = field(default_factory=list)
    page: PaywallPage | None = None


@dataclass(frozen=True)
class PaywallPresentation(WireModel):
    """``paywall/present`` and ``getPaywall``: a paywall session the client shows."""

    session_id: str
    paywall: Paywall


@dataclass(frozen=True)
class PaywallDismissal(WireModel):
    """``paywall/dismiss``: take the session's paywall down."""

    session_id: str
    result: PaywallResult
    close_reason: str
    paywall_info: PaywallInfo | None = None


@dataclass(frozen=True)
class PaywallAlert(WireModel):
    """``paywall/showAlert``: an alert over the session's paywall. Open ``action_url`` when
    the user takes the action."""

    session_id: str
    title: str
    message: str
    close_action_title: str
    action_title: str | None = None
    action_url: str | None = None


@dataclass(frozen=True)
class CustomCallback(WireModel):
    """``handler/onCustomCallback``: a paywall asks the app for something."""

    register_id: Any
    name: str
    variables: dict[str, Any] = field(default_factory=dict)
    behavior: str | None = None


@dataclass(frozen=True)
class CustomCallbackResult:
    """The app's answer to a custom callback."""

    status: Literal["success", "failure"]
    data: dict[str, Any] | None = None

    @classmethod
    def success(cls, data: Mapping[str, Any] | None = None) -> CustomCallbackResult:
        return cls("success", dict(data) if data is not None else None)

    @classmethod
    def failure(cls, data: Mapping[str, Any] | None = None) -> CustomCallbackResult:
        return cls("failure", dict(data) if data is not None else None)

    def to_wire(self) -> dict[str, Any]:
        return {"status": self.status, "data": self.data}


# MARK: Purchases


@dataclass(frozen=True)
class StoreTransaction:
    """What the store said of a purchase, reported with ``PurchaseResult.purchased``."""

    transaction_id: str | None = None
    purchase_date: datetime | None = None
    expiration_date: datetime | None = None
    will_renew: bool | None = None
    offer_type: str | None = None
    store: str | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {}
        for key, value in (("transactionId", self.transaction_id), ("willRenew", self.will_renew),
                           ("offerType", self.offer_type), ("store", self.store)):
            if value is not None:
                wire[key] = value
        for key, date in (("purchaseDate", self.purchase_date), ("expirationDate", self.expiration_date)):
            if date is not None:
                wire[key] = format_date(date)
        return wire


@dataclass(frozen=True)
class PurchaseResult(WireModel):
    """A purchase's result: from a purchase controller to the bridge, or from the bridge to ``purchase``."""

    type: Literal["purchased", "cancelled", "pending", "restored", "failed", "timedOut"]
    error: str | None = None
    transaction: StoreTransaction | None = None

    @classmethod
    def purchased(cls, transaction: StoreTransaction | None = None) -> PurchaseResult:
        return cls("purchased", transaction=transaction)

    @classmethod
    def cancelled(cls) -> PurchaseResult:
        return cls("cancelled")

    @classmethod
    def pending(cls) -> PurchaseResult:
        return cls("pending")

    @classmethod
    def restored(cls) -> PurchaseResult:
        return cls("restored")

    @classmethod
    def failed(cls, error: str) -> PurchaseResult:
        return cls("failed", error=error)

    @classmethod
    def from_wire(cls, data: Any) -> PurchaseResult:
        if not isinstance(data, dict):
            raise TypeError("PurchaseResult expects a JSON object")
        error = data.get("error")
        if isinstance(error, dict):
            error = error.get("message")
        return cls(data.get("type", "failed"), error if isinstance(error, str) else None)

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"type": self.type}
        if self.error is not None:
            wire["error"] = self.error
        if self.transaction is not None:
            wire["transaction"] = self.transaction.to_wire()
        return wire


@dataclass(frozen=True)
class RestorationResult:
    """A purchase controller's answer to a restore."""

    type: Literal["restored", "failed"]
    error: str | None = None

    @classmethod
    def restored(cls) -> RestorationResult:
        return cls("restored")

    @classmethod
    def failed(cls, error: str) -> RestorationResult:
        return cls("failed", error)

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type} if self.error is None else {"type": self.type, "error": self.error}


# MARK: Customer info


@dataclass(frozen=True)
class SubscriptionTransaction(WireModel):
    transaction_id: str
    product_id: str
    purchase_date: datetime | None = None
    will_renew: bool = False
    is_revoked: bool = False
    is_in_grace_period: bool = False
    is_in_billing_retry_period: bool = False
    is_active: bool = False
    expiration_date: datetime | None = None
    offer_type: str | None = None
    subscription_group_id: str | None = None
    store: str | None = None


@dataclass(frozen=True)
class NonSubscriptionTransaction(WireModel):
    transaction_id: str
    product_id: str
    purchase_date: datetime | None = None
    is_consumable: bool = False
    is_revoked: bool = False
    store: str | None = None


@dataclass(frozen=True)
class CustomerInfo(WireModel):
    """The user's purchases and entitlements (SuperwallKit's ``CustomerInfo``)."""

    subscriptions: list[SubscriptionTransaction] = field(default_factory=list)
    non_subscriptions: list[NonSubscriptionTransaction] = field(default_factory=list)
    entitlements: list[Entitlement] = field(default_factory=list)
    active_subscription_product_ids: list[str] = field(default_factory=list)
    user_id: str | None = None

    @property
    def active_entitlements(self) -> list[Entitlement]:
        return [e for e in self.entitlements if e.is_active]


# MARK: Identity, configuration, events


@dataclass(frozen=True)
class UserIdentity(WireModel):
    user_id: str
    alias_id: str
    app_user_id: str | None = None
    is_logged_in: bool = False
    seed: int = 0


@dataclass(frozen=True)
class ConfigureWarning(WireModel):
    """A key ``configure`` did not know and ignored."""

    path: str
    message: str


@dataclass(frozen=True)
class ConfigureResult(WireModel):
    configuration_status: Literal["configured", "failed", "pending"]
    user_id: str | None = None
    error: ErrorInfo | None = None
    warnings: list[ConfigureWarning] = field(default_factory=list)


@dataclass(frozen=True)
class ConfigRefresh(WireModel):
    """``refreshConfiguration`` and ``config/didRefresh``: the paywalls added, changed (a new
    ``cache_key``) and removed, or, when ``refreshed`` is false, why the config in use stayed."""

    build_id: str | None = None
    refreshed: bool = False
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    error: ErrorInfo | None = None


@dataclass(frozen=True)
class ServerInfo(WireModel):
    """``initialize``'s answer."""

    protocol_version: str
    server: dict[str, Any] = field(default_factory=dict)
    sdk_version: str | None = None
    methods: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class SuperwallEvent:
    """``delegate/handleSuperwallEvent``: an event the SDK tracked, with SuperwallKit's delegate params."""

    name: str
    id: str | None
    created_at: datetime | None
    params: dict[str, Any]

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> SuperwallEvent:
        raw = data.get("event")
        event: dict[str, Any] = raw if isinstance(raw, dict) else {}
        return cls(str(event.get("name", "")), event.get("id"), parse_date(event.get("createdAt")),
                   dict(data.get("params") or {}))


ExpressionValue = dict[str, Any]
