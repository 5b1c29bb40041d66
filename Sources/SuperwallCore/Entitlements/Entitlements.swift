import Foundation

/// The user's subscription status and what it is derived from (SuperwallKit's entitlements
/// and customer-info managers): the status, test mode's own, the purchases recorded here, the
/// web's customer info, the customer info derived from them, and the calls waiting for the
/// status or the customer info to be known. Every change of them is one method here, which
/// persists what it changed and wakes what waits on it; the actor tells the delegate and
/// tracks what a change means.
///
/// Owned by the `Superwall` actor, which is the only one to touch it.
final class Entitlements {
    /// The subscription status, as stored.
    private(set) var status: SubscriptionStatus = .unknown
    /// The status test mode last set (SuperwallKit's `overriddenSubscriptionStatus`): while
    /// test mode is on, it stands against a status the host sets.
    private(set) var testModeStatus: SubscriptionStatus?
    /// The purchases recorded here, the device's half of the customer info.
    private(set) var purchaseHistory = PurchaseHistory()
    /// The web's half, from redeemed web purchases.
    private(set) var web = CustomerInfo()
    /// The last customer info computed; the placeholder until one is.
    private(set) var customerInfo: CustomerInfo = .placeholder
    /// Calls waiting for the subscription status to be known.
    let statusWaiters = ParkedContinuations<Bool>()
    /// Calls waiting for the customer info.
    let customerInfoWaiters = ParkedContinuations<Bool>()

    /// A session opened on `store`: what it holds, and `defaultStatus` if no status is stored.
    func sessionOpened(from store: Store, defaultStatus: SubscriptionStatus) throws {
        status = try store.value(.subscriptionStatus) ?? defaultStatus
        purchaseHistory = try store.value(.purchaseHistory) ?? PurchaseHistory()
        web = try store.value(.webCustomerInfo) ?? CustomerInfo()
        customerInfo = try store.value(.customerInfo) ?? .placeholder
    }

    /// Sets the status (already resolved), persisted; a known one wakes the calls waiting for
    /// one. The status it replaced, or nil when it did not change.
    func setStatus(_ new: SubscriptionStatus, in store: Store) throws -> SubscriptionStatus? {
        let old = status
        guard new != old else { return nil }
        try store.set(new, for: .subscriptionStatus)
        status = new
        if new != .unknown { statusWaiters.resumeAll(true) }
        return old
    }

    /// Test mode set the status: it stands against the host's while test mode is on.
    func testModeSet(_ status: SubscriptionStatus) {
        testModeStatus = status
    }

    /// Test mode turned off: its status goes, as SuperwallKit clears its state.
    func testModeEnded() {
        testModeStatus = nil
    }

    /// Adds a completed purchase to the history, persisted.
    func recordPurchase(_ transaction: PurchaseTransaction, in store: Store) throws {
        var history = purchaseHistory
        switch transaction {
        case .subscription(let subscription): history.subscriptions.append(subscription)
        case .nonSubscription(let purchase): history.nonSubscriptions.append(purchase)
        }
        try store.set(history, for: .purchaseHistory)
        purchaseHistory = history
    }

    /// Forgets the purchases recorded here (test mode's entitlements replaced), persisted.
    func clearPurchaseHistory(in store: Store) throws {
        try store.set(PurchaseHistory(), for: .purchaseHistory)
        purchaseHistory = PurchaseHistory()
    }

    /// The web's customer info is `info` from now on, persisted (best effort: it is fetched
    /// again at the next poll).
    func adoptWeb(_ info: CustomerInfo, in store: Store?) {
        try? store?.set(info, for: .webCustomerInfo)
        web = info
    }

    /// The derived customer info is `info`, persisted; the calls waiting for it are woken.
    func setCustomerInfo(_ info: CustomerInfo, in store: Store) throws {
        try store.set(info, for: .customerInfo)
        customerInfo = info
        customerInfoWaiters.resumeAll(true)
    }

    /// The user was reset: the web's entitlements were theirs (the reset's transaction
    /// removed them from the store). Whether there were any, which the status must lose.
    func userReset() -> Bool {
        let held = !web.entitlements.isEmpty
        web = CustomerInfo()
        return held
    }

    // MARK: What follows from them

    /// Whether the web's entitlements hold one active and unexpired at `time`: an empty answer
    /// of the subscriptions API then is a backend artifact, not a revocation (SuperwallKit).
    func webHoldsUnexpired(at time: Date) -> Bool {
        web.entitlements.contains { $0.isActive && ($0.expiresAt ?? .distantPast) > time }
    }

    /// What the products unlock: the config's map (`Config.entitlementsByProductId`) with what
    /// the customer info says a product unlocked, duplicates merged by priority.
    func byProductId(in config: Config?) -> [String: [Entitlement]] {
        var map = config?.entitlementsByProductId ?? [:]
        for entitlement in customerInfo.entitlements {
            for productId in entitlement.productIds { map[productId, default: []].append(entitlement) }
        }
        return map.mapValues { $0.mergedByPriority() }
    }

    /// SuperwallKit's four views of the entitlements, from what the products unlock.
    func info(byProductId: [String: [Entitlement]]) -> EntitlementsInfo {
        let active = status.activeEntitlements
        let activeIds = Set(active.map(\.id))
        let all = (byProductId.values.joined() + customerInfo.entitlements + active).mergedByPriority()
        return EntitlementsInfo(
            active: active,
            inactive: all.filter { !activeIds.contains($0.id) },
            all: all,
            web: web.entitlements.filter(\.isActive).sorted { $0.id < $1.id }
        )
    }

    /// The device's half of the customer info: the purchases recorded here, with the config's
    /// product map (`Config.entitlementsByProductId`, never the customer info's own, which
    /// must not feed back into it).
    func deviceCustomerInfo(config: Config?, now: Date) -> CustomerInfo {
        purchaseHistory.customerInfo(entitlementsByProductId: config?.entitlementsByProductId ?? [:], now: now)
    }

    /// The status the bridge derives, when it owns the status: the active entitlements of the
    /// device's and the web's halves. Nil when there is nothing to derive it from, unless
    /// `webEntitlementsChanged`: a revocation of the web's entitlements leaves the user inactive.
    func derivedStatus(from device: CustomerInfo, webEntitlementsChanged: Bool) -> SubscriptionStatus? {
        guard webEntitlementsChanged || !purchaseHistory.isEmpty || !web.entitlements.isEmpty else { return nil }
        let active = (device.entitlements + web.entitlements).filter(\.isActive)
        return active.isEmpty ? .inactive : .active(Set(active))
    }

    /// The customer info as the status stands now. The bridge's own status merges the two
    /// halves with it; a host's is SuperwallKit's external-controller variant, and nil while
    /// the host has not said it (the customer info stays the launch placeholder).
    func derivedCustomerInfo(from device: CustomerInfo, ownsStatus: Bool) -> CustomerInfo? {
        guard ownsStatus else {
            return status == .unknown
                ? nil : .forExternalPurchaseController(status: status, device: device, web: web)
        }
        var merged = device.merging(with: web)
        merged.entitlements = (merged.entitlements + status.activeEntitlements).mergedByPriority()
        return merged
    }
}
