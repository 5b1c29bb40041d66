import Foundation

/// SuperwallKit's `handleDeepLink` and `DeepLinkRouter`.
extension Superwall {
    /// Handles a link the app was opened with; answers whether Superwall handled it.
    ///
    /// Before the config is ready the link is kept (the latest one wins) and routed once it
    /// is, and the answer comes from what is known now: a Superwall link is handled, and so is
    /// any link when the cached config has a `deepLink_open` campaign. Text that is not a URL
    /// is not handled.
    public func handleDeepLink(_ text: String) throws(SuperwallError) -> Bool {
        try answeringWithoutSuspending { () throws(SuperwallError) -> Bool in
            guard let link = DeepLink(text) else { return false }
            guard session?.status == .configured else {
                redemptions.hold(link)
                if link.isUniversalLink || link.redemptionCode != nil { return true }
                if link.debugToken != nil { return false }
                return cachedConfig()?.trigger(for: ImplicitTrigger.deepLinkOpen.rawValue) != nil
            }
            return route(link)
        }
    }

    /// Routes the link kept before the config was ready.
    func routePendingDeepLink() {
        guard let link = redemptions.takePendingDeepLink() else { return }
        _ = route(link)
    }

    /// `DeepLinkRouter.route`: a redemption code is redeemed and nothing else happens;
    /// otherwise a Superwall universal link is mapped to the app's scheme and reported, and
    /// `deepLink_open` is tracked (dismissing the paywall on screen, and presenting its
    /// campaign's paywall when an audience matches).
    private func route(_ link: DeepLink) -> Bool {
        if let code = link.redemptionCode {
            redeem(code: code)
            return true
        }
        var opened = link
        if let target = link.universalLinkTarget {
            host.delegate?.handleSuperwallDeepLink(
                url: target.url.url.absoluteString,
                pathComponents: target.pathComponents,
                queryParameters: target.queryParameters
            )
            opened = target.url
        }
        track(ImplicitTrigger.deepLinkOpen.rawValue, opened.eventParameters, custom: opened.queryParameters)
        // A paywall preview opens SuperwallKit's debugger, a screen this process does not have:
        // tracked like any link, but not claimed as handled (see `DeepLink.unhandledReason`).
        if link.debugToken != nil { return false }
        if link.isUniversalLink { return true }
        return session?.config?.trigger(for: ImplicitTrigger.deepLinkOpen.rawValue) != nil
    }

    /// The last config fetched, as kept in the data directory.
    func cachedConfig() -> Config? {
        Self.config(cached: (try? store?.document(.lastConfig)) ?? nil)
    }

    /// The cached config's body, decoded; nil when there is none or it no longer decodes.
    static func config(cached body: Data?) -> Config? {
        body.flatMap { try? Config.decode(from: $0) }
    }
}
