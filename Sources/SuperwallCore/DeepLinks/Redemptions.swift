/// The work that deep links start: redemptions of web codes, re-redemptions and polls of web
/// entitlements in flight, the calls waiting until none is, and a deep link held until the
/// config is ready.
///
/// Owned by the `Superwall` actor, which is the only one to touch it.
final class Redemptions {
    /// Redemptions (and polls) posted and not yet answered.
    private(set) var inFlight = 0
    /// Calls waiting until no redemption is in flight.
    let waiters = ParkedContinuations<Void>()
    /// A deep link that arrived before the config was ready; routed once it is.
    private(set) var pendingDeepLink: DeepLink?

    func begin() {
        inFlight += 1
    }

    /// Keeps `link` until the config is ready, in place of any kept before.
    func hold(_ link: DeepLink) {
        pendingDeepLink = link
    }

    /// The link kept, which is let go.
    func takePendingDeepLink() -> DeepLink? {
        defer { pendingDeepLink = nil }
        return pendingDeepLink
    }

    /// One is over; with none left, the waiters go on.
    func end() {
        inFlight -= 1
        if inFlight == 0 { waiters.resumeAll(()) }
    }
}
