/// What a session reaches beyond its own data directory: where its config comes from, and
/// the servers of the Superwall API that its source also is. A port the source lacks is nil,
/// and the features behind it (localized paywalls, server assignments, redemption, web
/// entitlements, the events collector) do without, as they do with a local config.
public struct SuperwallBackend: Sendable {
    public var config: any ConfigSource
    /// Serves a paywall in the user's language.
    public var paywalls: (any PaywallServer)?
    /// Holds the users' assignments and is told the confirmed ones.
    public var assignments: (any AssignmentServer)?
    /// Redeems web-checkout codes.
    public var redemption: (any RedemptionServer)?
    /// Knows the users' web entitlements.
    public var webEntitlements: (any WebEntitlementServer)?
    /// Takes the tracked events; without one they go to the data directory's `events.jsonl`.
    public var collector: HTTPConfigSource?
    /// The config's file, which a session may watch for changes.
    public var watchedFile: String?
    /// The config comes over the network: a body that does not decode is tracked
    /// (`networkDecoding_fail`), as SuperwallKit tracks its API's.
    public var fetchesOverTheNetwork: Bool

    public init(
        config: any ConfigSource,
        paywalls: (any PaywallServer)? = nil,
        assignments: (any AssignmentServer)? = nil,
        redemption: (any RedemptionServer)? = nil,
        webEntitlements: (any WebEntitlementServer)? = nil,
        collector: HTTPConfigSource? = nil,
        watchedFile: String? = nil,
        fetchesOverTheNetwork: Bool = false
    ) {
        self.config = config
        self.paywalls = paywalls
        self.assignments = assignments
        self.redemption = redemption
        self.webEntitlements = webEntitlements
        self.collector = collector
        self.watchedFile = watchedFile
        self.fetchesOverTheNetwork = fetchesOverTheNetwork
    }
}
