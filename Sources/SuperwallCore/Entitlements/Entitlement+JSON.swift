import Foundation

// Entitlements and customer info as rules read them (`device.activeEntitlementObjects`,
// `device.customerInfo`) and the protocol sends them: camelCase keys and enum values,
// ISO-8601 dates, explicit nulls.

extension JSON {
    static func date(_ date: Date?) -> JSON { date.map { .string(ISO8601.string(from: $0)) } ?? .null }
    static func optional(_ text: String?) -> JSON { text.map(JSON.string) ?? .null }
    static func optional(_ flag: Bool?) -> JSON { flag.map(JSON.bool) ?? .null }
}

extension Entitlement.Store {
    /// `appStore`, `playStore`, `superwall`, ...
    public var wireName: String { camelCase(rawValue) }
}

extension Entitlement {
    public var json: JSON {
        [
            "id": .string(id), "type": "serviceLevel", "isActive": .bool(isActive),
            "productIds": .array(productIds.sorted().map(JSON.string)),
            "latestProductId": .optional(latestProductId), "store": .optional(store?.wireName),
            "startsAt": .date(startsAt),
            "renewedAt": .date(renewedAt), "expiresAt": .date(expiresAt), "isLifetime": .optional(isLifetime),
            "willRenew": .optional(willRenew),
            "state": .optional(state?.rawValue), "offerType": .optional(offerType?.rawValue),
            "renewsAt": .date(renewsAt),
            "isRevoked": .bool(isRevoked), "isInGracePeriod": .bool(isInGracePeriod),
        ]
    }
}

extension Entitlement {
    /// The entitlement as SuperwallKit's `Entitlement` encodes itself (`identifier`,
    /// `type: SERVICE_LEVEL`, unknown fields left out), which is how events carry it.
    var encodedAsSuperwallKit: JSON {
        var fields: [String: JSON] = [
            "identifier": .string(id), "type": "SERVICE_LEVEL", "isActive": .bool(isActive),
            "productIds": .array(productIds.sorted().map(JSON.string)),
        ]
        if let latestProductId { fields["latestProductId"] = .string(latestProductId) }
        if let store { fields["store"] = .string(store.rawValue) }
        for (key, date) in [("startsAt", startsAt), ("renewedAt", renewedAt), ("expiresAt", expiresAt)] {
            if let date { fields[key] = .string(ISO8601.string(from: date)) }
        }
        if let isLifetime { fields["isLifetime"] = .bool(isLifetime) }
        if let willRenew { fields["willRenew"] = .bool(willRenew) }
        if let state { fields["state"] = .string(state.rawValue) }
        if let offerType { fields["offerType"] = .string(offerType.rawValue) }
        return .object(fields)
    }
}

extension CustomerInfo {
    /// `customerInfo_didChange`'s `from` and `to`: the entitlements and the placeholder flag,
    /// as JSON text.
    var entitlementsSnapshot: String {
        JSON.object([
            "entitlements": .array(entitlements.map(\.encodedAsSuperwallKit)), "isPlaceholder": .bool(isPlaceholder),
        ]).jsonText
    }
}

extension SubscriptionTransaction {
    public var json: JSON {
        [
            "transactionId": .string(transactionId), "productId": .string(productId),
            "purchaseDate": .date(purchaseDate),
            "willRenew": .bool(willRenew), "isRevoked": .bool(isRevoked), "isInGracePeriod": .bool(isInGracePeriod),
            "isInBillingRetryPeriod": .bool(isInBillingRetryPeriod), "isActive": .bool(isActive),
            "expirationDate": .date(expirationDate),
            "offerType": .optional(offerType?.rawValue), "subscriptionGroupId": .optional(subscriptionGroupId),
            "store": .string(store.wireName),
        ]
    }
}

extension NonSubscriptionTransaction {
    public var json: JSON {
        [
            "transactionId": .string(transactionId), "productId": .string(productId),
            "purchaseDate": .date(purchaseDate),
            "isConsumable": .bool(isConsumable), "isRevoked": .bool(isRevoked), "store": .string(store.wireName),
        ]
    }
}

extension CustomerInfo {
    public var json: JSON {
        [
            "subscriptions": .array(subscriptions.map(\.json)),
            "nonSubscriptions": .array(nonSubscriptions.map(\.json)),
            "entitlements": .array(entitlements.map(\.json)),
            "activeSubscriptionProductIds": .array(activeSubscriptionProductIds.map(JSON.string)),
            "userId": .string(userId),
        ]
    }
}
