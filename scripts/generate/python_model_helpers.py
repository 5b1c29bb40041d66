"""The Python models' methods beyond their fields: the constructors and wire forms a client
sends, and derived properties. scripts/generate/generate_types.py copies the methods of each `<Model>Helpers`
class here into the generated model of that name (clients/python/superwall_bridge/_protocol.py),
where they are type-checked; this file is their source, not a module of the package."""


class EntitlementHelpers:
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


class SubscriptionStatusHelpers:
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


class IntroductoryOfferHelpers:
    def to_wire(self) -> dict[str, Any]:
        return {"price": self.price, "period": {"unit": self.period.unit, "count": self.period.count},
                "periodCount": self.period_count, "paymentMode": self.payment_mode}


class StoreDetailsHelpers:
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
        if self.play_offers:
            wire["playOffers"] = [offer.to_wire() for offer in self.play_offers]
        return wire


class PlayPricingPhaseHelpers:
    def to_wire(self) -> dict[str, Any]:
        return {"price": self.price, "period": {"unit": self.period.unit, "count": self.period.count}, "cycles": self.cycles}


class PlayOfferDetailsHelpers:
    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"basePlanId": self.base_plan_id, "offerTags": list(self.offer_tags),
                                "pricingPhases": [phase.to_wire() for phase in self.pricing_phases]}
        if self.offer_id is not None:
            wire["offerId"] = self.offer_id
        return wire


class ErrorInfoHelpers:
    @property
    def kind(self) -> str | None:
        kind = self.data.get("kind")
        return kind if isinstance(kind, str) else None


class CustomCallbackResultHelpers:
    @classmethod
    def success(cls, data: Mapping[str, Any] | None = None) -> CustomCallbackResult:
        return cls("success", dict(data) if data is not None else None)

    @classmethod
    def failure(cls, data: Mapping[str, Any] | None = None) -> CustomCallbackResult:
        return cls("failure", dict(data) if data is not None else None)

    def to_wire(self) -> dict[str, Any]:
        return {"status": self.status, "data": self.data}


class SurveyAnswerHelpers:
    @classmethod
    def response(cls, option_id: str, custom_response: str | None = None) -> SurveyAnswer:
        """The user chose ``option_id``; for the "Other" option (``"000"``), with their text."""
        return cls("response", option_id, custom_response)

    @classmethod
    def close(cls) -> SurveyAnswer:
        """The user took the survey's close button (offered only with ``include_close_option``)."""
        return cls("close")

    def to_wire(self) -> dict[str, Any]:
        if self.type == "response":
            return {"type": "response", "optionId": self.option_id, "customResponse": self.custom_response}
        return {"type": self.type}


class StoreTransactionHelpers:
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


class PurchaseResultHelpers:
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
        """The bridge's result; an error that is an object is read as its message."""
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


class RestorationResultHelpers:
    @classmethod
    def restored(cls) -> RestorationResult:
        return cls("restored")

    @classmethod
    def failed(cls, error: str) -> RestorationResult:
        return cls("failed", error)

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type} if self.error is None else {"type": self.type, "error": self.error}


class CustomerInfoHelpers:
    @property
    def active_entitlements(self) -> list[Entitlement]:
        return [e for e in self.entitlements if e.is_active]


class ExpressionTraceHelpers:
    def node_text(self) -> str:
        """``text → value`` as ``superwall-bridge explain`` prints a node (no value for a literal)."""
        repeated = f" (last of {self.evaluations})" if self.evaluations and self.evaluations > 1 else ""
        if not self.evaluated:
            return f"{self.text}  (not evaluated)"
        if self.error is not None:
            return f"{self.text}  ✗ {self.error}"
        value_text = self.value_text
        if self.value.get("type") == "map" and isinstance(self.value.get("value"), dict):
            value_text = f"{{{len(self.value['value'])} entries}}"  # the user's or the device's: its size says enough
        if value_text is None or value_text == self.text:
            return self.text + repeated
        return f"{self.text}  → {value_text}{repeated}"

    def child_lines(self, indent: str) -> list[str]:
        """The node's children as the lines of a tree, under ``indent``."""
        lines: list[str] = []
        for index, child in enumerate(self.children):
            last = index == len(self.children) - 1
            lines.append(indent + ("└─ " if last else "├─ ") + child.node_text())
            lines.extend(child.child_lines(indent + ("   " if last else "│  ")))
        return lines


class AudienceCheckHelpers:
    def lines(self, number: int, count: int) -> list[str]:
        """The audience's check as ``superwall-bridge explain`` prints it."""
        state = ("not evaluated: an earlier audience matched" if not self.evaluated
                 else "matched" if self.matched else "no match")
        lines = [f"audience {number} of {count}, experiment {self.experiment_id}: {state}"]
        if not self.evaluated:
            return lines + ([f"  rule: {self.expression}"] if self.expression else [])
        if self.compile_error is not None:
            lines += [f"  rule: {self.expression or ''}", f"    does not compile: {self.compile_error}"]
        elif self.rule is None:
            lines.append("  rule: none (everyone matches)")
        else:
            lines.append("  rule: " + self.rule.tree.node_text())
            lines.extend(self.rule.tree.child_lines("    "))
        if self.occurrence is not None:
            occurrence = self.occurrence
            window = f"per {occurrence.interval_minutes} min" if occurrence.interval_minutes is not None else "ever"
            verdict = "allows another" if occurrence.allows_another else "limit reached"
            lines.append(f"  occurrence {occurrence.key}: {occurrence.stored_count} of at most {occurrence.max_count} "
                         f"{window}, {verdict}")
        return lines


class PlacementExplanationHelpers:
    def __str__(self) -> str:
        """The explanation as ``superwall-bridge explain`` prints it: each check of the
        pipeline in order, a rule as the tree of the values its parts took."""
        reason = f" ({self.reason})" if self.reason else ""
        granted = "feature granted" if self.feature_granted else "feature not granted without a purchase"
        outcome = f"outcome: {self.outcome}{reason}, {granted}"
        if not self.placement_found:
            suggestion = f"; did you mean {self.nearest_placement}?" if self.nearest_placement else ""
            return f"placement {self.placement}: no campaign has this placement{suggestion}\n{outcome}\n"
        lines = [f"placement {self.placement}"]
        for number, check in enumerate(self.audiences, 1):
            lines.extend(check.lines(number, len(self.audiences)))
        if self.variant is not None:
            variant = self.variant
            paywall = f", paywall {variant.paywall_identifier}" if variant.paywall_identifier else ""
            lines.append(f"variant {variant.variant_id} ({variant.type}{paywall}) in experiment {variant.experiment_id}, "
                         + ("confirmed" if variant.confirmed else "not confirmed yet"))
        if self.paywall is not None:
            paywall_check = self.paywall
            name = f' "{paywall_check.name}"' if paywall_check.name else ""
            gating = f", {paywall_check.feature_gating}" if paywall_check.feature_gating else ""
            lines.append(f"paywall {paywall_check.identifier}{name}{gating}" if paywall_check.found
                         else f"paywall {paywall_check.identifier}: not in the config")
        lines.append(outcome)
        return "\n".join(lines) + "\n"


class PresentationDecisionHelpers:
    def __str__(self) -> str:
        """The decision as the debug log prints it, a line per gate, then the audiences' rules as
        ``superwall-bridge explain`` prints them."""
        head = f"#{self.sequence} {self.call} {self.placement}"
        lines = [head]
        for gate in self.gates:
            waited = f" [waited {gate.waited_ms:g} ms]" if gate.waited_ms is not None else ""
            lines.append(f"  {'✓' if gate.passed else '✗'} {gate.gate}: {gate.detail}{waited}")
        reason = f" ({self.reason})" if self.reason else ""
        lines.append(f"  outcome: {self.outcome}{reason}")
        for number, check in enumerate(self.audiences or [], 1):
            lines.extend("  " + line for line in check.lines(number, len(self.audiences or [])))
        return "\n".join(lines) + "\n"

    def gate_named(self, name: str) -> DecisionGate | None:
        """The gate of that name (the first, for ``paywallOnScreen``, which may run twice)."""
        return next((gate for gate in self.gates if gate.gate == name), None)
