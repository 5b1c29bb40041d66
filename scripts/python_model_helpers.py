"""The Python models' methods beyond their fields: the constructors and wire forms a client
sends, and derived properties. scripts/generate_types.py copies the methods of each `<Model>Helpers`
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
