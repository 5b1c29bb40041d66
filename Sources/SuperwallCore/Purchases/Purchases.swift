/// The purchase in flight, and the calls waiting for what the host reports after purchases:
/// the subscription status and the customer info.
///
/// Owned by the `Superwall` actor, which is the only one to touch it.
final class Purchases {
    /// One purchase at a time: `begin()` refuses a second while one is in flight.
    private(set) var inFlight = false
    /// The test mode last logged, so that each change is said once.
    private var announcedTestMode: TestModeReason?
    /// The status test mode last set (SuperwallKit's `overriddenSubscriptionStatus`): while
    /// test mode is on, it stands against a status the host sets.
    private(set) var testModeStatus: SubscriptionStatus?
    /// Calls waiting for the subscription status to be known.
    let statusWaiters = ParkedContinuations<Bool>()
    /// Calls waiting for the host's customer info.
    let customerInfoWaiters = ParkedContinuations<Bool>()

    /// Starts a purchase; `purchaseInProgress` while another is in flight.
    func begin() throws(SuperwallError) {
        guard !inFlight else { throw .purchaseInProgress }
        inFlight = true
    }

    func end() {
        inFlight = false
    }

    /// Whether test mode's reason is not the one last said, which it becomes. Off, test mode's
    /// status goes, as SuperwallKit clears its state when test mode turns off.
    func testModeChanges(to reason: TestModeReason?) -> Bool {
        guard reason != announcedTestMode else { return false }
        announcedTestMode = reason
        if reason == nil { testModeStatus = nil }
        return true
    }

    /// Test mode set the status: it stands against the host's while test mode is on.
    func testModeSet(_ status: SubscriptionStatus) {
        testModeStatus = status
    }
}
