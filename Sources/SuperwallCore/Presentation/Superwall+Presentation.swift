import Executors
import Foundation
import Rules

/// The presentation pipeline (SuperwallKit's `PublicPresentation`, `InternalPresentation`
/// and `GetPaywallComponents`), as one ordered function rather than operator chains.
extension Superwall {
    // MARK: Public entry points

    /// SuperwallKit's `register(placement:params:handler:feature:)`. Tracks the placement,
    /// runs the pipeline behind any earlier registers, and answers when the presentation
    /// ends: skipped, dismissed (after the user is done with the paywall) or failed, with
    /// whether the feature is granted.
    /// `decision` is given the decision record once the pipeline has decided, when it asked for
    /// it or the session records every decision (`options.recordDecisions`).
    public func register(
        placement: String,
        params: [String: JSON] = [:],
        hasFeature: Bool = false,
        handler: (any PresentationHandler)? = nil,
        decision: DecisionReceiver? = nil
    ) async throws(SuperwallError) -> PresentationOutcome {
        try await answering { () async throws(SuperwallError) -> PresentationOutcome in
            var (placementData, flow, alreadyPresented) = try startRegister(
                placement,
                params: params,
                hasFeature: hasFeature,
                handler: handler
            )
            placementData.decisionReceiver = decision
            await inPresentationQueue {
                await self.present(placementData, flow: flow, alreadyPresented: alreadyPresented)
            }
            return await flow.completion.value
        }
    }

    /// `register`'s part before its turn. Not inlined, for the reason `audienceSteps` is not.
    @inline(never)
    private func startRegister(
        _ placement: String,
        params: [String: JSON],
        hasFeature: Bool,
        handler: (any PresentationHandler)?
    ) throws(SuperwallError) -> (PlacementData, PresentationFlow, alreadyPresented: Bool) {
        guard session != nil else { throw .notConfigured }
        guard !SuperwallEventNames.all.contains(placement) else { throw .reservedPlacementName(placement) }
        // SuperwallKit decides "already presented" when register is called, not when its
        // turn in the queue comes.
        let alreadyPresented = paywalls.open != nil
        let placementData = trackRegistered(placement, params: params, hasFeature: hasFeature)
        return (placementData, PresentationFlow(handler: handler), alreadyPresented)
    }

    /// Tracks a placement the app registered, as it tracked it last when nothing that decides
    /// its params changed (`RepeatedEvent`), and answers it as the pipeline reads it.
    private func trackRegistered(_ name: String, params: [String: JSON], hasFeature: Bool) -> PlacementData {
        let (event, audienceParameters) = tracker.recordRegistered(
            RegisteredPlacement(name: name, params: params, hasFeature: hasFeature)
        )
        recorded(event)
        return PlacementData(event, audienceParameters: audienceParameters, sourceType: "register")
    }

    /// SuperwallKit's `getPresentationResult(forPlacement:params:)`: what `register` would
    /// do, without tracking the placement or showing anything. Assignments are confirmed
    /// (and a holdout's occurrence recorded) as SuperwallKit does.
    /// `decision`: as `register`'s.
    public func presentationResult(
        for placement: String,
        params: [String: JSON] = [:],
        decision: DecisionReceiver? = nil
    ) async throws(SuperwallError) -> PresentationResult {
        guard session != nil else { throw .notConfigured }
        let event = tracker.makeEvent(placement, custom: params, isSuperwallEvent: false)
        var placementData = PlacementData(event, sourceType: nil)
        placementData.decisionReceiver = decision
        switch await runPipeline(.getPresentationResult, placementData) {
        case .skipped(.placementNotFound): return .placementNotFound
        case .skipped(.noAudienceMatch): return .noAudienceMatch
        case .skipped(.holdout(let experiment)): return .holdout(experiment)
        case .reached(let experiment, _, _, _): return .paywall(experiment)
        case .failed, .presented, .confirmed: return .paywallNotAvailable
        }
    }

    /// SuperwallKit's `getPaywall`: the paywall for a placement, which the host shows
    /// itself. The session opens at once and is driven like any other (`perform`,
    /// `dismiss`); `handler` hears how it ends. Skips and errors throw.
    /// `decision`: as `register`'s.
    public func getPaywall(
        placement: String,
        params: [String: JSON] = [:],
        overrides: PaywallOverrides? = nil,
        handler: (any PresentationHandler)? = nil,
        decision: DecisionReceiver? = nil
    ) async throws(SuperwallError) -> PaywallPresentation {
        try await answering { () async throws(SuperwallError) -> PaywallPresentation in
            guard session != nil else { throw .notConfigured }
            guard !SuperwallEventNames.all.contains(placement) else { throw .reservedPlacementName(placement) }
            if let overrides {
                _ = await waitForConfig()
                if let unknown = overrides.productsByName.values.sorted().first(where: {
                    session?.knownProduct($0) == nil
                }) {
                    throw .productNotFound(unknown)
                }
            }
            let event = track(placement, ["is_feature_gatable": false], custom: params, isSuperwallEvent: false)
            var placementData = PlacementData(event, sourceType: "getPaywall")
            placementData.overrides = overrides
            placementData.decisionReceiver = decision
            switch await runPipeline(.getPaywall, placementData) {
            case .skipped(let reason): throw .paywallSkipped(reason)
            case .failed(let error): throw .presentation(error)
            case .presented(let info):
                throw .presentation(
                    PresentationError(.paywallFailedToLoad, "Unexpected presentation of \(info.identifier).")
                )
            case .confirmed(let experiment):
                throw .presentation(.paywallNotFound("experiment \(experiment.id) was only confirmed"))
            case .reached(_, let info, let paywall, let occurrence):
                guard paywalls.open == nil else { throw .presentation(.alreadyPresented) }
                let (presented, page) = open(
                    info,
                    paywall: paywall,
                    flow: PresentationFlow(handler: handler),
                    placement: placementData,
                    presentedBy: nil
                )
                didShow(presented, occurrence: occurrence)
                return PaywallPresentation(sessionId: presented.id, info: presented.info, paywall: paywall, page: page)
            }
        }
    }

    /// SuperwallKit's `confirmAllAssignments()`: evaluates every placement (with no params)
    /// and confirms the assignments they resolve to, then answers all assignments. Waits for
    /// the confirmations it started.
    public func confirmAllAssignments() async throws(SuperwallError) -> [Store.Assignment] {
        try await answering { () async throws(SuperwallError) -> [Store.Assignment] in
            guard session != nil else { throw .notConfigured }
            if await waitForConfig() == nil, let triggers = session?.config?.triggers {
                track("confirm_all_assignments")
                for trigger in triggers {
                    _ = await runPipeline(
                        .confirmAll,
                        PlacementData(tracker.makeEvent(trigger.placementName), sourceType: nil)
                    )
                }
                for task in userAssignments.confirmationsInFlight.values { await task.value }
            }
            return try assignments()
        }
    }

    /// The last `limit` recorded decisions, oldest first, at most
    /// `PresentationDecision.keptRecently`: with `ConfigureOptions.recordDecisions` (or the
    /// debug log on), every `register`'s, implicit trigger's, `getPaywall`'s and
    /// `getPresentationResult`'s; otherwise those of the calls that asked for theirs.
    public func recentDecisions(limit: Int = PresentationDecision.keptRecently) -> [PresentationDecision] {
        decisions.recent(limit)
    }

    /// The stored assignments, by experiment id.
    public func assignments() throws(SuperwallError) -> [Store.Assignment] {
        guard session != nil else { throw .notConfigured }
        return userAssignments.sortedByExperiment()
    }

    // MARK: The queue

    /// Runs `work` after every presentation queued before it, as SuperwallKit serialises
    /// `register` calls and implicit triggers. Returns when `work` has run.
    func inPresentationQueue(_ work: () async -> Void) async {
        await paywalls.presentationQueue.run(work)
    }

    /// Returns once every presentation asked for before it has run (shown, skipped or failed):
    /// a `register`'s, and an implicit trigger's with no call waiting on it (a deep link's,
    /// `app_launch`'s, a page's custom placement). Answers the paywall on screen then.
    public func presentationsSettled() async -> (sessionId: String, info: PaywallInfo)? {
        await paywalls.presentationQueue.run {}
        return paywalls.open.map { ($0.id, $0.info) }
    }

    /// Waits until every queued presentation has run (tests, and callers that need the
    /// implicit triggers of what they just tracked to have settled).
    public func awaitPresentationQueue() async {
        guard !paywalls.presentationQueue.isEmpty else { return }
        await withCheckedContinuation { paywalls.presentationQueue.waitUntilEmpty(with: $0) }
    }
}
