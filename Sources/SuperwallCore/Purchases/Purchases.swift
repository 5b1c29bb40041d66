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

    /// Whether test mode's reason is not the one last said, which it becomes.
    func testModeChanges(to reason: TestModeReason?) -> Bool {
        guard reason != announcedTestMode else { return false }
        announcedTestMode = reason
        return true
    }
}
