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
}
