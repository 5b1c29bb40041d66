/// What opening a link did: whether Superwall handled it (SuperwallKit's `handleDeepLink`
/// answer) and the `deepLink_open` placement that may present a paywall.
public struct DeepLinkOpening: Sendable, Equatable {
    public var handled: Bool
    /// The id of the `deepLink_open` event when the config has a campaign for it: the paywall
    /// it presents, if an audience matches, has it as `presentedByPlacementWithId`. Nil when no
    /// campaign can present (a redemption, no campaign, a link held until the config is ready).
    public var placementId: String?

    public init(handled: Bool, placementId: String? = nil) {
        self.handled = handled
        self.placementId = placementId
    }

    /// A routed link whose `deepLink_open` was tracked as `placement`. A paywall preview is
    /// not claimed as handled (it opens SuperwallKit's debugger, a screen this process lacks;
    /// see `DeepLink.unhandledReason`), but its campaign runs like any link's.
    init(_ link: DeepLink, placement: TrackedEvent, campaign: Bool) {
        let handled = link.debugToken == nil && (link.isUniversalLink || campaign)
        self.init(handled: handled, placementId: campaign ? placement.id.uuidString.lowercased() : nil)
    }
}

extension DeepLink {
    /// Whether a link kept until the config is ready is handled, from what is known now: a
    /// Superwall link is, a paywall preview is not, and any other link is when the cached
    /// config has a `deepLink_open` campaign.
    func handledWhileHeld(by cachedConfig: Config?) -> Bool {
        if isUniversalLink || redemptionCode != nil { return true }
        if debugToken != nil { return false }
        return cachedConfig?.trigger(for: ImplicitTrigger.deepLinkOpen.rawValue) != nil
    }
}
