"""The protocol's types as dataclasses.

The models are generated from ``protocol/openrpc.json`` (``_protocol.py``, by
``scripts/generate/generate_types.py``, with the methods of ``scripts/generate/python_model_helpers.py``); fields
are the wire's camelCase keys in snake_case, and decoding is lenient (``_wire.py``). Each
method's params and result as JSON are in ``wire_types``. What is written here by hand is the
delegate's event, whose wire form is flattened.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Mapping

from .wire_types import BRIDGE_TO_CLIENT_NOTIFICATIONS, BRIDGE_TO_CLIENT_REQUESTS, CLIENT_TO_BRIDGE, ERROR_KINDS, ErrorKind
from ._protocol import (
    Entitlement, SubscriptionStatus, EntitlementsInfo, StorePeriod, IntroductoryOffer, PlayPricingPhase, PlayOfferDetails, StoreDetails, PlayOffer,
    PlayStoreProduct, Product, Variant, Experiment, Assignment, PresentationStyle, PaywallInfo, PaywallResult, SkipReason, ErrorInfo,
    RegisterResult, PresentationResult, PageLoadTarget, PaywallPage, Paywall, PaywallPresentation,
    PaywallDismissal, PreloadedPaywall, PaywallAlert, SurveyOption, Survey, SurveyRequest, SurveyAnswer, CustomCallback, CustomCallbackResult, StoreTransaction, PurchaseResult,
    RestorationResult, SubscriptionTransaction, NonSubscriptionTransaction, CustomerInfo, UserIdentity,
    ConfigureWarning, ConfigureResult, ConfigDiff, ConfigProblem, ConfigRefresh, ServerInfo,
    ExpressionTrace, RuleExplanation, OccurrenceCheck, AudienceCheck, VariantCheck, PaywallCheck, PlacementExplanation,
    PlacementDecision, DecisionChange, DecisionGate, PresentationDecision, RecentDecisions, ClockReading,
)
from ._wire import WireModel, format_date, parse_date

__all__ = [
    "BRIDGE_TO_CLIENT_NOTIFICATIONS", "BRIDGE_TO_CLIENT_REQUESTS", "CLIENT_TO_BRIDGE", "ERROR_KINDS", "ErrorKind", "ExpressionValue",
    "SuperwallEvent", "WireModel", "format_date", "parse_date",
    "Entitlement", "SubscriptionStatus", "EntitlementsInfo", "StorePeriod", "IntroductoryOffer",
    "PlayPricingPhase", "PlayOfferDetails", "StoreDetails", "PlayOffer", "PlayStoreProduct", "Product", "Variant", "Experiment", "Assignment", "PresentationStyle", "PaywallInfo",
    "PaywallResult", "SkipReason", "ErrorInfo", "RegisterResult", "PresentationResult", "PageLoadTarget",
    "PaywallPage", "Paywall", "PaywallPresentation", "PaywallDismissal", "PreloadedPaywall", "PaywallAlert", "SurveyOption", "Survey",
    "SurveyRequest", "SurveyAnswer", "CustomCallback",
    "CustomCallbackResult", "StoreTransaction", "PurchaseResult", "RestorationResult",
    "SubscriptionTransaction", "NonSubscriptionTransaction", "CustomerInfo", "UserIdentity",
    "ConfigureWarning", "ConfigureResult", "ConfigDiff", "ConfigProblem", "ConfigRefresh", "ServerInfo",
    "ExpressionTrace", "RuleExplanation", "OccurrenceCheck", "AudienceCheck", "VariantCheck", "PaywallCheck",
    "PlacementExplanation", "PlacementDecision", "DecisionChange", "DecisionGate", "PresentationDecision", "RecentDecisions", "ClockReading",
]


@dataclass(frozen=True)
class SuperwallEvent:
    """``delegate/handleSuperwallEvent``: an event the SDK tracked, with SuperwallKit's delegate params.

    ``name`` is the raw name (``paywall_open``), ``event`` the wrappers' (SuperwallKit's case
    name, ``paywallOpen``). The typed fields of SuperwallKit's event case come typed where the
    event has them (``paywall_info``, ``product``, ``placement_name``, ...); ``fields`` holds every
    one the bridge sent, as sent.
    """

    name: str
    id: str | None
    created_at: datetime | None
    params: dict[str, Any]
    event: str | None = None
    paywall_info: PaywallInfo | None = None
    product: Product | None = None
    placement_name: str | None = None
    result: str | None = None
    status: str | None = None
    transaction_type: str | None = None
    error: str | None = None
    url: str | None = None
    fields: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> SuperwallEvent:
        raw = data.get("event")
        event: dict[str, Any] = raw if isinstance(raw, dict) else {}

        def text(key: str) -> str | None:
            value = event.get(key)
            return value if isinstance(value, str) else None

        paywall_info = event.get("paywallInfo")
        product = event.get("product")
        return cls(
            str(event.get("name", "")), event.get("id"), parse_date(event.get("createdAt")), dict(data.get("params") or {}),
            event=text("event"),
            paywall_info=PaywallInfo.from_wire(paywall_info) if isinstance(paywall_info, Mapping) else None,
            product=Product.from_wire(product) if isinstance(product, Mapping) else None,
            placement_name=text("placementName"), result=text("result"), status=text("status"),
            transaction_type=text("transactionType"), error=text("error"), url=text("url"),
            fields={key: value for key, value in event.items() if key not in ("name", "id", "createdAt")},
        )


ExpressionValue = dict[str, Any]
