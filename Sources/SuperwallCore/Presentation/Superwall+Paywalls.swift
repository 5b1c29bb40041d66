import Executors
import Foundation
import Logging
import Rules

/// The paywall on screen, from what the user does on it to its closing (with its survey and
/// the implicit triggers that may show the next one), and the paywalls loaded ahead of it.
extension Superwall {
    // MARK: What is on screen

    /// The paywall on screen, as it stands.
    var openPaywall: PresentedPaywall? { paywalls.open }

    /// SuperwallKit's `isPaywallPresented`.
    public var isPaywallPresented: Bool { paywalls.open != nil }

    /// SuperwallKit's `latestPaywallInfo`: the paywall on screen's, else the last dismissed one's.
    public var latestPaywallInfo: PaywallInfo? { paywalls.open?.info ?? paywalls.lastDismissedInfo }

    /// SuperwallKit's `togglePaywallSpinner(isHidden:)`: shows the paywall's spinner
    /// (`manualLoading`) over a ready page, or hides the spinner of a manual load or a
    /// purchase. Answers the loading state asked of the host, nil without a paywall.
    public func togglePaywallSpinner(isHidden: Bool) -> PageLoadingState? {
        guard let paywall = paywalls.open else { return nil }
        let state = paywall.page.loadingState
        if isHidden, state == .manualLoading || state == .loadingPurchase {
            request(.loadingState(.ready), on: paywall)
        } else if !isHidden, state == .ready {
            request(.loadingState(.manualLoading), on: paywall)
        }
        return paywalls.open?.page.loadingState
    }

    /// The session id of the paywall on screen, once it is shown.
    public var openSessionId: String? { paywalls.open.flatMap { $0.isShown && !$0.isClosing ? $0.id : nil } }

    // MARK: What the user does on it

    /// Runs SuperwallKit's logic for a paywall action. Answers the custom callback's result,
    /// the purchase's or the restore's; nil for the rest.
    public func perform(
        _ action: PaywallAction,
        inSession sessionId: String
    ) async throws(SuperwallError) -> PaywallActionResult? {
        try await answering { () async throws(SuperwallError) -> PaywallActionResult? in
            guard session != nil else { throw .notConfigured }
            // The host's answer to `paywall/present` and the user's first action may reach the
            // SDK in either order; the action goes after `paywall_open`, as on a device.
            _ = await wait(on: paywalls.shownWaiters, within: timeouts.presentation) {
                paywalls.open.map { $0.id == sessionId && !$0.isShown } ?? false
            }
            guard let current = paywalls.open, current.id == sessionId, !current.isClosing else {
                throw .paywallSessionNotFound(sessionId)
            }
            switch action {
            case .purchase(let productId):
                return .purchase(try await purchase(productId: productId, from: current))
            case .restore:
                let result = try await restore(from: current)
                guard result == .restored, paywalls.open?.id == current.id else { return .restore(result) }
                let locked = lockedEntitlements(of: current)
                return .restore(
                    result,
                    paywallKept: locked.isEmpty
                        ? .automaticallyDismissOff : .webRestoreOffered(lockedEntitlements: locked)
                )
            case .close:
                await userClosed(current)
            case .custom(let name):
                host.delegate?.handleCustomPaywallAction(name: name)
            case .customPlacement(let name, let params):
                // SuperwallKit's `track` refuses its own events' names, with a log line.
                guard !SuperwallEventNames.all.contains(name) else {
                    Self.pageLogger.warning(
                        "paywall \(current.info.identifier) fired the custom placement \"\(name.prefix(200))\", one of Superwall's own event names; ignored",
                        metadata: [
                            "paywallIdentifier": .string(current.info.identifier),
                            "placement": .string(String(name.prefix(4_096))),
                        ]
                    )
                    return nil
                }
                let event = tracker.makeEvent(
                    name,
                    current.info.placementParameters.merging(
                        ["name": .string(name)],
                        uniquingKeysWith: { _, new in new }
                    ),
                    custom: params.merging(current.info.audienceFilterParameters, uniquingKeysWith: { own, _ in own })
                )
                record(event, offeringImplicitTrigger: false)
                offerImplicitTrigger(.customPlacement, event: event, firedBy: current.id)
            case .openURL(let url):
                host.delegate?.paywallWillOpenURL(url)
            case .openDeepLink(let url):
                // A redemption link is handled where the paywall stays up.
                if !Redemptions.isRedemptionLink(url) {
                    await closePaywall(result: .declined, closeReason: .systemLogic)
                }
                host.delegate?.paywallWillOpenDeepLink(url)
            case .setUserAttributes(let changes):
                host.delegate?.userAttributesDidChange(try setUserAttributes(changes))
            case .requestCallback(let callback):
                return .callback(await customCallback(callback, handler: current.flow.handler))
            case .pageView(let page):
                track(
                    "paywall_page_view",
                    current.info.placementParameters.merging(page, uniquingKeysWith: { _, new in new }),
                    subject: EventSubject(paywallInfo: current.info)
                )
            }
            return nil
        }
    }

    /// SuperwallKit's `dismiss(result: .declined, closeReason: .manualClose)`: the paywall's
    /// survey may be asked first. Then SuperwallKit's decline: when closing would present a
    /// `paywall_decline` paywall (and this paywall is not loop-protected, the rule the implicit
    /// trigger applies too), the implicit trigger replaces it; otherwise it closes as declined
    /// by the user.
    private func userClosed(_ current: PresentedPaywall) async {
        guard await askSurvey(of: current, closingAs: .declined, for: .manualClose), paywalls.open?.id == current.id
        else { return }
        let decline = tracker.makeEvent(
            ImplicitTrigger.paywallDecline.rawValue,
            current.info.placementParameters,
            custom: current.info.audienceFilterParameters,
            subject: EventSubject(paywallInfo: current.info)
        )
        let replaces = await implicitTriggerReplaces(
            current,
            with: decline,
            trigger: .paywallDecline,
            checkingAs: .declineCheck
        )
        record(decline)
        if !replaces { await closePaywall(result: .declined, closeReason: .manualClose) }
    }

    /// Asks the presentation's handler, within `timeouts.customCallback`. No handler, a
    /// handler that takes no callbacks, and a deadline passed all answer failure.
    private func customCallback(
        _ callback: CustomCallback,
        handler: (any PresentationHandler)?
    ) async -> CustomCallbackResult {
        guard let handler, handler.handlesCustomCallbacks else {
            return .failure(
                "No handler takes custom callbacks for this paywall (the client did not declare customCallbacks)."
            )
        }
        let limit = timeouts.customCallback
        return await withDeadline(
            limit,
            fallback: .failure("The custom callback \"\(callback.name)\" was not answered within \(limit).")
        ) {
            await handler.onCustomCallback(callback)
        }
    }

    // MARK: Closing

    /// SuperwallKit's `Superwall.dismiss()`: closes the paywall on screen, if any, as
    /// declined by the SDK (so a non-gated feature is granted).
    public func dismiss() async throws(SuperwallError) {
        try await answering { () async throws(SuperwallError) -> Void in
            await closePaywall(result: .declined, closeReason: .systemLogic)
        }
    }

    /// The host is gone: the paywall on screen closes, so every wait on it ends.
    public func hostDisconnected() async throws(SuperwallError) {
        try await answering { () async throws(SuperwallError) -> Void in
            await closePaywall(result: .declined, closeReason: .systemLogic)
        }
    }

    /// Takes the paywall down: `willDismiss`, the host, `paywall_close`, `didDismiss`, and
    /// the flow's end unless another paywall replaces this one.
    func closePaywall(result: PaywallResult, closeReason: PaywallCloseReason) async {
        guard var closing = paywalls.beginClosing() else { return }
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
        if closeReason != .forNextPaywall { closing.flow.finish(.dismissed(info, result)) }
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
}
