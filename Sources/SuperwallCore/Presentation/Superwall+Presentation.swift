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

    /// Waits until every queued presentation has run (tests, and callers that need the
    /// implicit triggers of what they just tracked to have settled).
    public func awaitPresentationQueue() async {
        guard !paywalls.presentationQueue.isEmpty else { return }
        await withCheckedContinuation { paywalls.presentationQueue.waitUntilEmpty(with: $0) }
    }

    // MARK: Presentation

    /// Runs the pipeline for a flow and, unless a paywall is now on screen (whose dismissal
    /// ends the flow), ends it.
    func present(_ placement: PlacementData, flow: PresentationFlow, alreadyPresented: Bool) async {
        switch await runPipeline(.presentation, placement, flow: flow, alreadyPresented: alreadyPresented) {
        case .skipped(let reason): flow.finish(.skipped(reason))
        case .failed(let error): flow.finish(.failed(error))
        case .presented: break
        case .confirmed(let experiment):
            flow.finish(.failed(.paywallNotFound("experiment \(experiment.id) was only confirmed")))
        case .reached(_, let info, _, _):
            flow.finish(
                .failed(PresentationError(.noPresenter, "The paywall \(info.identifier) was found but not shown."))
            )
        }
    }

    /// The pipeline and the `paywallPresentationRequest` event that reports how it ended.
    /// Inlined into its callers: out of line, its entry costs a hop through the task's
    /// executor on every call.
    @inline(__always)
    func runPipeline(
        _ kind: PipelineKind,
        _ placement: PlacementData,
        flow: PresentationFlow? = nil,
        alreadyPresented: Bool = false
    ) async -> PipelineEnd {
        let recordingAll = recordsDecisions
        let trail = decisions.startTrail(kind, placement, recordingAll: recordingAll)
        let end = await pipelineSteps(kind, placement, flow: flow, alreadyPresented: alreadyPresented, trail: trail)
        if let trail {
            let receiver = placement.decisionReceiver.flatMap {
                $0.wantsDecision(recordingAll: recordingAll) ? $0 : nil
            }
            decisions.finish(trail, with: end, for: receiver)
        }
        guard kind.tracksOutcome else { return end }
        switch end {
        case .skipped(let reason):
            trackPresentationRequest(kind, placement, status: "no_presentation", reason: reason.statusReason)
        case .failed(let error) where error.code != .subscriptionStatusTimeout:
            trackPresentationRequest(kind, placement, status: "no_presentation", reason: error.code.statusReason)
        default:
            break
        }
        return end
    }

    /// SuperwallKit's ordered checks: already presented (102), the config (104), a
    /// known subscription status within the bound (105), the audiences, the assignment, the
    /// paywall (404), the presenter (103), `trigger_fire`, confirmation, then showing it.
    private func pipelineSteps(
        _ kind: PipelineKind,
        _ placement: PlacementData,
        flow: PresentationFlow?,
        alreadyPresented: Bool,
        trail: DecisionTrail?
    ) async -> PipelineEnd {
        if alreadyPresented {
            trail?.paywallOnScreenAtCall = paywalls.open.map(DecisionTrail.OnScreen.init)
            return .failed(.alreadyPresented)
        }
        // What the trail notes across a wait is kept in the trail, not in this frame: every
        // value kept across an `await` enlarges the frame each pipeline allocates.
        let configIsLoading = session?.status == .pending
        if configIsLoading { trail?.startWait() }
        if let error = await waitForConfig() {
            trail?.configFailed(error)
            return .failed(error)
        }
        if let trail { noteConfigLoaded(on: trail) }
        guard await waitForSubscriptionStatus(requestedAt: placement.requestedAt) else {
            trail?.statusWaitEnded(with: currentSubscriptionStatus, bound: timeouts.subscriptionStatus)
            if kind.tracksOutcome {
                trackPresentationRequest(kind, placement, status: "timeout", reason: "subscriptionStatus_timeout")
            }
            return .failed(.subscriptionStatusTimeout(after: timeouts.subscriptionStatus))
        }
        trail?.statusWaitEnded(with: currentSubscriptionStatus, bound: timeouts.subscriptionStatus)
        let decided =
            switch audienceSteps(kind, placement, trail: trail) {
            case .decided(let end): end
            case .offTheActor(let snapshot): await slowAudienceSteps(kind, placement, snapshot, trail: trail)
            }
        switch decided {
        case .ended(let end):
            return end
        case .paywall(let experiment, let result, let occurrence):
            return await paywallSteps(
                kind,
                placement,
                experiment: experiment,
                result: result,
                occurrence: occurrence,
                flow: flow,
                trail: trail
            )
        }
    }

    /// The steps once an experiment has a paywall for the user: loading it, the presenter,
    /// `trigger_fire`, confirmation, then showing it. Not inlined, so that what it keeps
    /// across its waits (the paywall, its info) has no place in the frame of every pipeline.
    @inline(never)
    private func paywallSteps(
        _ kind: PipelineKind,
        _ placement: PlacementData,
        experiment: Experiment,
        result: TriggerResult,
        occurrence: Occurrence?,
        flow: PresentationFlow?,
        trail: DecisionTrail?
    ) async -> PipelineEnd {
        let loaded: LoadedPaywall
        let identifier = experiment.variant.paywallIdentifier
        trail?.startWait()
        // Forked whether or not the paywall is loaded already: a preload that loads it first
        // must not change what a seeded session draws next.
        let lookup = await loadPaywall(identifier, for: placement.name, drawingFrom: random.fork())
        trail?.paywallLookedUp(identifier, lookup)
        switch lookup {
        case .failure(let error): return .failed(error)
        case .success(let paywall): loaded = session?.selling(paywall, with: placement.overrides) ?? paywall
        }
        let info = PaywallInfo(
            presenting: loaded,
            experiment: experiment,
            placement: placement,
            customerInfo: session == nil ? .placeholder : userEntitlements.customerInfo
        )
        switch kind {
        case .getPresentationResult, .implicitCheck, .declineCheck, .confirmAll:
            if kind.confirmsAssignments { confirmAssignment(of: experiment) }
            return .reached(experiment, info, loaded.paywall, unsavedOccurrence: occurrence)
        case .getPaywall:
            trackTriggerFire(placement, result)
            confirmAssignment(of: experiment)
            return .reached(experiment, info, loaded.paywall, unsavedOccurrence: occurrence)
        case .presentation:
            let presenter = host.presenter.flatMap { $0.canPresent ? $0 : nil }
            trail?.presenterDeclared = presenter != nil
            guard let presenter else { return .failed(.noPresenter) }
            trackTriggerFire(placement, result)
            confirmAssignment(of: experiment)
            trackPresentationRequest(kind, placement, status: "presentation", reason: nil)
            if let open = paywalls.open {
                trail?.paywallOnScreenAtShow = DecisionTrail.OnScreen(open)
                return .failed(.alreadyPresented)
            }
            trail?.startWait()
            let end = await show(
                info,
                paywall: loaded.paywall,
                flow: flow ?? PresentationFlow(handler: nil),
                placement: placement,
                occurrence: occurrence,
                presenter: presenter
            )
            trail?.waits.presentation = trail?.endWait()
            return end
        }
    }

    /// Asks the host to show the paywall, within the presentation deadline. The paywall is
    /// open (so nothing else presents) from the moment it is asked.
    func show(
        _ info: PaywallInfo,
        paywall: Paywall,
        flow: PresentationFlow,
        placement: PlacementData,
        occurrence: Occurrence?,
        presenter: any PaywallPresenter
    ) async -> PipelineEnd {
        let (presented, page) = open(
            info,
            paywall: paywall,
            flow: flow,
            placement: placement,
            presentedBy: placement.implicitTrigger
        )
        host.delegate?.willPresentPaywall(presented.info)
        let presentation = PaywallPresentation(
            sessionId: presented.id,
            info: presented.info,
            paywall: paywall,
            page: page
        )
        let limit = timeouts.presentation
        let timedOut: PresentationError? = PresentationError(
            .noPresenter,
            "No Presenter: the host did not show the paywall within \(limit)."
        )
        let failure = await withDeadline(limit, fallback: timedOut) { () async -> PresentationError? in
            do {
                try await presenter.present(presentation)
                return nil
            } catch {
                return PresentationError(.noPresenter, "No Presenter: the host could not show the paywall (\(error)).")
            }
        }
        if let failure {
            paywalls.closed(presented.id)
            return .failed(failure)
        }
        guard paywalls.open?.id == presented.id else { return .presented(presented.info) }
        didShow(presented, occurrence: occurrence)
        // A paywall with no URL to load fails as a page that does not load.
        if page.load == nil { await closePaywall(result: .declined, closeReason: .webViewFailedToLoad) }
        return .presented(presented.info)
    }

    private func open(
        _ info: PaywallInfo,
        paywall: Paywall,
        flow: PresentationFlow,
        placement: PlacementData,
        presentedBy: ImplicitTrigger?
    ) -> (PresentedPaywall, PageBootstrap) {
        var info = info
        info.featureGating = flow.featureGatingOverride ?? paywall.featureGating
        var presented = PresentedPaywall(
            id: random.uuid().uuidString.lowercased(),
            info: info,
            paywall: paywall,
            flow: flow,
            placementParams: placement.params,
            presentedBy: presentedBy
        )
        let page = startLoadingPage(of: &presented)
        paywalls.opened(presented)
        return (presented, page)
    }

    /// What happens once a paywall is on screen: its occurrence counts, `paywall_open`,
    /// the delegate, then the handler.
    private func didShow(_ presented: PresentedPaywall, occurrence: Occurrence?) {
        paywalls.shown(presented.id)
        if let occurrence { recordOccurrence(occurrence) }
        DecisionLog.paywallPresentation.debug(
            "presented paywall \(presented.info.identifier) (session \(presented.id)) for \(presented.info.presentedByPlacementWithName ?? "getPaywall")"
        )
        passToPage("paywall_open", on: presented)
        var parameters = presented.info.placementParameters
        parameters["user_attributes"] = .object(session == nil ? [:] : users.attributes)
        track(
            "paywall_open",
            parameters,
            custom: presented.info.audienceFilterParameters,
            subject: EventSubject(paywallInfo: presented.info)
        )
        host.delegate?.didPresentPaywall(presented.info)
        presented.flow.handler?.onPresent(presented.info)
    }
}
