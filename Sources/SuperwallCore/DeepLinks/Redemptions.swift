import Foundation

/// The work that deep links start: redemptions of web codes, re-redemptions and polls of web
/// entitlements in flight, the calls waiting until none is, and a deep link held until the
/// config is ready.
///
/// Owned by the `Superwall` actor, which is the only one to touch it.
final class Redemptions {
    /// Redemptions (and polls) posted and not yet answered.
    private(set) var inFlight = 0
    /// Calls waiting until no redemption is in flight.
    private let waiters = ParkedContinuations<Void>()
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

    /// Waits until no redemption (or poll) is in flight; each is bounded by its request's
    /// attempts.
    func waitUntilNoneInFlight(isolation: isolated (any Actor)? = #isolation) async {
        guard inFlight > 0 else { return }
        await waiters.wait { inFlight > 0 }
    }

    /// The subscriptions API's redeem request body (camelCase), for the session's user.
    static func body(
        for user: Users,
        deviceId: String,
        codes: [(code: String, firstRedemption: Bool)]
    ) -> JSON {
        [
            "metadata": .object(user.integrationAttributes),
            "deviceId": .string(deviceId),
            "appUserId": user.identity.appUserId.map(JSON.string) ?? .null,
            "aliasId": .string(user.identity.aliasId),
            "codes": .array(codes.map { ["code": .string($0.code), "firstRedemption": .bool($0.firstRedemption)] }),
            "receipts": [],
        ]
    }
}

extension Redemptions {
    /// `<scheme>://superwall/redeem?code=…` and `https://*.superwall.app/app-link/superwall/redeem?…`.
    static func isRedemptionLink(_ url: String) -> Bool {
        guard let components = URLComponents(string: url) else { return false }
        let path = (components.host.map { "/" + $0 } ?? "") + components.path
        return path.hasSuffix("superwall/redeem")
    }
}
