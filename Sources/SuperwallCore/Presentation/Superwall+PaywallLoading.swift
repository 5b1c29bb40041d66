import Executors
import Foundation
import Logging
import Rules

/// Loading paywalls: for a presentation, and ahead of one (SuperwallKit's preloading).
extension Superwall {
    // MARK: Preloading

    /// SuperwallKit's preloading (`ConfigManager.preloadAllPaywalls`): the paywalls of the
    /// user's treatment variants that an audience could reach are loaded ahead of time, with
    /// their `paywallResponseLoad_*` events, and a host that warms web views is asked to load
    /// their pages (`paywall/preload`). Preloads run one after another, never two at once.
    /// `preloadAllPaywalls`: every placement's. Answers the paywalls chosen, in the order
    /// they were preloaded (the config's prioritized campaign first).
    public func preloadAllPaywalls() async throws(SuperwallError) -> [String] {
        try await answering { () async throws(SuperwallError) -> [String] in
            try await preloadPaywalls(forPlacements: nil)
        }
    }

    /// `preloadPaywalls {placements}`: only those placements' paywalls (nil: all of them).
    public func preloadPaywalls(forPlacements placements: Set<String>?) async throws(SuperwallError) -> [String] {
        try await answering { () async throws(SuperwallError) -> [String] in
            guard session != nil else { throw .notConfigured }
            _ = await waitForConfig()
            return await preload(placements: placements, drawingFrom: random.fork())
        }
    }

    /// SuperwallKit's automatic preload: after the config loads or refreshes, after `reset`
    /// and after server assignments arrive, unless `paywalls.shouldPreload` is false.
    ///
    /// It runs on the offload executor, not the caller's: the caller may be a thread with other
    /// duties, and a preload of thousands of campaigns there would hold them until it ended.
    /// Work that ends in the background gives `forked`, a generator forked when it started: it
    /// draws nothing from the session's own, so what a seeded session draws does not depend on
    /// when an answer lands.
    func preloadIfEnabled(drawingFrom forked: (any RandomSource)? = nil) {
        guard session?.shouldPreload == true else { return }
        let random = forked ?? random.fork()
        _ = startTask { superwall in _ = await superwall.preload(placements: nil, drawingFrom: random) }
    }

    /// Waits until the preloads started so far have ended.
    public func awaitPreloading() async {
        _ = await paywalls.preloading?.value
    }

    /// Waits for the preload before it, then preloads; answers the paywalls it chose.
    /// `random` is the preload's own (`RandomSource.fork`), forked when it was asked for.
    private func preload(placements: Set<String>?, drawingFrom random: any RandomSource) async -> [String] {
        await paywalls.queuePreload(on: offload) { [self] in
            await preloadNow(placements: placements, drawingFrom: random)
        }
        .value
    }

    private func preloadNow(placements: Set<String>?, drawingFrom random: any RandomSource) async -> [String] {
        guard let config = session?.config else { return [] }
        let evaluator = audienceEvaluator(params: [:], placedAt: clock.now())
        let chosen = Paywalls.paywallIdsToPreload(
            for: placements,
            in: config,
            assignments: userAssignments.current,
            sparing: paywalls.open?.paywall.identifier,
            admits: { evaluator?.admits($0) == true }
        )
        let count: [String: JSON] = ["paywall_count": .int(Int64(chosen.count))]
        track("paywallPreload_start", count)
        for identifier in chosen {
            let wasLoaded = paywalls.loaded[identifier] != nil
            guard case .success(let loaded) = await loadPaywall(identifier, for: nil, drawingFrom: random), !wasLoaded
            else { continue }
            await warmPage(of: (session?.selling(loaded) ?? loaded).paywall, drawingFrom: random)
        }
        track("paywallPreload_complete", count)
        return chosen
    }

    /// Asks a host that warms web views to load the paywall's page, within `timeouts.pageEffect`;
    /// a host that fails or does not answer in time only loses the head start.
    private func warmPage(of paywall: Paywall, drawingFrom random: any RandomSource) async {
        guard let presenter = host.presenter, presenter.canPreload else { return }
        var loader = pageLoader(for: paywall)
        let page = pageBootstrap(of: paywall, loading: try? loader.start(random: random).get())
        _ = await withDeadline(timeouts.pageEffect, fallback: false) {
            (try? await presenter.preload(paywall, page: page)) != nil
        }
    }

    /// The paywall by identifier: the config's, or, when the device's locale is one the config
    /// lists and the source serves paywalls, fetched in that locale (`GET
    /// /api/v1/paywall/{identifier}`). Loaded once and then cached until a config changes it or
    /// the locale does.
    /// `placement` is nil for a preload (SuperwallKit's `is_triggered_from_event: false`).
    /// `random` draws its presentation id: a generator of the call's or the preload's own
    /// (`RandomSource.fork`), so that which of them loads a paywall first changes no other draw.
    func loadPaywall(
        _ identifier: String?,
        for placement: String?,
        drawingFrom random: any RandomSource
    ) async -> Result<LoadedPaywall, PresentationError> {
        guard let identifier else { return .failure(.paywallNotFound("the variant names no paywall")) }
        let server = configLoading.backend?.paywalls
        let locale =
            server == nil ? nil : session?.config?.paywallLocale { deviceAttributes()["deviceLocale"]?.stringValue }
        let request = placement ?? ""
        let triggered: [String: JSON] = ["is_triggered_from_event": .bool(placement != nil)]
        if let (loaded, isFirstForRequest) = paywalls.reuseLoaded(identifier, locale: locale, for: request) {
            if isFirstForRequest {
                track("paywallResponseLoad_start", triggered)
                track("paywallResponseLoad_complete", triggered)
            }
            return .success(loaded)
        }
        track("paywallResponseLoad_start", triggered)
        let loadStarted = clock.now()
        let found: Result<Paywall, PaywallLoadFailure>
        if let locale, let server, session != nil {
            let request = apiRequest(retryPolicy: RetryPolicy(maxRetries: 6, delay: retryDelay), attemptTimeout: 15)
            found = await server.paywall(identifier, in: locale, request: request)
        } else {
            found =
                session?.config?.paywall(identifier: identifier).map { .success($0) }
                ?? .failure(.notInConfig(identifier))
        }
        let paywall: Paywall
        switch found {
        case .success(let fetched):
            paywall = fetched
        case .failure(let failure):
            track(failure.eventName, triggered)
            return .failure(failure.error)
        }
        let loaded = LoadedPaywall(
            paywall: paywall,
            presentationId: random.uuid().uuidString.lowercased(),
            locale: locale,
            requestedFor: [request],
            loadStarted: loadStarted,
            loadCompleted: clock.now()
        )
        paywalls.keepLoaded(loaded, as: identifier)
        track("paywallResponseLoad_complete", triggered)
        return .success(loaded)
    }
}
