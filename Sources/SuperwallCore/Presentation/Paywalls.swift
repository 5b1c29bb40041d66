import Executors
import Foundation

/// The paywalls: the one on screen, those loaded and preloading, the presentations waiting
/// their turn, and the work around them (page effects).
///
/// Owned by the `Superwall` actor, which is the only one to touch it.
final class Paywalls {
    /// The paywall on screen; one at a time.
    private(set) var open: PresentedPaywall?
    /// The info of the last paywall dismissed, as it was when it began to close.
    private(set) var lastDismissedInfo: PaywallInfo?
    /// Presentations, one at a time in the order they were asked for.
    let presentationQueue = TurnQueue()
    /// Paywalls loaded so far, with the presentation id each load was given.
    private(set) var loaded: [String: LoadedPaywall] = [:]
    /// The last preload started: each waits for the one before.
    private(set) var preloading: Task<[String], Never>?
    /// The last page effect asked of the host: each waits for the one before, so that the
    /// host sees them in order without the page's messages waiting on them.
    private(set) var pageEffects: Task<Void, Never>?
    /// Actions on a paywall the host has shown but the SDK has not yet marked shown (its
    /// `paywall_open` not yet tracked): they wait, as a user cannot tap what has not appeared.
    /// Woken here alone, by `shown` (true) and `closed` (false).
    let shownWaiters = ParkedContinuations<Bool>()

    // MARK: The paywall on screen: opened, shown, closing, closed

    /// `presented` is on screen from now, its page loading.
    func opened(_ presented: PresentedPaywall) {
        open = presented
    }

    /// The host showed the paywall `id`: the actions waiting for it go on, once the actor's
    /// turn that marked it (and tracked `paywall_open`) ends.
    func shown(_ id: String) {
        guard open?.id == id else { return }
        open?.isShown = true
        shownWaiters.resumeAll(true)
    }

    /// Begins to close the paywall on screen: answers it as it was, or nil when none is on
    /// screen or it is closing already.
    func beginClosing() -> PresentedPaywall? {
        guard let closing = open, !closing.isClosing else { return nil }
        open?.isClosing = true
        return closing
    }

    /// `info` is the last dismissed paywall's, as it began to close or as its page left it.
    func dismissed(_ info: PaywallInfo) {
        lastDismissedInfo = info
    }

    /// The paywall `id` is gone (closed, or never shown): another may open, and an action
    /// still waiting for it to be shown is told it will not be.
    func closed(_ id: String) {
        guard open?.id == id else { return }
        open = nil
        shownWaiters.resumeAll(false)
    }

    /// Changes what is kept of the paywall on screen while it is `id`: its page's state, the
    /// survey shown on it.
    func changeOpen(_ id: String, _ change: (inout PresentedPaywall) -> Void) {
        guard open?.id == id else { return }
        change(&open!)
    }

    /// The page of paywall `id` pinged with paywall.js `version` at `now`: it is ready, and
    /// the events held for it go. Answers the paywall as it now stands and those events; nil
    /// when `id` is not on screen.
    func pageDidPing(_ id: String, version: String, at now: Date) -> (PresentedPaywall, held: [String])? {
        guard var paywall = open, paywall.id == id else { return nil }
        paywall.page.paywalljsVersion = version
        paywall.info.paywalljsVersion = version
        if paywall.info.loadTimes.webViewComplete == nil { paywall.info.loadTimes.webViewComplete = now }
        let held = paywall.page.held
        paywall.page.held = []
        open = paywall
        return (paywall, held)
    }

    // MARK: Loading and preloading

    func keepLoaded(_ paywall: LoadedPaywall, as identifier: String) {
        loaded[identifier] = paywall
    }

    /// The paywall loaded before as `identifier` in `locale`, now requested for `request` too;
    /// `isFirstForRequest` when that request had not had it (its load events are then tracked).
    func reuseLoaded(
        _ identifier: String,
        locale: String?,
        for request: String
    ) -> (paywall: LoadedPaywall, isFirstForRequest: Bool)? {
        guard var paywall = loaded[identifier], paywall.locale == locale else { return nil }
        let isFirst = paywall.requestedFor.insert(request).inserted
        if isFirst { loaded[identifier] = paywall }
        return (paywall, isFirst)
    }

    /// A config is in use: a loaded paywall it changed (its cache key) or dropped is let go.
    func configDidChange(_ config: Config) {
        loaded = loaded.filter { config.paywall(identifier: $0.key)?.cacheKey == $0.value.paywall.cacheKey }
    }

    /// Runs `preload` on `executor` once the preloads started before it have ended.
    func queuePreload(
        on executor: OffloadExecutor,
        _ preload: @escaping @Sendable () async -> [String]
    ) -> Task<[String], Never> {
        let previous = preloading
        let turn = Task(executorPreference: executor) {
            _ = await previous?.value
            return await preload()
        }
        preloading = turn
        return turn
    }

    /// What a preload loads, in order: the paywalls of `placements`' triggers (every trigger's
    /// when nil) that `preloadablePaywallIds` chooses, the config's prioritized campaign's
    /// first, and never `shown`, the paywall on screen, which is not reloaded under the user.
    /// SuperwallKit waits 5 s after the prioritized campaign's to spare a phone's network; here
    /// the rest follow at once (see the README's departures).
    static func paywallIdsToPreload(
        for placements: Set<String>?,
        in config: Config,
        assignments: [String: Store.Assignment],
        sparing shown: String?,
        admits: (Audience) -> Bool
    ) -> [String] {
        var triggers = config.triggers
        if let placements { triggers = triggers.filter { placements.contains($0.placementName) } }
        var chosen: [String] = []
        if let prioritized = config.prioritizedCampaignId {
            chosen = preloadablePaywallIds(
                of: triggers.filter { $0.audiences.contains { $0.experimentGroupId == prioritized } },
                in: config,
                assignments: assignments,
                admits: admits
            )
        }
        let prioritized = Set(chosen)
        chosen += preloadablePaywallIds(of: triggers, in: config, assignments: assignments, admits: admits)
            .filter { !prioritized.contains($0) }
        if let shown { chosen.removeAll { $0 == shown } }
        return chosen
    }

    /// SuperwallKit's `ConfigLogic.getActiveTreatmentPaywallIds`: of the triggers the config
    /// lets preload (`disable_preload`), one per campaign, the experiments none of whose
    /// audiences opt out (`preload.behavior`: `NEVER`, or `IF_TRUE` with a rule that does not
    /// admit the user now, by `admits`), and of those the user's treatment variants' paywalls.
    static func preloadablePaywallIds(
        of triggers: [Trigger],
        in config: Config,
        assignments: [String: Store.Assignment],
        admits: (Audience) -> Bool
    ) -> [String] {
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
        // Sets beside the lists: a config of thousands of campaigns made these quadratic.
        var experiments: [String] = []
        var seen = Set<String>()
        var skipped = Set<String>()
        for audience in audiences {
            if seen.insert(audience.experimentId).inserted { experiments.append(audience.experimentId) }
            switch audience.preload.behavior {
            case .always: break
            case .never: skipped.insert(audience.experimentId)
            case .ifTrue: if !admits(audience) { skipped.insert(audience.experimentId) }
            }
        }
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

    // MARK: Work around the paywalls

    /// Runs `effect` on `executor` once the page effects asked before it are done.
    func queuePageEffect(on executor: OffloadExecutor, _ effect: @escaping @Sendable () async -> Void) {
        let previous = pageEffects
        pageEffects = Task(executorPreference: executor) {
            await previous?.value
            await effect()
        }
    }
}
