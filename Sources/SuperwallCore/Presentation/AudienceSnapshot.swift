import Executors
import Foundation
import Rules

/// What a placement's decision reads, taken on the actor when the decision's turn comes: the
/// rules' context, the trigger and the user's assignments. Deciding from it needs nothing of
/// the actor, so a trigger whose rules may be slow is decided off it while other calls go on,
/// and the decision is still the one its turn would have made: a call that changes the user
/// meanwhile (an override, new attributes) is not seen by it.
struct AudienceSnapshot: Sendable {
    let placement: String
    /// The config, when the decision explains itself (its explanation and trail read it).
    let config: Config?
    let trigger: Trigger?
    /// Nil when there is no session to read (no store, no user).
    let evaluator: AudienceEvaluator?
    let assignments: [String: Store.Assignment]
    /// Whether the decision carries its explanation: for a decision record, or the trace
    /// log's rule values.
    let explains: Bool

    /// The audiences and what they mean for the user, here and now.
    func decide() -> AudienceDecision {
        let outcome: AudienceOutcome =
            if let trigger, let evaluator { evaluator.evaluate(trigger) } else { .placementNotFound }
        return AudienceDecision(
            outcome: outcome,
            result: Self.triggerResult(outcome, assignments: assignments),
            explanation: explains
                ? config.map {
                    .explaining(placement, in: $0, evaluator: evaluator, assignments: assignments)
                } : nil
        )
    }

    /// `decide`, on the `OffloadExecutor`: the actor takes other calls meanwhile, and a
    /// `$/cancelRequest` of the call stops the rules (they check the task's cancellation).
    @concurrent func decidedOffTheActor() async -> AudienceDecision {
        await withTaskExecutorPreference(OffloadExecutor.shared) { decide() }
    }

    /// The matched audience's experiment with the user's variant in it.
    static func triggerResult(_ outcome: AudienceOutcome, assignments: [String: Store.Assignment]) -> TriggerResult {
        switch outcome {
        case .placementNotFound: return .placementNotFound
        case .noAudienceMatch(let unmatched): return .noAudienceMatch(unmatched)
        case .matched(let audience, _):
            guard let assignment = assignments[audience.experimentId] else {
                return .noAssignment(experimentId: audience.experimentId)
            }
            let experiment = Experiment(
                id: audience.experimentId,
                groupId: audience.experimentGroupId,
                variant: assignment.variant
            )
            return assignment.variant.kind == .holdout ? .holdout(experiment) : .paywall(experiment)
        }
    }
}

extension Trigger {
    /// Whether a rule of `audiences` calls `matches()`: the one part of a rule whose cost grows
    /// with its input (bounded per evaluation, but to milliseconds, not microseconds).
    static func rulesMayBeSlow(_ audiences: [Audience]) -> Bool {
        audiences.contains { $0.rule?.mayCallMatches == true }
    }
}

/// A placement's audiences decided (`AudienceSnapshot.decide`).
struct AudienceDecision: Sendable {
    let outcome: AudienceOutcome
    let result: TriggerResult
    /// When the snapshot asked for it.
    let explanation: PlacementExplanation?
}
