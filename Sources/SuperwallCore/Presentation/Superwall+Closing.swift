import Executors
import Foundation
import Logging
import Rules

/// A paywall's end: its closing, the survey it may ask first, and the implicit triggers that
/// may show the next paywall in its place.
extension Superwall {
    // MARK: Closing

    /// SuperwallKit's `Superwall.dismiss()`: closes the paywall on screen, if any, as
    /// declined by the SDK (so a non-gated feature is granted). `forNextPaywall`: Android's
    /// `dismissForNextPaywall()` (not granted; a waiting `register` answers all the same).
    public func dismiss(forNextPaywall: Bool = false) async throws(SuperwallError) {
        try await answering { () async throws(SuperwallError) -> Void in
            await closePaywall(result: .declined, closeReason: .appDismissal(forNextPaywall), endingFlow: true)
        }
    }

    /// The host is gone: the paywall on screen closes, so every wait on it ends.
    public func hostDisconnected() async throws(SuperwallError) { try await dismiss() }

    /// Takes the paywall down: `willDismiss`, the host, `paywall_close`, `didDismiss`, and
    /// the flow's end unless another paywall replaces this one (or `endingFlow`: the app asked).
    func closePaywall(result: PaywallResult, closeReason: PaywallCloseReason, endingFlow: Bool = false) async {
        guard var closing = paywalls.beginClosing() else {
            // One already closing (the user's close, as a deep link arrives) is gone on return.
            _ = await wait(on: paywalls.shownWaiters, within: timeouts.presentation) {
                paywalls.open?.isClosing == true
            }
            return
        }
        closing.info.closeReason = closeReason
        var info = closing.info
        let sessionId = closing.id
        closing.flow.handler?.onWillDismiss(info, result: result)
        DecisionLog.paywallPresentation.debug(
            "dismissing paywall \(info.identifier) (session \(sessionId)): \(result), close reason \(closeReason.rawValue)"
        )
        paywalls.dismissed(info)
        host.delegate?.willDismissPaywall(info)
        if let presenter = host.presenter {
            let dismissing = info
            let pageState = await withDeadline(timeouts.presentation, fallback: nil) {
                await presenter.dismiss(
                    sessionId: sessionId,
                    info: dismissing,
                    result: result,
                    closeReason: closeReason
                )
            }
            // SuperwallKit reads the page's state once it is gone; `didDismiss` has it.
            if let pageState {
                info.state = pageState
                paywalls.dismissed(info)
            }
        }
        paywalls.closed(closing.id)
        if closing.page.paywalljsVersion != nil {
            host.presenter?.passToPage(
                PageEvents.lifecycle("paywall_close", paywall: closing.paywall),
                sessionId: sessionId
            )
        }
        var closeParameters = info.placementParameters
        closeParameters["survey_attached"] = .bool(!info.surveys.isEmpty)
        if let survey = closing.survey { closeParameters["survey_presentation"] = .string(survey.rawValue) }
        track(
            "paywall_close",
            closeParameters,
            custom: info.audienceFilterParameters,
            subject: EventSubject(paywallInfo: info)
        )
        host.delegate?.didDismissPaywall(info)
        closing.flow.handler?.onDismiss(info, result: result)
        if endingFlow || closeReason != .forNextPaywall { closing.flow.finish(.dismissed(info, result)) }
    }

    // MARK: Implicit triggers

    /// Queues an event's implicit trigger. Loop protection looks at the paywall on
    /// screen now, when the event happens, not when the queue gets to it.
    /// `firedBy`: the paywall session whose page fired the event, which it may replace only
    /// while that paywall is on screen.
    func offerImplicitTrigger(_ trigger: ImplicitTrigger, event: TrackedEvent, firedBy: String? = nil) {
        let onScreenPresentedBy = paywalls.open?.presentedBy
        let placement = PlacementData(event, sourceType: "implicit", implicitTrigger: trigger)
        // The place in the queue is taken now, so the trigger runs before any later register.
        let ticket = paywalls.presentationQueue.reserve()
        startTask { superwall in
            await superwall.paywalls.presentationQueue.run(ticket) {
                await superwall.handleImplicitTrigger(
                    placement,
                    trigger: trigger,
                    onScreenPresentedBy: onScreenPresentedBy,
                    firedBy: firedBy
                )
            }
        }
    }

    /// Whether `event`'s implicit trigger will close `current` for a paywall of its own
    /// (SuperwallKit's `TrackingLogic.canTriggerPaywall` answering `closePaywallThenTriggerPaywall`).
    func implicitTriggerReplaces(
        _ current: PresentedPaywall,
        with event: TrackedEvent,
        trigger: ImplicitTrigger,
        checkingAs kind: PipelineKind = .implicitCheck
    ) async -> Bool {
        guard current.presentedBy?.isLoopProtected != true,
            case .reached = await runPipeline(
                kind,
                PlacementData(event, sourceType: "implicit", implicitTrigger: trigger)
            )
        else {
            return false
        }
        return paywalls.open?.id == current.id
    }

    private func handleImplicitTrigger(
        _ placement: PlacementData,
        trigger: ImplicitTrigger,
        onScreenPresentedBy: ImplicitTrigger?,
        firedBy: String?
    ) async {
        guard session != nil else { return }
        if trigger == .deepLinkOpen { await closePaywall(result: .declined, closeReason: .systemLogic) }
        guard await waitForConfig() == nil, session?.config?.trigger(for: placement.name) != nil else { return }
        // Protected by the paywall on screen when the event happened, or by the one on screen
        // now (SuperwallKit reads it when the trigger runs).
        if onScreenPresentedBy?.isLoopProtected == true || paywalls.open?.presentedBy?.isLoopProtected == true {
            return
        }
        // A paywall's custom placement replaces that paywall, and nothing once it is gone: a
        // page that fired fifty at once offered each while its own paywall was up, and each
        // replaced the paywall the one before it had shown.
        if let firedBy, paywalls.open?.id != firedBy { return }
        var flow = PresentationFlow(handler: nil)
        if trigger.replacesOpenPaywall {
            guard case .reached = await runPipeline(.implicitCheck, placement) else { return }
            if let current = paywalls.open {
                flow = current.flow
                flow.featureGatingOverride = current.flow.featureGatingOverride ?? current.info.featureGating
                await closePaywall(result: .declined, closeReason: .forNextPaywall)
            }
        } else if paywalls.open != nil {
            return
        }
        await present(placement, flow: flow, alreadyPresented: false)
    }

    // MARK: Surveys

    /// Asks the survey of a paywall that starts to close (`SurveyPrompt`), and records how it
    /// went. Answers false when the user's response presents another paywall in this one's
    /// place: `survey_response`'s implicit trigger then closes this one for the next.
    func askSurvey(
        of current: PresentedPaywall,
        closingAs result: PaywallResult,
        for closeReason: PaywallCloseReason
    ) async -> Bool {
        let prompt = SurveyPrompt(presenter: host.presenter, store: store, random: random, limit: timeouts.survey)
        switch await prompt.ask(of: current, closingAs: result, for: closeReason) {
        case .notAsked:
            return true
        case .heldOut:
            noteSurvey(.holdout, on: current)
            return true
        case .unanswered:
            noteSurvey(.show, on: current)
            return true
        case .answered(let answer, let survey):
            noteSurvey(.show, on: current)
            return await record(answer, to: survey, on: current)
        }
    }

    /// `survey_close`, or `survey_response` with its implicit trigger. An answer the survey
    /// does not allow (an unknown option, "Other" without text, a close it does not offer)
    /// records nothing.
    private func record(_ answer: SurveyAnswer, to survey: Survey, on current: PresentedPaywall) async -> Bool {
        switch answer {
        case .close:
            if survey.includeCloseOption { track("survey_close") }
            return true
        case .response(let optionId, let customResponse):
            guard
                let (parameters, custom) = survey.response(
                    choosing: optionId,
                    customResponse: customResponse,
                    on: current.info
                )
            else { return true }
            let response = tracker.makeEvent(
                ImplicitTrigger.surveyResponse.rawValue,
                parameters,
                custom: custom,
                subject: EventSubject(paywallInfo: current.info)
            )
            let replaces = await implicitTriggerReplaces(current, with: response, trigger: .surveyResponse)
            record(response)
            return !replaces
        }
    }

    private func noteSurvey(_ presentation: SurveyPresentation, on current: PresentedPaywall) {
        paywalls.changeOpen(current.id) { $0.survey = presentation }
    }
}
