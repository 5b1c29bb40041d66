import Executors
import Foundation
import Logging

/// The paywall page's loading: its loader, the bootstrap the host loads it with, and what a
/// load that fails does next.
extension Superwall {
    // MARK: Loading the page

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
        PageBootstrap(
            paywall,
            loading: first,
            flags: session?.config?.featureFlags ?? FeatureFlags(),
            deviceLocale: deviceAttributes()["deviceLocale"]?.stringValue ?? "en_US"
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
