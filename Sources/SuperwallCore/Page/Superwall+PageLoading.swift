/// What the host needs to load a paywall's page, and how its loading goes.
public struct PageBootstrap: Sendable, Equatable {
    /// The URL to load first, with its timeout; nil when the paywall has none to load (the
    /// presentation then ends with `webViewFailedToLoad`).
    public var load: PageLoadTarget?
    /// Evaluated at document start in the main frame, before the page's own scripts.
    public var documentStartScript: String
    /// Added at document end, on every load: the page is not selectable, and Webflow's badge
    /// is hidden.
    public var documentEndStyle: String
    public var scrollEnabled: Bool
    public var textInteraction: Bool
    /// Sub-frames may navigate after the load (`enable_iframe_navigation`); every other
    /// navigation but a reload is blocked once the page has loaded.
    public var allowsSubframeNavigation: Bool
    /// `on_device_cache`: load from the cache when it has the page.
    public var prefersCache: Bool
    public var backgroundColorHex: String
    public var darkBackgroundColorHex: String?
    /// When the host shows its reload and exit controls over a page still loading.
    public var loadingControlsAfterMs: Int
}

/// A URL for the host to load.
public struct PageLoadTarget: Sendable, Equatable {
    public var url: String
    /// nil: the web view's own default.
    public var timeoutMs: Int?
}

/// What the host reports of a load (`paywall/pageLoad`).
public enum PageLoadOutcome: Sendable, Equatable {
    /// The navigation finished, with the HTTP status when the host knows it.
    case finished(httpStatus: Int?)
    case failed(String)
    /// The web content process died.
    case processTerminated
    /// The user took the exit control shown over a page that does not load.
    case exit
}

/// What the host does next.
public enum PageLoadInstruction: Sendable, Equatable {
    /// Nothing: the page will say `ping` when it is ready.
    case wait
    case load(PageLoadTarget)
    case reload
    /// The paywall is closing (`webViewFailedToLoad`, or the exit control).
    case close
}

extension Superwall {
    /// The page of a paywall being opened: its loader, its first target, and what the host
    /// needs to load it; tracks `paywallWebviewLoad_start`.
    func startLoadingPage(of paywall: inout PresentedPaywall) -> PageBootstrap {
        var loader = pageLoader(for: paywall.paywall)
        paywall.info.loadTimes.webViewStart = clock.now()
        track(
            "paywallWebviewLoad_start",
            paywall.info.placementParameters,
            subject: EventSubject(paywallInfo: paywall.info)
        )
        let first = loader.start(random: random)
        paywall.page.loader = loader
        return pageBootstrap(of: paywall.paywall, loading: try? first.get())
    }

    func pageLoader(for paywall: Paywall) -> PageLoader {
        PageLoader(
            paywall: paywall,
            usesEndpoints: session?.config?.featureFlags.isEnabled("enable_multiple_paywall_urls") ?? false
        )
    }

    /// What the host needs to load `paywall`'s page, starting with `first`.
    func pageBootstrap(of paywall: Paywall, loading first: PageLoadTarget?) -> PageBootstrap {
        let flags = session?.config?.featureFlags ?? FeatureFlags()
        let locale = deviceAttributes()["deviceLocale"]?.stringValue ?? "en_US"
        let preload = JSON.object(["deviceLocale": .string(locale)]).jsonText
        return PageBootstrap(
            load: first,
            documentStartScript: "window.__SW_DEVICE_PRELOAD__ = \(preload);",
            documentEndStyle:
                "*{-webkit-touch-callout:none;-webkit-user-select:none;user-select:none}.w-webflow-badge{display:none!important}",
            scrollEnabled: paywall.isScrollEnabled,
            textInteraction: flags.isEnabled("enable_text_interaction"),
            allowsSubframeNavigation: flags.isEnabled("enable_iframe_navigation"),
            prefersCache: paywall.onDeviceCacheEnabled,
            backgroundColorHex: paywall.backgroundColorHex,
            darkBackgroundColorHex: paywall.darkBackgroundColorHex,
            loadingControlsAfterMs: 5000
        )
    }

    /// The host reports how a load of paywall `sessionId`'s page went; answers what it does
    /// next. A page that cannot load closes the paywall as declined with
    /// `webViewFailedToLoad`, as SuperwallKit does: never a hang.
    public func pageLoadDidEnd(
        _ outcome: PageLoadOutcome,
        inSession sessionId: String
    ) async throws(SuperwallError) -> PageLoadInstruction {
        try await answering { () async throws(SuperwallError) -> PageLoadInstruction in
            guard session != nil else { throw .notConfigured }
            guard let current = paywalls.open, current.id == sessionId, !current.isClosing else {
                throw .paywallSessionNotFound(sessionId)
            }
            let subject = EventSubject(paywallInfo: current.info)
            switch outcome {
            case .finished(let status?) where status >= 400:
                return await loadFailed("The network failed with error code \(status).", current)
            case .finished:
                return .wait
            case .failed(let reason):
                return await loadFailed(reason, current)
            case .processTerminated:
                track("paywallWebviewLoad_processTerminated", current.info.placementParameters, subject: subject)
                let reloads = current.page.loader?.processReloads ?? 0
                guard current.isShown, reloads < 3 else {
                    await closePaywall(result: .declined, closeReason: .webViewFailedToLoad)
                    return .close
                }
                paywalls.changeOpen(current.id) { open in
                    open.page.loader?.processReloads = reloads + 1
                    open.page.paywalljsVersion = nil
                }
                return .reload
            case .exit:
                await closePaywall(result: .declined, closeReason: .systemLogic)
                return .close
            }
        }
    }

    /// A load failed: another endpoint, or the end of the paywall.
    private func loadFailed(_ reason: String, _ current: PresentedPaywall) async -> PageLoadInstruction {
        guard var loader = current.page.loader else {
            await closePaywall(result: .declined, closeReason: .webViewFailedToLoad)
            return .close
        }
        let (next, failedURL) = loader.failed(random: random)
        paywalls.changeOpen(current.id) { $0.page.loader = loader }
        trackLoadFailure(reason, urls: failedURL.map { [$0] } ?? [], current)
        switch next {
        case .success(let target):
            track(
                "paywallWebviewLoad_fallback",
                current.info.placementParameters,
                subject: EventSubject(paywallInfo: current.info)
            )
            return .load(target)
        case .failure(let failure):
            if failure.urls != [failedURL].compactMap({ $0 }) {
                trackLoadFailure(failure.message, urls: failure.urls, current)
            }
            await closePaywall(result: .declined, closeReason: .webViewFailedToLoad)
            return .close
        }
    }

    private func trackLoadFailure(_ message: String, urls: [String], _ paywall: PresentedPaywall) {
        var parameters = paywall.info.placementParameters
        parameters["error_message"] = .string(message)
        for (index, url) in urls.enumerated() { parameters["url_\(index)"] = .string(url) }
        track("paywallWebviewLoad_fail", parameters, subject: EventSubject(paywallInfo: paywall.info))
    }
}
