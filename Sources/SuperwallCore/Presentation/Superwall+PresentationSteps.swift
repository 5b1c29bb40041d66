import Executors
import Foundation
import Rules

/// The presentation pipeline's steps and the events they track (see `Superwall+Pipeline.swift`).
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
            storedOccurrences: { occurrence in store.count(of: occurrence, before: now) }
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
