import Foundation
import Rules

/// Why a placement does what it does for the current user: each check of the presentation
/// pipeline, in its order, with what it found (`debug/explainPlacement`, `superwall-bridge explain`).
public struct PlacementExplanation: Sendable, Equatable {
    public enum Outcome: String, Sendable {
        case placementNotFound, noAudienceMatch, holdout, paywall, paywallNotAvailable
    }

    public struct AudienceCheck: Sendable, Equatable {
        public enum RuleCheck: Sendable, Equatable {
            /// The audience has no rule: it matches everyone.
            case none
            case evaluated(RuleExplanation)
            case doesNotCompile(String)
        }

        public var experimentId: String
        public var experimentGroupId: String
        /// The rule as the config writes it.
        public var expression: String?
        /// False for the audiences after the one that matched: the pipeline stops there.
        public var evaluated: Bool
        public var rule: RuleCheck
        public var occurrence: OccurrenceCheck?
        public var matched: Bool
    }

    public struct OccurrenceCheck: Sendable, Equatable {
        public var limit: Occurrence
        /// How many times the key was recorded within the limit's interval, as of now.
        public var storedCount: Int
        public var allowsAnother: Bool { storedCount + 1 <= limit.maxCount }
    }

    public struct VariantCheck: Sendable, Equatable {
        public var experimentId: String
        public var variant: Variant
        /// Whether the server has been told of the assignment (`confirm_assignments`).
        public var confirmed: Bool
    }

    public struct PaywallCheck: Sendable, Equatable {
        public var identifier: String
        public var name: String?
        public var featureGating: Paywall.FeatureGating?
        /// Whether the config has the paywall.
        public var found: Bool
    }

    public var placement: String
    public var placementFound: Bool
    public var audiences: [AudienceCheck]
    /// The matched audience's experiment and the user's variant in it; nil when none matched.
    public var variant: VariantCheck?
    /// Set when the matched audience's experiment has no variant for the user.
    public var unassignedExperimentId: String?
    public var paywall: PaywallCheck?
    public var outcome: Outcome
    /// Whether the feature runs without a purchase: a skip grants it, and so does a
    /// non-gated paywall whatever the user does there; a gated paywall grants it only on a
    /// purchase or restore, and a paywall that cannot be shown not at all.
    public var featureGranted: Bool
    /// Why the paywall cannot be shown, for `paywallNotAvailable`.
    public var reason: String?
    /// For a placement no campaign has, the config's placement it most likely meant.
    public var nearestPlacement: String?
}

extension Superwall {
    /// What `register` would do for `placement` now, and why, with no side effect: nothing is
    /// tracked, no occurrence recorded, no assignment made or confirmed. `user` overlays the
    /// user's attributes for this call only.
    public func explainPlacement(
        _ placement: String,
        params: [String: JSON] = [:],
        user overlay: [String: JSON] = [:]
    ) async throws(SuperwallError) -> PlacementExplanation {
        guard session != nil else { throw .notConfigured }
        if let error = await waitForConfig() { throw .configUnavailable(error.message) }
        guard let config = session?.config else { throw .configUnavailable("the config is gone") }
        return explanation(of: placement, params: params, user: overlay, in: config)
    }

    /// `explainPlacement` against `config`, which need not be the one in use.
    func explanation(
        of placement: String,
        params: [String: JSON] = [:],
        user overlay: [String: JSON] = [:],
        in config: Config
    ) -> PlacementExplanation {
        // The params as `register` gives them to the rules, from an event that is never tracked.
        let event = TrackedEvent(
            id: UUID(),
            name: placement,
            isSuperwallEvent: false,
            superwallParameters: [
                "is_feature_gatable": .bool(false), "app_session_id": .string(tracker.appSessionId),
            ],
            customParameters: params,
            createdAt: clock.now()
        )
        return explanation(
            of: placement,
            audienceParameters: event.audienceParameters,
            placedAt: event.createdAt,
            user: overlay,
            in: config
        )
    }

    private func explanation(
        of placement: String,
        audienceParameters: [String: JSON],
        placedAt: Date,
        user overlay: [String: JSON] = [:],
        in config: Config
    ) -> PlacementExplanation {
        .explaining(
            placement,
            in: config,
            evaluator: config.trigger(for: placement) == nil
                ? nil : audienceEvaluator(params: audienceParameters, placedAt: placedAt, userOverlay: overlay),
            assignments: userAssignments.current
        )
    }
}

extension PlacementExplanation {
    /// The explanation of `placement`'s decision from what the actor hands over: the rules'
    /// context (`evaluator`, nil when there is no session) and the user's assignments. It
    /// needs nothing of the actor, so slow rules are explained off it (`AudienceSnapshot`).
    static func explaining(
        _ placement: String,
        in config: Config,
        evaluator: AudienceEvaluator?,
        assignments: [String: Store.Assignment]
    ) -> PlacementExplanation {
        var explanation = PlacementExplanation(
            placement: placement,
            placementFound: false,
            audiences: [],
            outcome: .placementNotFound,
            featureGranted: true
        )
        guard let trigger = config.trigger(for: placement) else {
            explanation.nearestPlacement = NearestName.among(config.triggers.map(\.placementName), to: placement)
            return explanation
        }
        guard let evaluator else { return explanation }
        explanation.placementFound = true
        explanation.audiences = evaluator.explain(trigger)
        // The checks are in the audiences' order.
        guard let matched = explanation.audiences.firstIndex(where: \.matched) else {
            explanation.outcome = .noAudienceMatch
            return explanation
        }
        let audience = trigger.audiences[matched]
        guard let assignment = assignments[audience.experimentId] else {
            explanation.unassignedExperimentId = audience.experimentId
            explanation.outcome = .paywallNotAvailable
            explanation.featureGranted = false
            explanation.reason = "the user has no assignment in experiment \(audience.experimentId)"
            return explanation
        }
        explanation.variant = .init(
            experimentId: audience.experimentId,
            variant: assignment.variant,
            confirmed: assignment.isSentToServer
        )
        guard assignment.variant.kind == .treatment, let identifier = assignment.variant.paywallIdentifier else {
            explanation.outcome = .holdout
            return explanation
        }
        guard let paywall = config.paywall(identifier: identifier) else {
            explanation.paywall = .init(identifier: identifier, found: false)
            explanation.outcome = .paywallNotAvailable
            explanation.featureGranted = false
            explanation.reason = "the config has no paywall \(identifier)"
            return explanation
        }
        explanation.paywall = .init(
            identifier: identifier,
            name: paywall.name,
            featureGating: paywall.featureGating,
            found: true
        )
        explanation.outcome = .paywall
        explanation.featureGranted = paywall.featureGating == .nonGated
        return explanation
    }
}

extension AudienceEvaluator {
    /// `evaluate`'s checks, each with what it found; the audiences after the first match are
    /// listed unevaluated.
    func explain(_ trigger: Trigger) -> [PlacementExplanation.AudienceCheck] {
        var checks: [PlacementExplanation.AudienceCheck] = []
        var decided = false
        for audience in trigger.audiences {
            var check = PlacementExplanation.AudienceCheck(
                experimentId: audience.experimentId,
                experimentGroupId: audience.experimentGroupId,
                expression: audience.expression,
                evaluated: !decided,
                rule: .none,
                occurrence: nil,
                matched: false
            )
            defer { checks.append(check) }
            guard !decided else { continue }
            var ruleMatches = true
            if let expression = audience.expression {
                let activation =
                    audience.computedProperties.isEmpty
                    ? context : context.addingDeviceKeys(computedDeviceKeys(audience.computedProperties))
                do {
                    let explanation = try Program.explain(expression, activation)
                    check.rule = .evaluated(explanation)
                    ruleMatches = explanation.matches
                } catch {
                    check.rule = .doesNotCompile(error.description)
                    ruleMatches = false
                }
            }
            guard ruleMatches else { continue }
            if let limit = audience.occurrence {
                let occurrence = PlacementExplanation.OccurrenceCheck(
                    limit: limit,
                    storedCount: storedOccurrences(limit)
                )
                check.occurrence = occurrence
                guard occurrence.allowsAnother else { continue }
            }
            check.matched = true
            decided = true
        }
        return checks
    }
}

extension PlacementExplanation {
    /// What `register` would do, without the why: two explanations with the same decision
    /// show the user the same thing.
    public struct Decision: Sendable, Equatable {
        public var outcome: Outcome
        public var experimentId: String?
        public var variantId: String?
        public var paywallIdentifier: String?
        public var featureGranted: Bool
    }

    public var decision: Decision {
        Decision(
            outcome: outcome,
            experimentId: variant?.experimentId ?? unassignedExperimentId,
            variantId: variant?.variant.id,
            paywallIdentifier: paywall?.identifier,
            featureGranted: featureGranted
        )
    }
}

/// A placement that decides differently after a config refresh (`explainOnRefresh`).
public struct DecisionChange: Sendable, Equatable {
    public var placement: String
    public var before: PlacementExplanation.Decision
    /// The new decision, and why.
    public var after: PlacementExplanation
}
