import Foundation

/// SuperwallKit's `handleDeepLink` and `DeepLinkRouter`.
extension Superwall {
    /// Handles a link the app was opened with; answers whether Superwall handled it.
    public func handleDeepLink(_ text: String) throws(SuperwallError) -> Bool { try openDeepLink(text).handled }

    /// `handleDeepLink`, also answering the `deepLink_open` placement that may present a paywall.
    ///
    /// Before the config is ready the link is kept (the latest one wins) and routed once it
    /// is, and the answer comes from what is known now: a Superwall link is handled, and so is
    /// any link when the cached config has a `deepLink_open` campaign. Text that is not a URL
    /// is not handled.
    public func openDeepLink(_ text: String) throws(SuperwallError) -> DeepLinkOpening {
        try answeringWithoutSuspending { () throws(SuperwallError) -> DeepLinkOpening in
            guard let link = DeepLink(text) else { return DeepLinkOpening(handled: false) }
            guard session?.status == .configured else {
                redemptions.hold(link)
                let cached = store?.cachedConfig(for: session?.referenceSDK ?? .superwallKit)
                return DeepLinkOpening(handled: link.handledWhileHeld(by: cached))
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
    private func route(_ link: DeepLink) -> DeepLinkOpening {
        if let code = link.redemptionCode {
            redeem(code: code)
            return DeepLinkOpening(handled: true)
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
        let event = track(ImplicitTrigger.deepLinkOpen.rawValue, opened.eventParameters, custom: opened.queryParameters)
        return DeepLinkOpening(link, placement: event, campaign: session?.config?.trigger(for: event.name) != nil)
    }
    // MARK: Web codes and entitlements (SuperwallKit's `WebEntitlementRedeemer`)

    /// SuperwallKit's `WebEntitlementRedeemer.redeem(.code)`: posts the code to the
    /// subscriptions API (`http` sources only), and on success takes the web customer info
    /// it answers, whose entitlements join the status. `redemption_start`, then
    /// `redemption_complete` or `redemption_fail`; the delegate hears `willRedeemLink` and
    /// `didRedeemLink`.
    func redeem(code: String) {
        redemptions.begin()
        track("redemption_start")
        host.delegate?.willRedeemLink()
        guard let server = configLoading.backend?.redemption, session != nil else {
            finishRedemption(
                RedemptionResult(
                    code: code,
                    status: .error,
                    message:
                        "Redeeming the code \(code) needs Superwall's subscriptions API, which only the http config source reaches."
                )
            )
            return
        }
        let body = Redemptions.body(
            for: users,
            deviceId: webDeviceId,
            codes: [(code, firstRedemption: !redeemedCodes.contains(code))]
        )
        let request = redeemRequest
        startTask { superwall in
            let (result, webCustomerInfo) = await RedemptionResult.answer(for: code) {
                try await server.redeem(body, request: request)
            }
            superwall.finishRedemption(result, webCustomerInfo: webCustomerInfo)
        }
    }

    private func finishRedemption(_ result: RedemptionResult, webCustomerInfo: CustomerInfo? = nil) {
        defer { redemptions.end() }
        if result.status == .success {
            if let webCustomerInfo { adoptWebCustomerInfo(webCustomerInfo) }
            let redeemed = redeemedCodes
            if !redeemed.contains(result.code) { try? store?.set(redeemed + [result.code], for: .redeemedCodes) }
            track("redemption_complete")
            // SuperwallKit confirms it over the paywall (or its top screen, which a host has
            // not here: without a paywall nothing is shown).
            if session?.showsWebPurchaseConfirmationAlert == true { show(.webPurchaseConfirmed, on: paywalls.open) }
        } else {
            track("redemption_fail", ["error_message": .string(result.message ?? result.status.rawValue)])
        }
        host.delegate?.didRedeemLink(result)
    }

    /// SuperwallKit's `redeem(.existingCodes)` after `identify`: the codes this user already
    /// redeemed are posted again with the identified user, so the web's purchases follow the
    /// account, and the web customer info it answers replaces the stored one. Quiet: no
    /// redemption events or delegate calls, as in SuperwallKit. `http` sources only.
    func redeemExistingCodes() {
        let codes = redeemedCodes
        guard !codes.isEmpty, let server = configLoading.backend?.redemption, session != nil else { return }
        let body = Redemptions.body(
            for: users,
            deviceId: webDeviceId,
            codes: codes.map { ($0, firstRedemption: false) }
        )
        let request = redeemRequest
        redemptions.begin()
        startTask { superwall in
            let response = try? JSONDecoder().decode(
                RedeemResponse.self,
                from: try await server.redeem(body, request: request)
            )
            if let customerInfo = response?.customerInfo { superwall.adoptWebCustomerInfo(customerInfo) }
            superwall.redemptions.end()
        }
    }

    private var redeemRequest: ConfigRequest { apiRequest(retryPolicy: RetryPolicy(maxRetries: 2), attemptTimeout: 30) }

    private var redeemedCodes: [String] { ((try? store?.value(.redeemedCodes)) ?? nil) ?? [] }

    /// Makes `customerInfo` the user's web customer info; its entitlements join the status.
    /// `revoking` derives the status even when it holds none (a poll that found them gone).
    private func adoptWebCustomerInfo(_ customerInfo: CustomerInfo, revoking: Bool = false) {
        userEntitlements.adoptWeb(customerInfo, in: store)
        try? refreshCustomerInfo(webEntitlementsChanged: revoking)
    }

    /// Waits until no redemption is in flight. Each is bounded by its request's attempts.
    public func awaitRedemptions() async {
        await redemptions.waitUntilNoneInFlight()
    }

    /// SuperwallKit's `pollWebEntitlements`: the user's web entitlements from the subscriptions
    /// API (`http` sources only, never in test mode). `force` (the first config) always asks;
    /// otherwise the config's `web2app_config.entitlements_max_age_ms` must be set and have
    /// passed since the last fetch. An empty answer does not replace web entitlements that are
    /// active and not yet expired (a backend artifact, not a revocation, as SuperwallKit reads it).
    func pollWebEntitlements(force: Bool) {
        guard let session, let server = configLoading.backend?.webEntitlements, !isTestModeActive else { return }
        let now = clock.now()
        if !force {
            guard let maxAgeMs = session.config?.web2appConfig?.entitlementsMaxAgeMs else { return }
            if let last = (try? session.store.value(.lastWebEntitlementsFetch)) ?? nil {
                guard now.timeIntervalSince1970 * 1000 - last > Double(maxAgeMs) else { return }
            }
        }
        let deviceId = webDeviceId
        let userId = users.identity.appUserId ?? deviceId
        let request = apiRequest(attemptTimeout: 15)
        redemptions.begin()
        startTask { superwall in
            let fetched = try? await server.fetchWebCustomerInfo(userId: userId, deviceId: deviceId, request: request)
            superwall.finishWebEntitlements(fetched, askedFor: userId, at: now)
        }
    }

    private func finishWebEntitlements(_ fetched: CustomerInfo?, askedFor userId: String, at time: Date) {
        defer { redemptions.end() }
        // A user who changed meanwhile is not the one asked about.
        guard let fetched, let session, (users.identity.appUserId ?? webDeviceId) == userId else { return }
        if fetched.entitlements.isEmpty && userEntitlements.webHoldsUnexpired(at: time) { return }
        try? session.store.set(time.timeIntervalSince1970 * 1000, for: .lastWebEntitlementsFetch)
        guard fetched != userEntitlements.web else { return }
        adoptWebCustomerInfo(fetched, revoking: true)
    }

    /// The device id the subscriptions API knows the device by (`Session.webDeviceId`).
    var webDeviceId: String {
        session?.webDeviceId(of: users.identity) ?? DeviceTemplate.deviceIdPrefix
    }
}
