"""The protocol's types as dataclasses.

The models are generated from ``protocol/openrpc.json`` (``_protocol.py``, by
``scripts/generate/generate_types.py``, with the methods of ``scripts/generate/python_model_helpers.py``); fields
are the wire's camelCase keys in snake_case, and decoding is lenient (``_wire.py``). Each
method's params and result as JSON are in ``wire_types``. What is written here by hand is the
delegate's event, whose wire form is flattened.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Mapping

from .wire_types import BRIDGE_TO_CLIENT_NOTIFICATIONS, BRIDGE_TO_CLIENT_REQUESTS, CLIENT_TO_BRIDGE, ERROR_KINDS, ErrorKind
from ._protocol import (
    Entitlement, SubscriptionStatus, EntitlementsInfo, StorePeriod, IntroductoryOffer, StoreDetails, PlayOffer,
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
    "StoreDetails", "PlayOffer", "PlayStoreProduct", "Product", "Variant", "Experiment", "Assignment", "PresentationStyle", "PaywallInfo",
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
