import Foundation
import Testing

@testable import SuperwallCore

@Suite struct AudienceEvaluationTests {
    @Test func audiencesAreTriedInOrderAndTheFirstMatchWins() async throws {
        let config = try await presentationConfig([
            placement(
                "gate",
                [
                    audience("1", rule: #"user.plan == "free""#, variants: [holdout("h1")]),
                    audience("2", rule: #"params.level > 3"#, variants: [holdout("h2")]),
                    audience("3", rule: nil, variants: [holdout("h3")]),
                ]
            )
        ])
        let harness = try await PresentationHarness.make(config)
        #expect(
            try await harness.superwall.presentationResult(for: "gate", params: ["level": 5])
                == .holdout(
                    Experiment(
                        id: "2",
                        groupId: "campaign-2",
                        variant: Variant(id: "h2", kind: .holdout, percentage: 100, paywallIdentifier: nil)
                    )
                )
        )
        _ = try await harness.superwall.setUserAttributes(["plan": "free"])
        guard
            case .holdout(let experiment) = try await harness.superwall.presentationResult(
                for: "gate",
                params: ["level": 5]
            )
        else {
            Issue.record("expected a holdout")
            return
        }
        #expect(experiment.id == "1")
    }

    @Test func anAudienceWithoutARuleMatchesEveryone() async throws {
        let config = try await presentationConfig([
            placement("gate", [audience("1", rule: nil, variants: [holdout("h")])])
        ])
        let harness = try await PresentationHarness.make(config)
        guard case .holdout = try await harness.superwall.presentationResult(for: "gate") else {
            Issue.record("expected a holdout")
            return
        }
    }

    /// Only exactly `true` matches: false, a non-boolean, an evaluation error and a rule
    /// that does not compile are each an EXPRESSION no-match.
    @Test func onlyExactlyTrueMatchesAndEveryOtherResultIsAnExpressionNoMatch() async throws {
        let config = try await presentationConfig([
            placement(
                "gate",
                [
                    audience("false", rule: "1 > 2", variants: [holdout("a")]),
                    audience("string", rule: #""yes""#, variants: [holdout("b")]),
                    audience("unquoted", rule: "daysSince(app_install) >= 1", variants: [holdout("c")]),
                    audience("syntax", rule: "user.plan ==", variants: [holdout("d")]),
                    audience("division", rule: "1 / 0 == 1", variants: [holdout("e")]),
                ]
            )
        ])
        let harness = try await PresentationHarness.make(config)
        let outcome = try await harness.superwall.register(placement: "gate")
        #expect(outcome.ending == .skipped(.noAudienceMatch))
        #expect(outcome.featureGranted)
        let fire = try #require(harness.delegate.event("trigger_fire"))
        #expect(fire.delegateParameters["result"] == "no_rule_match")
        for experiment in ["false", "string", "unquoted", "syntax", "division"] {
            #expect(fire.audienceParameters["$unmatched_audience_\(experiment)"] == "EXPRESSION")
        }
    }

    @Test func rulesSeeTheUserTheDeviceAndTheParams() async throws {
        let rule =
            #"user.plan == "pro" && user.isLoggedIn && device.subscriptionStatus == "INACTIVE" && params.level >= 3 && params.event_name == "gate" && params.is_feature_gatable == null"#
        let config = try await presentationConfig([
            placement("gate", [audience("1", rule: rule, variants: [holdout("h")])])
        ])
        let harness = try await PresentationHarness.make(config)
        _ = try await harness.superwall.identify(userId: "u1")
        _ = try await harness.superwall.setUserAttributes(["plan": "pro"])
        #expect(
            try await harness.superwall.register(placement: "gate", params: ["level": 2]).ending
                == .skipped(.noAudienceMatch)
        )
        guard
            case .skipped(.holdout) = try await harness.superwall.register(placement: "gate", params: ["level": 3])
                .ending
        else {
            Issue.record("expected a holdout")
            return
        }
    }

    /// The device template is reused within a second; a change in that second (the status,
    /// the locale, the user) still reaches the very next placement's rules.
    @Test func changesWithinOneSecondReachTheNextPlacementsRules() async throws {
        let rule = #"device.subscriptionStatus == "ACTIVE" && device.deviceLocale == "fr_FR" && user.plan == "pro""#
        let config = try await presentationConfig([
            placement("gate", [audience("1", rule: rule, variants: [holdout("h")])])
        ])
        let harness = try await PresentationHarness.make(config)
        #expect(try await harness.superwall.presentationResult(for: "gate") == .noAudienceMatch)
        try await harness.superwall.setSubscriptionStatus(.active([Entitlement(id: "pro")]))
        #expect(try await harness.superwall.presentationResult(for: "gate") == .noAudienceMatch)
        await harness.superwall.setLocaleIdentifier("fr_FR")
        #expect(try await harness.superwall.presentationResult(for: "gate") == .noAudienceMatch)
        _ = try await harness.superwall.setUserAttributes(["plan": "pro"])
        guard case .holdout = try await harness.superwall.presentationResult(for: "gate") else {
            Issue.record("expected a holdout once the status, the locale and the user all changed")
            return
        }
        await harness.superwall.setLocaleIdentifier(nil)
        #expect(try await harness.superwall.presentationResult(for: "gate") == .noAudienceMatch)
    }

    @Test func anUnmatchedAudiencesKeyFollowsItsExperimentId() {
        var audience = Audience(
            experimentId: "a",
            experimentGroupId: "g",
            expression: nil,
            occurrence: nil,
            computedProperties: [],
            preload: Preload(behavior: .always),
            variants: []
        )
        #expect(audience.unmatchedParameterKey == "unmatched_audience_a")
        audience.experimentId = "b"
        #expect(audience.unmatchedParameterKey == "unmatched_audience_b")
        var unmatched = UnmatchedAudience(source: .expression, experimentId: "c")
        #expect(unmatched.parameterKey == "unmatched_audience_c")
        unmatched.experimentId = "d"
        #expect(unmatched.parameterKey == "unmatched_audience_d")
    }

    /// `stored + 1 <= max_count`: with a limit of two, the third match is an OCCURRENCE
    /// no-match; occurrences count only when the audience holds out or presents.
    @Test func anOccurrenceLimitAllowsMaxCountThenReportsOccurrence() async throws {
        let occurrence: [String: Any] = ["key": "gate-limit", "max_count": 2, "interval": ["type": "INFINITY"]]
        let config = try await presentationConfig([
            placement("gate", [audience("1", rule: nil, variants: [holdout("h")], occurrence: occurrence)])
        ])
        let harness = try await PresentationHarness.make(config)
        for _ in 0..<2 {
            guard case .skipped(.holdout) = try await harness.superwall.register(placement: "gate").ending else {
                Issue.record("expected a holdout")
                return
            }
        }
        #expect(try await harness.superwall.register(placement: "gate").ending == .skipped(.noAudienceMatch))
        #expect(harness.delegate.event("trigger_fire")?.audienceParameters["$unmatched_audience_1"] == "OCCURRENCE")
    }

    @Test func aMinutesIntervalForgetsOccurrencesOlderThanIt() async throws {
        let occurrence: [String: Any] = [
            "key": "daily", "max_count": 1, "interval": ["type": "MINUTES", "minutes": 60],
        ]
        let config = try await presentationConfig([
            placement("gate", [audience("1", rule: nil, variants: [holdout("h")], occurrence: occurrence)])
        ])
        let harness = try await PresentationHarness.make(config)
        guard case .skipped(.holdout) = try await harness.superwall.register(placement: "gate").ending else {
            Issue.record("expected a holdout")
            return
        }
        #expect(try await harness.superwall.register(placement: "gate").ending == .skipped(.noAudienceMatch))
        harness.clock.advance(by: 61 * 60)
        guard case .skipped(.holdout) = try await harness.superwall.register(placement: "gate").ending else {
            Issue.record("expected a holdout after the interval")
            return
        }
    }

    @Test func occurrencesPersistAcrossARestart() async throws {
        let occurrence: [String: Any] = ["key": "once", "max_count": 1, "interval": ["type": "INFINITY"]]
        let config = try await presentationConfig([
            placement("gate", [audience("1", rule: nil, variants: [holdout("h")], occurrence: occurrence)])
        ])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("occ-\(UUID().uuidString)").path
        do {
            let first = try await PresentationHarness.make(config, directory: directory)
            _ = try await first.superwall.register(placement: "gate")
            await first.superwall.awaitPresentationQueue()
        }
        let restarted = try await PresentationHarness.make(config, directory: directory)
        #expect(try await restarted.superwall.register(placement: "gate").ending == .skipped(.noAudienceMatch))
    }

    /// `placementsInDay_workout` counts the workouts before this placement, not this one;
    /// a placement that never happened has no key.
    @Test func computedPropertiesBecomeDeviceKeysCountingHistoryOnly() async throws {
        let computed: [[String: Any]] = [
            ["type": "PLACEMENTS_IN_DAY", "event_name": "workout"], ["type": "DAYS_SINCE", "event_name": "never"],
        ]
        let rule = #"device.placementsInDay_workout == 2 && !has(device.daysSince_never)"#
        let config = try await presentationConfig([
            placement("workout", [audience("1", rule: "false", variants: [holdout("h")])]),
            placement("gate", [audience("2", rule: rule, variants: [holdout("h2")], computed: computed)]),
        ])
        let harness = try await PresentationHarness.make(config)
        _ = try await harness.superwall.register(placement: "workout")
        #expect(try await harness.superwall.register(placement: "gate").ending == .skipped(.noAudienceMatch))
        harness.clock.advance(by: 1)
        _ = try await harness.superwall.register(placement: "workout")
        harness.clock.advance(by: 1)
        guard case .skipped(.holdout) = try await harness.superwall.register(placement: "gate").ending else {
            Issue.record("expected the second workout to match")
            return
        }
    }

    @Test func hostFunctionsAnswerFromThePlacementLogWithTheClock() async throws {
        let config = try await presentationConfig([
            placement(
                "gate",
                [audience("1", rule: #"device.minutesSince("app_install") >= 30"#, variants: [holdout("h")])]
            )
        ])
        let harness = try await PresentationHarness.make(config)
        #expect(try await harness.superwall.presentationResult(for: "gate") == .noAudienceMatch)
        harness.clock.advance(by: 30 * 60)
        guard case .holdout = try await harness.superwall.presentationResult(for: "gate") else {
            Issue.record("expected a match after thirty minutes")
            return
        }
    }
}
