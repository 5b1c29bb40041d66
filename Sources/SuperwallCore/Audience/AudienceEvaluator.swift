import Foundation
import Rules

/// How a placement's audiences resolved (SuperwallKit's `AudienceLogic`), before assignments.
enum AudienceOutcome: Sendable, Equatable {
    case placementNotFound
    case noAudienceMatch([UnmatchedAudience])
    /// The first audience that matched, and its occurrence to record should it present (or
    /// hold out); SuperwallKit returns it "unsaved" and saves it only then.
    case matched(Audience, unsavedOccurrence: Occurrence?)
}

/// Evaluates a placement's audiences in order: the first whose rule is exactly `true` and
/// whose occurrence limit allows one more wins.
struct AudienceEvaluator: Sendable {
    /// The rules' context for the placement being evaluated.
    let context: AudienceContext
    /// The placement log, as of just before the placement: the `<type>_<placement>` device
    /// keys count history, not the placement being evaluated.
    let historyBeforePlacement: any PlacementHistory
    /// How many times an occurrence key was recorded within its interval.
    let storedOccurrences: @Sendable (Occurrence) -> Int

    func evaluate(_ trigger: Trigger?) -> AudienceOutcome {
        guard let trigger else { return .placementNotFound }
        var unmatched: [UnmatchedAudience] = []
        unmatched.reserveCapacity(trigger.audiences.count)
        // Computed properties give their audience a context of its own: no memo then.
        var reading =
            trigger.audiences.contains { !$0.computedProperties.isEmpty }
            ? nil : trigger.memo.reading(trigger.audiences, in: context)
        defer { if let reading { trigger.memo.keep(reading) } }
        // By index, reading only the fields needed: a `for in` loop, or passing an audience
        // along, copies the whole audience.
        for index in trigger.audiences.indices {
            let ruleMatches =
                reading?.answer(index) { matches(trigger.audiences[index].rule, computing: []) }
                ?? matches(trigger.audiences[index].rule, computing: trigger.audiences[index].computedProperties)
            guard ruleMatches else {
                unmatched.append(
                    UnmatchedAudience(
                        source: .expression,
                        experimentId: trigger.audiences[index].experimentId,
                        parameterKey: trigger.audiences[index].unmatchedParameterKey
                    )
                )
                continue
            }
            let audience = trigger.audiences[index]
            if let occurrence = audience.occurrence, storedOccurrences(occurrence) + 1 > occurrence.maxCount {
                unmatched.append(
                    UnmatchedAudience(
                        source: .occurrence,
                        experimentId: audience.experimentId,
                        parameterKey: audience.unmatchedParameterKey
                    )
                )
                continue
            }
            return .matched(audience, unsavedOccurrence: audience.occurrence)
        }
        return .noAudienceMatch(unmatched)
    }

    /// Whether `audience` alone would take the user: its rule matches and its occurrence limit
    /// allows one more (SuperwallKit's preloading asks this of `IF_TRUE` audiences).
    func admits(_ audience: Audience) -> Bool {
        guard matches(audience.rule, computing: audience.computedProperties) else { return false }
        guard let occurrence = audience.occurrence else { return true }
        return storedOccurrences(occurrence) + 1 <= occurrence.maxCount
    }

    /// No rule matches everyone; otherwise only a result of exactly `true` matches. Errors
    /// (a rule that does not compile, a failed evaluation) are a plain no-match.
    private func matches(_ rule: Rule?, computing computedProperties: [ComputedPropertyRequest]) -> Bool {
        guard let rule else { return true }
        guard !computedProperties.isEmpty else { return rule.matches(context) }
        return rule.matches(context.addingDeviceKeys(computedDeviceKeys(computedProperties)))
    }

    func computedDeviceKeys(_ requests: [ComputedPropertyRequest]) -> [String: JSON] {
        ComputedPropertyRequest.deviceKeys(requests, history: historyBeforePlacement)
    }
}

extension ComputedPropertyRequest {
    /// `daysSince_app_install` and the like; a placement that never happened has no key.
    static func deviceKeys(_ requests: [ComputedPropertyRequest], history: any PlacementHistory) -> [String: JSON] {
        guard !requests.isEmpty else { return [:] }
        let functions = PlacementFunctions(history: history)
        var keys: [String: JSON] = [:]
        for request in requests {
            if case .int(let value) = functions.call(
                request.kind.functionName,
                arguments: [.string(request.placementName)]
            ) {
                keys["\(request.kind.functionName)_\(request.placementName)"] = .int(value)
            }
        }
        return keys
    }
}
