import Foundation

/// The user's entitlements in SuperwallKit's four views (`EntitlementsInfo`).
public struct EntitlementsInfo: Sendable, Equatable {
    /// Those of the current `.active` status that are active.
    public var active: [Entitlement]
    /// Those known but not active: `all` less `active`.
    public var inactive: [Entitlement]
    /// Every entitlement a product unlocks, and every active one.
    public var all: [Entitlement]
    /// The active ones bought on the web.
    public var web: [Entitlement]
}

/// Customer info and entitlements: who set the subscription status decides how
/// they are derived.
///
/// - The host's purchase controller owns the status: the customer info is SuperwallKit's
///   external-controller variant, recomputed whenever the host sets the status.
/// - The bridge owns it (no controller, or test mode): the status follows the purchases the
///   bridge has recorded and the web's entitlements, and the customer info merges them.
extension Superwall {
    // MARK: Entitlements

    public func entitlements() throws(SuperwallError) -> EntitlementsInfo {
        guard session != nil else { throw .notConfigured }
        return userEntitlements.info(byProductId: entitlementsByProductId)
    }

    /// SuperwallKit's `byProductIds`: what the products unlock, as the user holds it now.
    public func entitlements(forProductIds productIds: [String]) throws(SuperwallError) -> [Entitlement] {
        guard session != nil else { throw .notConfigured }
        let byProductId = entitlementsByProductId
        let known = Dictionary(
            uniqueKeysWithValues: userEntitlements.info(byProductId: byProductId).all.map { ($0.id, $0) }
        )
        let ids = Set(productIds.flatMap { byProductId[$0] ?? [] }.map(\.id))
        return ids.sorted().compactMap { known[$0] }
    }

    /// What the products unlock, as the user holds it now (`Entitlements.byProductId`).
    var entitlementsByProductId: [String: [Entitlement]] {
        session == nil ? [:] : userEntitlements.byProductId(in: session?.config)
    }

    // MARK: Customer info

    /// SuperwallKit's `getCustomerInfo()`: the first value that is not the launch placeholder.
    /// When the host owns the status and has not set one yet, this waits for it, as long as
    /// presentation would (`timeouts.subscriptionStatus`).
    public func customerInfo() async throws(SuperwallError) -> CustomerInfo {
        guard session != nil else { throw .notConfigured }
        let entitlements = userEntitlements
        if !entitlements.customerInfo.isPlaceholder {
            return entitlements.customerInfo.read(by: users.identity.userId)
        }
        let limit = timeouts.subscriptionStatus
        let known = await wait(on: entitlements.customerInfoWaiters, within: limit) {
            self.session != nil && entitlements.customerInfo.isPlaceholder
        }
        guard known, self.session != nil else {
            throw .customerInfoTimeout(limit)
        }
        return entitlements.customerInfo.read(by: users.identity.userId)
    }

    /// Whether the bridge derives the status from the purchases it records, rather than the
    /// host's controller setting it.
    var ownsSubscriptionStatus: Bool {
        guard let session else { return false }
        return !session.usingPurchaseController || isTestModeActive
    }

    /// Adds a completed purchase to the history and derives what follows from it.
    func recordPurchase(_ transaction: PurchaseTransaction) throws(SuperwallError) {
        guard let store else { return }
        try persisting { try userEntitlements.recordPurchase(transaction, in: store) }
        try refreshCustomerInfo()
    }

    /// The wall clock moved on at once (`debug/advanceClock`): entitlements that expired
    /// meanwhile end now, as they would have on the way.
    public func clockDidAdvance() throws(SuperwallError) {
        try answeringWithoutSuspending { () throws(SuperwallError) -> Void in
            try? refreshCustomerInfo()
        }
    }

    /// Recomputes the customer info from its sources; when the bridge owns the status and has
    /// something to derive it from, the status too, unless the host has just set it. A change
    /// is persisted, told to the delegate and tracked as `customerInfo_didChange`.
    /// `webEntitlementsChanged` derives the status even from nothing: a revocation of the
    /// web's entitlements leaves the user inactive.
    func refreshCustomerInfo(derivingStatus: Bool = true, webEntitlementsChanged: Bool = false) throws(SuperwallError) {
        guard let current = session else { return }
        let entitlements = userEntitlements
        let device = entitlements.deviceCustomerInfo(config: current.config, now: clock.now())
        if ownsSubscriptionStatus, derivingStatus,
            let derived = entitlements.derivedStatus(from: device, webEntitlementsChanged: webEntitlementsChanged)
        {
            try applySubscriptionStatus(derived)
        }
        guard let updated = entitlements.derivedCustomerInfo(from: device, ownsStatus: ownsSubscriptionStatus)
        else { return }
        let old = entitlements.customerInfo
        guard updated != old else { return }
        try persisting { try entitlements.setCustomerInfo(updated, in: current.store) }
        self.device.templateInputsChanged()
        // The first value is a change only when it holds something the blank one does not.
        var oldContent = old
        oldContent.isPlaceholder = false
        guard updated != oldContent else { return }
        host.delegate?.customerInfoDidChange(
            from: old.read(by: users.identity.userId),
            to: updated.read(by: users.identity.userId)
        )
        track(
            "customerInfo_didChange",
            ["from": .string(old.entitlementsSnapshot), "to": .string(updated.entitlementsSnapshot)]
        )
    }

    // MARK: Subscription status

    /// The status, while a session is open.
    var currentSubscriptionStatus: SubscriptionStatus? {
        session == nil ? nil : userEntitlements.status
    }

    public func subscriptionStatus() throws(SuperwallError) -> SubscriptionStatus {
        guard session != nil else { throw .notConfigured }
        return userEntitlements.status
    }

    /// The host sets the status: it is applied, and the customer info recomputed from it; but
    /// while test mode is on, a status test mode set stands (the host's is logged and left).
    @discardableResult
    public func setSubscriptionStatus(_ status: SubscriptionStatus) throws(SuperwallError) -> SubscriptionStatus {
        try answeringWithoutSuspending { () throws(SuperwallError) -> SubscriptionStatus in
            guard session != nil else { throw .notConfigured }
            if isTestModeActive, let kept = userEntitlements.testModeStatus, status.resolved != kept {
                // SuperwallKit resolves a status set while test mode is on to test mode's own.
                Self.logger.warning(
                    "setSubscriptionStatus(\(status.resolved.wireName)) was not applied: test mode is on, and its status (\(kept.wireName)) stands while it is, as in SuperwallKit"
                )
                return userEntitlements.status
            }
            let applied = try applySubscriptionStatus(status, byHost: true)
            try refreshCustomerInfo(derivingStatus: false)
            return applied
        }
    }

    /// Sets the status (`.active([])` is inactive), persists it, and on a change tells the
    /// delegate and tracks `subscriptionStatus_didChange` and `device_attributes`. A known
    /// status releases presentations waiting for one. One the bridge sets in test mode (not
    /// `byHost`) is test mode's, which then stands against the host's.
    @discardableResult
    func applySubscriptionStatus(
        _ status: SubscriptionStatus,
        byHost: Bool = false
    ) throws(SuperwallError) -> SubscriptionStatus {
        guard let current = session else { throw .notConfigured }
        let new = status.resolved
        if isTestModeActive, !byHost { userEntitlements.testModeSet(new) }
        guard let old = try persisting({ try userEntitlements.setStatus(new, in: current.store) }) else { return new }
        device.templateInputsChanged()
        host.delegate?.subscriptionStatusDidChange(from: old, to: new)
        var parameters: [String: JSON] = ["status": .string(new.wireName)]
        if case .active = new {
            parameters["active_entitlement_ids"] = .string(new.activeEntitlements.map(\.id).joined(separator: ","))
        }
        track("subscriptionStatus_didChange", parameters)
        trackDeviceAttributes()
        return new
    }
}

/// A completed purchase as the history records it.
public enum PurchaseTransaction: Sendable, Equatable {
    case subscription(SubscriptionTransaction)
    case nonSubscription(NonSubscriptionTransaction)
}
