import Executors
import Foundation
import Rules

/// The presentation pipeline's run: its ordered checks (`Superwall+PresentationSteps.swift`),
/// then the showing of the paywall.
extension Superwall {
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

    func open(
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
    func didShow(_ presented: PresentedPaywall, occurrence: Occurrence?) {
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
