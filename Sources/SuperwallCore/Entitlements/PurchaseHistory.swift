import Foundation

/// The purchases this bridge has seen complete, through the host's controller or in test
/// mode: the headless stand-in for the device's receipt, from which the device's half of
/// the customer info is derived.
public struct PurchaseHistory: Sendable, Equatable, Codable {
    public var subscriptions: [SubscriptionTransaction] = []
    public var nonSubscriptions: [NonSubscriptionTransaction] = []

    public init(subscriptions: [SubscriptionTransaction] = [], nonSubscriptions: [NonSubscriptionTransaction] = []) {
        self.subscriptions = subscriptions
        self.nonSubscriptions = nonSubscriptions
    }

    public var isEmpty: Bool { subscriptions.isEmpty && nonSubscriptions.isEmpty }

    /// The transactions as they stand at `now` (a subscription past its expiry is no longer
    /// active) and the entitlements their products unlock, merged by priority. A consumable
    /// unlocks nothing that lasts; a non-consumable unlocks for life.
    public func customerInfo(entitlementsByProductId: [String: [Entitlement]], now: Date) -> CustomerInfo {
        let subscriptions = subscriptions.map { transaction in
            var current = transaction
            current.isActive = !transaction.isRevoked && (transaction.expirationDate.map { $0 > now } ?? true)
            return current
        }
        var entitlements: [Entitlement] = []
        for transaction in subscriptions {
            let state: Entitlement.State
            if transaction.isRevoked {
                state = .revoked
            } else if !transaction.isActive {
                state = .expired
            } else if transaction.isInGracePeriod {
                state = .inGracePeriod
            } else if transaction.isInBillingRetryPeriod {
                state = .inBillingRetryPeriod
            } else {
                state = .subscribed
            }
            entitlements += (entitlementsByProductId[transaction.productId] ?? []).map {
                Entitlement(
                    id: $0.id,
                    isActive: transaction.isActive,
                    productIds: [transaction.productId],
                    latestProductId: transaction.productId,
                    store: transaction.store,
                    startsAt: transaction.purchaseDate,
                    expiresAt: transaction.expirationDate,
                    isLifetime: false,
                    willRenew: transaction.willRenew && transaction.isActive,
                    state: state,
                    offerType: transaction.offerType
                )
            }
        }
        for transaction in nonSubscriptions where !transaction.isConsumable {
            entitlements += (entitlementsByProductId[transaction.productId] ?? []).map {
                Entitlement(
                    id: $0.id,
                    isActive: !transaction.isRevoked,
                    productIds: [transaction.productId],
                    latestProductId: transaction.productId,
                    store: transaction.store,
                    startsAt: transaction.purchaseDate,
                    isLifetime: true,
                    state: transaction.isRevoked ? .revoked : nil
                )
            }
        }
        return CustomerInfo(
            subscriptions: subscriptions,
            nonSubscriptions: nonSubscriptions,
            entitlements: entitlements.mergedByPriority()
        )
    }
}
