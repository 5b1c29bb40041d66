import Logging

/// Test mode's choices: the outcome of a simulated purchase and the entitlements a simulated
/// restore finds, asked of a host that offers them (SuperwallKit's test-mode drawers), each
/// within its deadline.
struct TestModeChoices {
    /// What the host chose for a simulated restore.
    enum Restore: Equatable {
        /// The host offers no choice: the restore re-derives the status from what test mode bought.
        case notOffered
        /// These entitlements, each offered and once, replace what test mode bought.
        case restored([String])
        case cancelled
        /// No choice came: the reason, for the restore's failure.
        case failed(String)
    }

    /// SuperwallKit's `PurchaseError.testModeFailure`.
    static let simulatedFailure = "Simulated purchase failure (test mode)."

    let chooser: (any TestModeChooser)?
    let timeouts: Superwall.Timeouts
    let logger: Logger

    /// Goes through, unless the host chooses otherwise: abandoned is cancelled, as in
    /// SuperwallKit, and an answer that does not come within the purchase deadline fails it.
    func purchase(of product: Product) async -> PurchaseAnswer {
        guard let chooser, chooser.offersChoices else { return PurchaseAnswer(.purchased) }
        let limit = timeouts.purchase
        let choice = await withDeadline(limit, fallback: .unavailable(reason: "No choice came within \(limit).")) {
            await chooser.choosePurchaseOutcome(for: product)
        }
        switch choice {
        case .chosen(.purchased): return PurchaseAnswer(.purchased)
        case .chosen(.abandoned): return PurchaseAnswer(.cancelled)
        case .chosen(.failed): return PurchaseAnswer(.failed(Self.simulatedFailure))
        case .unavailable(let reason):
            logger.warning(
                "the simulated purchase of \(product.id) failed: test mode's outcome was not chosen. \(reason)"
            )
            return PurchaseAnswer(.failed("Test mode's outcome was not chosen. \(reason)"))
        }
    }

    /// The entitlements the host chooses to restore, of `available` (the config's products'):
    /// as SuperwallKit's restore drawer offers no others, any other id chosen is left out,
    /// with a warning naming it.
    func restore(from available: [String]) async -> Restore {
        guard let chooser, chooser.offersChoices else { return .notOffered }
        let limit = timeouts.restore
        let choice = await withDeadline(limit, fallback: .unavailable(reason: "No choice came within \(limit).")) {
            await chooser.chooseRestoredEntitlements(from: available)
        }
        switch choice {
        case .chosen(let chosen?):
            return .restored(offered(chosen, from: available))
        case .chosen(nil):
            return .cancelled
        case .unavailable(let reason):
            logger.warning("the simulated restore failed: its entitlements were not chosen. \(reason)")
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
            logger.warning(
                "the simulated restore left out \(strangers.count) entitlement(s) the config's products do not grant (\(named)\(strangers.count > 5 ? ", …" : "")); it restores only those offered in availableEntitlements"
            )
        }
        return kept
    }
}
