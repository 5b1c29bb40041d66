/// Test mode's simulated purchases and restores, with the host's choices when it offers them.
extension Superwall {
    /// SuperwallKit's `PurchaseError.testModeFailure`.
    static let simulatedFailure = "Simulated purchase failure (test mode)."

    /// Goes through, unless the host chooses otherwise: abandoned is cancelled, as in
    /// SuperwallKit, and an answer that does not come within the purchase deadline fails it.
    func simulatedPurchase(of product: Product) async -> PurchaseAnswer {
        guard let chooser = host.testModeChooser, chooser.offersChoices else { return PurchaseAnswer(.purchased) }
        let limit = timeouts.purchase
        let choice = await withDeadline(limit, fallback: .unavailable(reason: "No choice came within \(limit).")) {
            await chooser.choosePurchaseOutcome(for: product)
        }
        switch choice {
        case .chosen(.purchased): return PurchaseAnswer(.purchased)
        case .chosen(.abandoned): return PurchaseAnswer(.cancelled)
        case .chosen(.failed): return PurchaseAnswer(.failed(Self.simulatedFailure))
        case .unavailable(let reason):
            Self.logger.warning(
                "the simulated purchase of \(product.id) failed: test mode's outcome was not chosen. \(reason)"
            )
            return PurchaseAnswer(.failed("Test mode's outcome was not chosen. \(reason)"))
        }
    }

    /// Re-derives the status from what test mode bought, unless the host chooses the
    /// entitlements: then, as SuperwallKit's restore drawer, they replace what test mode
    /// bought, and the restore counts only when it found one. A cancelled choice fails it.
    /// Only entitlements the config's products grant can be restored, as the drawer offers no
    /// others: any other id chosen is left out, with a warning naming it.
    func simulatedRestore() async throws(SuperwallError) -> RestorationResult {
        guard let chooser = host.testModeChooser, chooser.offersChoices else {
            try refreshCustomerInfo()
            return .restored
        }
        let available = configEntitlementIds
        let limit = timeouts.restore
        let choice = await withDeadline(limit, fallback: .unavailable(reason: "No choice came within \(limit).")) {
            await chooser.chooseRestoredEntitlements(from: available)
        }
        switch choice {
        case .chosen(let chosen?):
            try replaceSimulatedEntitlements(with: offered(chosen, from: available))
            return .restored
        case .chosen(nil):
            return .failed("The simulated restore was cancelled.")
        case .unavailable(let reason):
            Self.logger.warning("the simulated restore failed: its entitlements were not chosen. \(reason)")
            return .failed("Test mode's restored entitlements were not chosen. \(reason)")
        }
    }

    /// The chosen ids that were offered, once each, in the order chosen.
    private func offered(_ chosen: [String], from available: [String]) -> [String] {
        let availableSet = Set(available)
        var seen = Set<String>()
        let kept = chosen.filter { availableSet.contains($0) && seen.insert($0).inserted }
        let strangers = chosen.filter { !availableSet.contains($0) }
        if !strangers.isEmpty {
            let named = strangers.prefix(5).map { "\"\($0)\"" }.joined(separator: ", ")
            Self.logger.warning(
                "the simulated restore left out \(strangers.count) entitlement(s) the config's products do not grant (\(named)\(strangers.count > 5 ? ", …" : "")); it restores only those offered in availableEntitlements"
            )
        }
        return kept
    }

    /// Every entitlement the config's products grant, in the order first met.
    private var configEntitlementIds: [String] {
        var seen = Set<String>()
        return (session?.config?.products ?? []).flatMap(\.entitlements).map(\.id).filter { seen.insert($0).inserted }
    }

    private func replaceSimulatedEntitlements(with ids: [String]) throws(SuperwallError) {
        guard let store else { return }
        try persisting { try store.set(PurchaseHistory(), for: .purchaseHistory) }
        session?.purchaseHistory = PurchaseHistory()
        _ = try applySubscriptionStatus(ids.isEmpty ? .inactive : .active(Set(ids.map(Entitlement.init(id:)))))
        try refreshCustomerInfo(derivingStatus: false)
    }
}
