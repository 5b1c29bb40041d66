import Foundation
import Logging
import Rules

/// The debug log's narration of what the SDK decides, one line per decision, under
/// SuperwallKit's log scopes (the loggers' labels, `delegate/handleLog`'s `scope`). Each line is
/// built only when its level is on: a message is an autoclosure, so at the default level a
/// decision costs a level check.
enum DecisionLog {
    static let configManager = Logger(label: "configManager")
    static let identityManager = Logger(label: "identityManager")
    static let paywallPresentation = Logger(label: "paywallPresentation")
    static let transactions = Logger(label: "transactions")
    static let analytics = Logger(label: "analytics")

    /// A placement's audiences and what they mean: which matched, the variant, the occurrence
    /// limit, the paywall or why none.
    static func audiences(
        of placement: PlacementData,
        _ kind: PipelineKind,
        _ outcome: AudienceOutcome,
        _ result: TriggerResult
    ) {
        paywallPresentation.debug("\(describe(placement, kind, outcome, result))")
    }

    private static func describe(
        _ placement: PlacementData,
        _ kind: PipelineKind,
        _ outcome: AudienceOutcome,
        _ result: TriggerResult
    ) -> String {
        // `register`, `getPaywall` or `implicit`; a check names its kind.
        let head = "\(kind.tracksOutcome ? placement.sourceType ?? kind.wireName : kind.wireName) \(placement.name):"
        var occurrence = ""
        switch outcome {
        case .placementNotFound:
            return "\(head) no campaign has this placement: skipped (placementNotFound)"
        case .noAudienceMatch(let unmatched):
            let why = unmatched.map {
                "experiment \($0.experimentId) \($0.source == .occurrence ? "over its occurrence limit" : "rule not true")"
            }
            return
                "\(head) no audience matched (\(why.isEmpty ? "none" : why.joined(separator: ", "))): skipped (noAudienceMatch)"
        case .matched(_, let unsaved?):
            occurrence = ", occurrence \(unsaved.key) allows another (at most \(unsaved.maxCount))"
        case .matched:
            break
        }
        switch result {
        case .paywall(let experiment):
            return
                "\(head) audience of experiment \(experiment.id) (campaign \(experiment.groupId)) matched\(occurrence); variant \(experiment.variant.id): paywall \(experiment.variant.paywallIdentifier ?? "none")"
        case .holdout(let experiment):
            return
                "\(head) audience of experiment \(experiment.id) (campaign \(experiment.groupId)) matched\(occurrence); variant \(experiment.variant.id) is a holdout: skipped (holdout)"
        case .noAssignment(let experimentId):
            return
                "\(head) audience of experiment \(experimentId) matched, but the user has no assignment in it: failed (paywallNotFound)"
        case .placementNotFound, .noAudienceMatch:
            return "\(head) \(result)"
        }
    }

    /// Whether `ruleValues` prints anything: the log is at trace level.
    static var tracesRuleValues: Bool { paywallPresentation.logLevel <= .trace }

    /// At trace level, the values each evaluated rule read, and what it came to.
    static func ruleValues(of explanation: @autoclosure () -> PlacementExplanation) {
        guard paywallPresentation.logLevel <= .trace else { return }
        let explanation = explanation()
        for audience in explanation.audiences where audience.evaluated {
            guard case .evaluated(let rule) = audience.rule else { continue }
            var read: [String] = []
            collectReads(rule.trace, into: &read)
            paywallPresentation.trace(
                "\(explanation.placement): experiment \(audience.experimentId)'s rule is \(outcome(of: rule.trace)), reading \(read.isEmpty ? "nothing" : read.joined(separator: "; "))"
            )
        }
    }

    private static func outcome(of trace: ExpressionTrace) -> String {
        switch trace.outcome {
        case .value(let value): String(ExpressionTrace.text(of: value).prefix(200))
        case .error(let error): "an error (\(error.message))"
        case .notEvaluated: "not evaluated"
        }
    }

    /// The values of the fields the rule read (`user.plan`, `device.activeEntitlements`,
    /// `params.source`), each once, at its longest path.
    private static func collectReads(_ trace: ExpressionTrace, into read: inout [String]) {
        if isPath(trace.text) {
            let line = "\(trace.text) = \(outcome(of: trace))"
            if trace.outcome != .notEvaluated, !read.contains(line) { read.append(line) }
            return
        }
        for child in trace.children { collectReads(child, into: &read) }
    }

    /// `user`, `user.plan`, `device.activeEntitlements`: names joined by dots.
    private static func isPath(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first == "_" || first.properties.isAlphabetic,
            !["true", "false", "null"].contains(text)
        else { return false }
        return text.unicodeScalars.allSatisfy {
            $0 == "_" || $0 == "." || $0.properties.isAlphabetic || ("0"..."9").contains($0)
        }
    }
}
