import Executors
import Foundation
import Rules

/// The presentation pipeline's steps and the events they track (see `Superwall+Presentation.swift`).
extension Superwall {
    // MARK: Steps

    /// The bounds of the waits on the host: the configured ones, the defaults before configure.
    var timeouts: Timeouts { session?.timeouts ?? Timeouts() }

    /// Waits while the config is loading; nil once it is loaded, `noConfig` if it failed.
    func waitForConfig() async -> PresentationError? {
        while session?.status == .pending {
            await configLoading.waiters.wait { session?.status == .pending }
        }
        switch session?.status {
        case nil: return .noConfig("Superwall is not configured")
        case .failed: return .noConfig(session?.configError?.description ?? "the config failed to load")
        default: return nil
        }
    }

    /// Waits for the status to be known, until `timeouts.subscriptionStatus` after the call
    /// was made: a placement queued behind another that waited does not wait twice.
    func waitForSubscriptionStatus(requestedAt: ContinuousClock.Instant) async -> Bool {
        guard session != nil else { return false }
        let status = userEntitlements.status
        if status != .unknown { return true }
        let remaining = timeouts.subscriptionStatus - (ContinuousClock.now - requestedAt)
        guard remaining > .zero else { return false }
        return await wait(on: userEntitlements.statusWaiters, within: remaining) {
            session != nil && userEntitlements.status == .unknown
        }
    }

    /// Parks the caller with `waiters` while `pending` holds, until they are resumed (true, as
    /// a rule), or answers false once `limit` has passed; answers true at once when `pending`
    /// does not hold.
    ///
    /// `pending` is read here, in the turn that parks: read by the caller before its `await`,
    /// the state it was waiting for could change while the call itself was suspended (the
    /// runtime may enqueue even a call to this same actor), and the wake-up would be lost.
    ///
    /// The deadline resolves the wait itself, from its timer's thread, without coming back to
    /// this actor: an expiry that had to enter the actor first could find it held, and then
    /// wait for whatever thread the actor runs on next.
    func wait(
        on waiters: ParkedContinuations<Bool>,
        within limit: Duration,
        while pending: () -> Bool
    ) async -> Bool {
        guard pending() else { return true }
        let ticket = waiters.ticket()
        let answer = OneShot<Bool>()
        waiters.park(answer, ticket: ticket)
        let timer = DeadlineTimer(after: limit) { answer.resolve(false) }
        let known = await answer.value
        timer.cancel()
        waiters.resume(ticket, with: false)
        return known
    }

    /// What `placement`'s decision reads, as of now (`AudienceSnapshot`).
    func audienceSnapshot(of placement: PlacementData, in config: Config, explains: Bool) -> AudienceSnapshot {
        let trigger = config.trigger(for: placement.name)
        return AudienceSnapshot(
            placement: placement.name,
            config: explains ? config : nil,
            trigger: trigger,
            evaluator: trigger == nil
                ? nil : audienceEvaluator(params: placement.params, placedAt: placement.createdAt),
            assignments: userAssignments.current,
            explains: explains
        )
    }

    /// The evaluator of audiences for a placement with `params` made at `placedAt`: the user,
    /// the device, the params and the placement log as of then.
    /// `userOverlay` replaces attributes for this evaluation only (`explainPlacement`).
    func audienceEvaluator(
        params: [String: JSON],
        placedAt: Date,
        userOverlay: [String: JSON] = [:]
    ) -> AudienceEvaluator? {
        guard let store else { return nil }
        let now = clock.now()
        let attributes =
            userOverlay.isEmpty ? users.attributes : users.attributes.merging(userOverlay) { $1 }
        let context = AudienceContext(
            userAttributes: attributes,
            isLoggedIn: users.identity.isLoggedIn,
            device: deviceTemplate(),
            params: params,
            history: StorePlacementHistory(store: store, now: now)
        )
        return AudienceEvaluator(
            context: context,
            historyBeforePlacement: StorePlacementHistory(store: store, now: placedAt.addingTimeInterval(-0.001)),
            storedOccurrences: { occurrence in
                let since: Date?
                switch occurrence.interval {
                case .minutes(let minutes): since = now.addingTimeInterval(-Double(minutes) * 60)
                case .infinity: since = nil
                }
                return (try? store.occurrenceCount(key: occurrence.key, since: since)) ?? 0
            }
        )
    }

    /// Notes on `trail` the config's wait, and the status the pipeline now waits for, if it is
    /// unknown.
    func noteConfigLoaded(on trail: DecisionTrail) {
        if let wait = trail.endWait() { trail.waits.config = wait }
        trail.statusAtStart = currentSubscriptionStatus
        if trail.statusAtStart == .unknown { trail.startWait() }
    }

    /// Notes on `trail` what the audiences decided, with the values the rules read, as the
    /// decision's snapshot saw them.
    func note(_ decision: AudienceDecision, of snapshot: AudienceSnapshot, on trail: DecisionTrail) {
        trail.triggerResult = decision.result
        switch decision.outcome {
        case .placementNotFound:
            trail.knownPlacements = snapshot.config?.triggers
        case .matched(let audience, let occurrence):
            trail.matchedOccurrence = occurrence
            trail.assignmentWasConfirmed = snapshot.assignments[audience.experimentId]?.isSentToServer
            trail.assignmentOrigin = userAssignments.origins[audience.experimentId] ?? .sticky
        case .noAudienceMatch:
            break
        }
        trail.explanation = decision.explanation
    }

    func recordOccurrence(_ occurrence: Occurrence) {
        try? store?.recordOccurrence(key: occurrence.key, at: clock.now())
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
        if var loaded = paywalls.loaded[identifier], loaded.locale == locale {
            guard !loaded.requestedFor.contains(request) else { return .success(loaded) }
            track("paywallResponseLoad_start", triggered)
            loaded.requestedFor.insert(request)
            paywalls.keepLoaded(loaded, as: identifier)
            track("paywallResponseLoad_complete", triggered)
            return .success(loaded)
        }
        track("paywallResponseLoad_start", triggered)
        let loadStarted = clock.now()
        let paywall: Paywall
        if let locale, let server, session != nil {
            let request = apiRequest(retryPolicy: RetryPolicy(maxRetries: 6, delay: retryDelay), attemptTimeout: 15)
            do {
                paywall = try JSONDecoder().decode(
                    Paywall.self,
                    from: try await server.fetchPaywall(identifier: identifier, locale: locale, request: request)
                )
            } catch NetworkError.notFound {
                track("paywallResponseLoad_notFound", triggered)
                return .failure(.paywallNotFound("the server has no paywall \"\(identifier)\" in \(locale)"))
            } catch {
                track("paywallResponseLoad_fail", triggered)
                return .failure(
                    PresentationError(
                        .paywallFailedToLoad,
                        "The paywall \(identifier) failed to load in \(locale): \(error)."
                    )
                )
            }
        } else {
            guard let configured = session?.config?.paywall(identifier: identifier) else {
                track("paywallResponseLoad_notFound", triggered)
                return .failure(.paywallNotFound("the config has no paywall \"\(identifier)\""))
            }
            paywall = configured
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

    // MARK: Events

    func trackTriggerFire(_ placement: PlacementData, _ result: TriggerResult) {
        if case .noAudienceMatch(let unmatched) = result {
            recorded(
                tracker.recordUnmatchedTriggerFire(UnmatchedPlacement(placement: placement.name, unmatched: unmatched))
                {
                    result.fireParameters(for: placement)
                }
            )
        } else {
            track("trigger_fire", result.fireParameters(for: placement))
        }
    }

    func trackPresentationRequest(_ kind: PipelineKind, _ placement: PlacementData, status: String, reason: String?) {
        let parameters: () -> [String: JSON] = {
            [
                "source_event_name": .string(placement.name), "pipeline_type": .string(kind.wireName),
                "status": .string(status),
                "status_reason": reason.map(JSON.string) ?? "",
            ]
        }
        guard !tracker.sendsExpressionParams else {
            var withExpression = parameters()
            withExpression["expression_params"] = .string(JSON.object(placement.params).jsonText)
            track("paywallPresentationRequest", withExpression)
            return
        }
        recorded(tracker.recordPresentationRequest([placement.name, kind.wireName, status, reason ?? ""], parameters))
    }

    // MARK: Assignments

    /// How many confirmations are being posted now.
    public var confirmationsPending: Int { userAssignments.confirmationsInFlight.count }

    /// Draws what is missing and keeps what is sticky (`AssignmentPlanner`), then persists.
    func chooseAssignments() {
        guard let current = session, let config = current.config else { return }
        userAssignments.configDidChange(config, random: random, store: current.store)
    }

    /// Tells the server which variant the user saw (`POST /api/v1/confirm_assignments`), once
    /// per assignment, when the config comes from a server that takes confirmations. On
    /// failure the assignment stays unconfirmed and the next presentation tries again.
    func confirmAssignment(of experiment: Experiment) {
        guard session != nil, let assignment = userAssignments.needsConfirmation(of: experiment.id),
            let server = configLoading.backend?.assignments
        else { return }
        let confirmation = AssignmentConfirmation(
            experimentId: assignment.experimentId,
            variantId: assignment.variant.id
        )
        let request = apiRequest(attemptTimeout: 10)
        userAssignments.confirming(
            experiment.id,
            in: startTask { superwall in
                let confirmed = (try? await server.confirmAssignments([confirmation], request: request)) != nil
                superwall.confirmationFinished(confirmation, confirmed: confirmed)
            }
        )
    }

    private func confirmationFinished(_ confirmation: AssignmentConfirmation, confirmed: Bool) {
        userAssignments.confirmationFinished(confirmation, confirmed: confirmed, store: store)
    }

    /// SuperwallKit's server assignments (`ConfigLogic.transferAssignments`): the variants the
    /// server holds for the user replace the local ones, as confirmed, when the config still
    /// has the experiment and the variant; the rest is ignored. Only a server that keeps
    /// assignments has any; a config without triggers asks for none. A preload they call for
    /// draws from `random`, forked when the fetch was asked for.
    func fetchServerAssignments(preloadingWith random: (any RandomSource)?) async {
        guard let current = session, let config = current.config, !config.triggers.isEmpty,
            let server = configLoading.backend?.assignments, let random
        else { return }
        let request = apiRequest(attemptTimeout: 10)
        guard let served = try? await server.fetchAssignments(request: request) else { return }
        userAssignments.tookFromServer(AssignmentPlanner.transfer(served, in: config), store: store)
        // The user's variants may have changed, and with them what to preload.
        if !served.isEmpty { preloadIfEnabled(drawingFrom: random) }
    }

    /// `debug/overrideAssignment`: the user is given `variantId` of `experimentId`, as a server
    /// assignment gives it: confirmed, and kept until the experiment or the variant leaves the
    /// config. Either one the config does not have is refused, by name.
    public func overrideAssignment(experimentId: String, variantId: String) throws(SuperwallError) -> Store.Assignment {
        guard let current = session else { throw .notConfigured }
        guard let config = current.config else { throw .configUnavailable("the config has not loaded yet") }
        let assignment = try AssignmentPlanner.override(experimentId, to: variantId, in: config)
        try persisting { try current.store.save(assignment) }
        userAssignments.overridden(assignment)
        return assignment
    }

    // MARK: The audience steps: on the actor, or off it from a snapshot for rules that may be slow

    /// Where the audience steps leave a pipeline: ended, or with a paywall to load.
    enum AudienceStepsEnd {
        case ended(PipelineEnd)
        case paywall(Experiment, TriggerResult, unsavedOccurrence: Occurrence?)
    }

    /// The steps that need no wait: the audiences, then what their result means. Not inlined
    /// into the pipeline, whose frame is on the task's heap-allocated stack: every value the
    /// rules build would have a place in it, kilobytes for every skipped `register`.
    @inline(never)
    func audienceSteps(
        _ kind: PipelineKind,
        _ placement: PlacementData,
        trail: DecisionTrail?
    ) -> AudienceSteps {
        guard let config = session?.config else { return .decided(.ended(.failed(.noConfig("the config is gone")))) }
        let snapshot = audienceSnapshot(of: placement, in: config, explains: explains(kind, trail))
        if snapshot.trigger?.rulesMayBeSlow == true { return .offTheActor(snapshot) }
        return .decided(meaning(of: snapshot.decide(), from: snapshot, kind, placement, trail: trail))
    }

    /// The audience steps as the call's turn leaves them: decided, or to be decided off the
    /// actor from the snapshot the turn took (`slowAudienceSteps`).
    enum AudienceSteps {
        case decided(AudienceStepsEnd)
        case offTheActor(AudienceSnapshot)
    }

    /// Whether a decision of `kind` carries its explanation: for its record, or for the trace
    /// log's rule values of a kind that is not recorded.
    func explains(_ kind: PipelineKind, _ trail: DecisionTrail?) -> Bool {
        trail != nil || (!kind.isRecorded && DecisionLog.tracesRuleValues)
    }

    /// The audience steps of a decision whose rules may be slow: decided off the actor from
    /// the snapshot its turn took, so that a heavy rule holds no other call, then what the
    /// result means, back on the actor.
    @inline(never)
    func slowAudienceSteps(
        _ kind: PipelineKind,
        _ placement: PlacementData,
        _ snapshot: AudienceSnapshot,
        trail: DecisionTrail?
    ) async -> AudienceStepsEnd {
        let decision = await snapshot.decidedOffTheActor()
        return meaning(of: decision, from: snapshot, kind, placement, trail: trail)
    }

    /// What a decision means: noted, logged, tracked and confirmed as its kind asks.
    func meaning(
        of decision: AudienceDecision,
        from snapshot: AudienceSnapshot,
        _ kind: PipelineKind,
        _ placement: PlacementData,
        trail: DecisionTrail?
    ) -> AudienceStepsEnd {
        let (outcome, result) = (decision.outcome, decision.result)
        if let trail {
            note(decision, of: snapshot, on: trail)
            // The trail read the level as it started: below debug, there is no trace to print.
            if trail.isLogged, let explanation = trail.explanation { DecisionLog.ruleValues(of: explanation) }
        } else if !kind.isRecorded {
            DecisionLog.audiences(of: placement, kind, outcome, result)
            if let explanation = decision.explanation { DecisionLog.ruleValues(of: explanation) }
        }
        // A recorded kind without a trail is one the log does not print at debug, nor at trace.
        let occurrence: Occurrence?
        if case .matched(_, let unsaved) = outcome { occurrence = unsaved } else { occurrence = nil }
        switch result {
        case .placementNotFound:
            return .ended(.skipped(.placementNotFound))
        case .noAudienceMatch:
            if kind.firesTriggers { trackTriggerFire(placement, result) }
            return .ended(.skipped(.noAudienceMatch))
        case .holdout(let experiment):
            if kind.confirmsAssignments { confirmAssignment(of: experiment) }
            if kind.firesTriggers {
                trackTriggerFire(placement, result)
                if let occurrence { recordOccurrence(occurrence) }
            }
            return .ended(.skipped(.holdout(experiment)))
        case .noAssignment(let experimentId):
            return .ended(.failed(.paywallNotFound("the user has no assignment in experiment \(experimentId)")))
        case .paywall(let experiment):
            if kind == .confirmAll {
                confirmAssignment(of: experiment)
                return .ended(.confirmed(experiment))
            }
            return .paywall(experiment, result, unsavedOccurrence: occurrence)
        }
    }
}
