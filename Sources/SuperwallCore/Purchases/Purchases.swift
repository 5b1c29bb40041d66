import Logging

/// The purchase in flight, and the test mode last announced.
///
/// Owned by the `Superwall` actor, which is the only one to touch it.
final class Purchases {
    /// One purchase at a time: `begin()` refuses a second while one is in flight.
    private(set) var inFlight = false
    /// The test mode last logged, so that each change is said once.
    private var announcedTestMode: TestModeReason?

    /// Starts a purchase; `purchaseInProgress` while another is in flight.
    func begin() throws(SuperwallError) {
        guard !inFlight else { throw .purchaseInProgress }
        inFlight = true
    }

    func end() {
        inFlight = false
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
