import Logging

/// The purchase in flight, the app's own purchases it said it started (observer mode), and
/// the test mode last announced.
///
/// Owned by the `Superwall` actor, which is the only one to touch it.
final class Purchases {
    /// One purchase at a time: `begin()` refuses a second while one is in flight.
    private(set) var inFlight = false
    /// The test mode last logged, so that each change is said once.
    private var announcedTestMode: TestModeReason?
    /// Observer mode: the products of the purchases the app said it started and has not
    /// reported the end of, oldest first (Superwall-Android's `transactionsInProgress`).
    private var observedStarts: [Product] = []
    /// The most purchases kept waiting for their end: an app that reports starts and never
    /// their ends cannot grow this without bound.
    static let observedStartLimit = 64

    /// Starts a purchase; `purchaseInProgress` while another is in flight.
    func begin() throws(SuperwallError) {
        guard !inFlight else { throw .purchaseInProgress }
        inFlight = true
    }

    func end() {
        inFlight = false
    }

    /// The app started buying `product` itself; beyond `observedStartLimit` the oldest start
    /// is forgotten.
    func observeStart(of product: Product) {
        observedStarts.removeAll { $0.id == product.id }
        observedStarts.append(product)
        if observedStarts.count > Self.observedStartLimit { observedStarts.removeFirst() }
    }

    /// The observed purchase a reported end belongs to: the one of `productId` (its config id
    /// or store identifier), else the latest started, as Superwall-Android takes the last one
    /// in progress. Nil when none was started.
    func takeObservedStart(of productId: String?) -> Product? {
        let index =
            productId.map { id in observedStarts.lastIndex { $0.isNamed(id) } }
            ?? observedStarts.indices.last
        guard let index else { return nil }
        return observedStarts.remove(at: index)
    }

    /// Says when test mode turns on, off, or changes reason: at warning level while it is on,
    /// since every purchase is then simulated and the purchase controller is never asked.
    /// Answers whether the reason is not the one last said, which it becomes.
    func announceTestMode(_ reason: TestModeReason?) -> Bool {
        guard reason != announcedTestMode else { return false }
        announcedTestMode = reason
        if let reason {
            Superwall.logger.warning(
                "test mode is on (\(reason.message)): purchases and restores are simulated, entitlements are granted without a store, the purchase controller is not called, and device.isSandbox is \"true\""
            )
        } else {
            Superwall.logger.notice("test mode is off: purchases go to the purchase controller again")
        }
        return true
    }
}
