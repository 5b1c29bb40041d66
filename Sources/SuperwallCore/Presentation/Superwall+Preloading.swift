import Foundation

/// SuperwallKit's preloading (`ConfigManager.preloadAllPaywalls`): the paywalls of the
/// user's treatment variants that an audience could reach are loaded ahead of time, with
/// their `paywallResponseLoad_*` events, and a host that warms web views is asked to load
/// their pages (`paywall/preload`). Preloads run one after another, never two at once.
extension Superwall {
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
            return await preload(placements: placements)
        }
    }

    /// SuperwallKit's automatic preload: after the config loads or refreshes, after `reset`
    /// and after server assignments arrive, unless `paywalls.shouldPreload` is false.
    ///
    /// It runs on the offload executor, not the caller's: the caller may be a thread with other
    /// duties, and a preload of thousands of campaigns there would hold them until it ended.
    func preloadIfEnabled() {
        guard session?.shouldPreload == true else { return }
        _ = startTask { superwall in _ = await superwall.preload(placements: nil) }
    }

    /// Waits until the preloads started so far have ended.
    public func awaitPreloading() async {
        _ = await paywalls.preloading?.value
    }

    /// Waits for the preload before it, then preloads; answers the paywalls it chose.
    private func preload(placements: Set<String>?) async -> [String] {
        await paywalls.queuePreload(on: offload) { [self] in await preloadNow(placements: placements) }.value
    }

    private func preloadNow(placements: Set<String>?) async -> [String] {
        guard let config = session?.config else { return [] }
        var triggers = config.triggers
        if let placements { triggers = triggers.filter { placements.contains($0.placementName) } }
        var chosen: [String] = []
        // The prioritized campaign's paywalls first. SuperwallKit then waits 5 s to spare a
        // phone's network; here the rest follow at once (see the README's departures).
        if let prioritized = config.prioritizedCampaignId {
            chosen = preloadablePaywallIds(
                triggers.filter { $0.audiences.contains { $0.experimentGroupId == prioritized } },
                config: config
            )
        }
        let prioritized = Set(chosen)
        chosen += preloadablePaywallIds(triggers, config: config).filter { !prioritized.contains($0) }
        // The paywall on screen is not reloaded under the user.
        if let shown = paywalls.open?.paywall.identifier { chosen.removeAll { $0 == shown } }
        let count: [String: JSON] = ["paywall_count": .int(Int64(chosen.count))]
        track("paywallPreload_start", count)
        for identifier in chosen {
            let wasLoaded = paywalls.loaded[identifier] != nil
            guard case .success(let loaded) = await loadPaywall(identifier, for: nil), !wasLoaded else { continue }
            await warmPage(of: (session?.selling(loaded) ?? loaded).paywall)
        }
        track("paywallPreload_complete", count)
        return chosen
    }

    /// SuperwallKit's `ConfigLogic.getActiveTreatmentPaywallIds`: of the triggers the config
    /// lets preload (`disable_preload`), one per campaign, the experiments none of whose
    /// audiences opt out (`preload.behavior`: `NEVER`, or `IF_TRUE` with a rule that does not
    /// admit the user now), and of those the user's treatment variants' paywalls.
    func preloadablePaywallIds(_ triggers: [Trigger], config: Config) -> [String] {
        if config.preloadingDisabled.all { return [] }
        let disabled = Set(config.preloadingDisabled.placements)
        var campaigns = Set<String>()
        var audiences: [Audience] = []
        for trigger in triggers where !disabled.contains(trigger.placementName) {
            guard let first = trigger.audiences.first, campaigns.insert(first.experimentGroupId).inserted else {
                continue
            }
            audiences += trigger.audiences
        }
        let evaluator = audienceEvaluator(params: [:], placedAt: clock.now())
        // Sets beside the lists: a config of thousands of campaigns made these quadratic.
        var experiments: [String] = []
        var seen = Set<String>()
        var skipped = Set<String>()
        for audience in audiences {
            if seen.insert(audience.experimentId).inserted { experiments.append(audience.experimentId) }
            switch audience.preload.behavior {
            case .always: break
            case .never: skipped.insert(audience.experimentId)
            case .ifTrue: if evaluator?.admits(audience) != true { skipped.insert(audience.experimentId) }
            }
        }
        let assignments = session?.assignments ?? [:]
        var identifiers: [String] = []
        var chosen = Set<String>()
        for experiment in experiments where !skipped.contains(experiment) {
            guard let variant = assignments[experiment]?.variant, variant.kind == .treatment,
                let paywall = variant.paywallIdentifier, chosen.insert(paywall).inserted
            else { continue }
            identifiers.append(paywall)
        }
        return identifiers
    }

    /// Asks a host that warms web views to load the paywall's page, within `timeouts.pageEffect`;
    /// a host that fails or does not answer in time only loses the head start.
    private func warmPage(of paywall: Paywall) async {
        guard let presenter = host.presenter, presenter.canPreload else { return }
        var loader = pageLoader(for: paywall)
        let page = pageBootstrap(of: paywall, loading: try? loader.start(random: random).get())
        _ = await withDeadline(timeouts.pageEffect, fallback: false) {
            (try? await presenter.preload(paywall, page: page)) != nil
        }
    }
}
