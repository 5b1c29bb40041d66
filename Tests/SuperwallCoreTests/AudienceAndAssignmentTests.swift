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
        let harness = await PresentationHarness.make(config)
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
        let harness = await PresentationHarness.make(config)
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
        let harness = await PresentationHarness.make(config)
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
        let harness = await PresentationHarness.make(config)
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
        let harness = await PresentationHarness.make(config)
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
        let harness = await PresentationHarness.make(config)
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
        let harness = await PresentationHarness.make(config)
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
            let first = await PresentationHarness.make(config, directory: directory)
            _ = try await first.superwall.register(placement: "gate")
            await first.superwall.awaitPresentationQueue()
        }
        let restarted = await PresentationHarness.make(config, directory: directory)
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
        let harness = await PresentationHarness.make(config)
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
        let harness = await PresentationHarness.make(config)
        #expect(try await harness.superwall.presentationResult(for: "gate") == .noAudienceMatch)
        harness.clock.advance(by: 30 * 60)
        guard case .holdout = try await harness.superwall.presentationResult(for: "gate") else {
            Issue.record("expected a match after thirty minutes")
            return
        }
    }
}

@Suite struct VariantChoiceTests {
    private func variants(_ percentages: [Int]) -> [Variant] {
        percentages.enumerated().map {
            Variant(id: "v\($0.offset)", kind: .treatment, percentage: $0.element, paywallIdentifier: "p")
        }
    }

    /// SuperwallKit's `ConfigLogicTests` vectors: the draw is in `0..<sum`.
    @Test func aDrawPicksTheFirstVariantWhoseRunningTotalExceedsIt() {
        let thirds = variants([33, 33, 33])
        #expect(VariantChooser.choose(thirds, using: ScriptedRandomSource(draws: [98]))?.id == "v2")
        #expect(VariantChooser.choose(thirds, using: ScriptedRandomSource(draws: [65]))?.id == "v1")
        #expect(VariantChooser.choose(thirds, using: ScriptedRandomSource(draws: [0]))?.id == "v0")
        #expect(VariantChooser.choose(thirds, using: ScriptedRandomSource(draws: [33]))?.id == "v1")
        #expect(VariantChooser.choose(variants([1, 0, 0]), using: ScriptedRandomSource(draws: [0]))?.id == "v0")
        #expect(VariantChooser.choose(variants([100, 0, 0]), using: ScriptedRandomSource(draws: [99]))?.id == "v0")
    }

    @Test func theDrawRangeIsTheSumOfTheWeights() {
        final class RangeRecorder: RandomSource, @unchecked Sendable {
            var ranges: [Range<Int>] = []
            func uuid() -> UUID { UUID() }
            func int(in range: Range<Int>) -> Int {
                ranges.append(range)
                return range.lowerBound
            }
        }
        let recorder = RangeRecorder()
        _ = VariantChooser.choose(variants([33, 33, 33]), using: recorder)
        _ = VariantChooser.choose(variants([0, 0, 0]), using: recorder)
        #expect(recorder.ranges == [0..<99, 0..<3])
    }

    @Test func aSingleVariantIsAlwaysChosenAndNoVariantsIsNone() {
        #expect(VariantChooser.choose(variants([0]), using: ScriptedRandomSource(draws: [5]))?.id == "v0")
        #expect(VariantChooser.choose([], using: ScriptedRandomSource(draws: [0])) == nil)
    }

    @Test func weightsSummingToZeroDrawUniformly() {
        #expect(VariantChooser.choose(variants([0, 0, 0]), using: ScriptedRandomSource(draws: [2]))?.id == "v2")
    }

    /// 85/5/5/5 over 100,000 system draws lands within one point of each weight.
    @Test func theDistributionFollowsTheWeights() async {
        let weighted = variants([85, 5, 5, 5])
        var counts = [String: Int]()
        let random = SystemRandomSource()
        for round in 0..<100_000 {
            counts[VariantChooser.choose(weighted, using: random)!.id, default: 0] += 1
            if round % 1000 == 0 { await Task.yield() }
        }
        for (id, expected) in [("v0", 85.0), ("v1", 5.0), ("v2", 5.0), ("v3", 5.0)] {
            let share = Double(counts[id] ?? 0) / 1000
            #expect(abs(share - expected) <= 1, "\(id): \(share)%")
        }
    }
}

@Suite struct AssignmentTests {
    private func config(_ triggers: [Trigger]) -> Config {
        Config(
            buildId: "b",
            triggers: triggers,
            paywalls: [],
            logLevel: 0,
            appSessionTimeoutMs: 0,
            featureFlags: FeatureFlags(),
            preloadingDisabled: PreloadingDisabled(all: false, placements: []),
            locales: [],
            attribution: nil,
            products: [],
            web2appConfig: nil,
            prioritizedCampaignId: nil,
            iosAppId: nil,
            bundleIdConfig: nil,
            testModeUserIds: [],
            requestId: nil,
            droppedElements: []
        )
    }

    private func rule(_ experiment: String, campaign: String, _ variants: [Variant]) -> Audience {
        Audience(
            experimentId: experiment,
            experimentGroupId: campaign,
            expression: nil,
            occurrence: nil,
            computedProperties: [],
            preload: Preload(behavior: .ifTrue),
            variants: variants
        )
    }

    private let a = Variant(id: "a", kind: .treatment, percentage: 50, paywallIdentifier: "pa")
    private let b = Variant(id: "b", kind: .treatment, percentage: 50, paywallIdentifier: "pb")

    @Test func aStoredVariantThatStillExistsIsKeptWithItsConfirmation() {
        let plan = AssignmentPlanner.plan(
            for: config([Trigger(placementName: "p", audiences: [rule("e", campaign: "c", [a, b])])]),
            stored: [Store.Assignment(experimentId: "e", variant: b, isSentToServer: true)],
            random: ScriptedRandomSource(draws: [0])
        )
        #expect(plan["e"] == Store.Assignment(experimentId: "e", variant: b, isSentToServer: true))
    }

    @Test func aVanishedVariantIsDrawnAgainUnconfirmed() {
        let gone = Variant(id: "gone", kind: .treatment, percentage: 100, paywallIdentifier: "x")
        let plan = AssignmentPlanner.plan(
            for: config([Trigger(placementName: "p", audiences: [rule("e", campaign: "c", [a, b])])]),
            stored: [Store.Assignment(experimentId: "e", variant: gone, isSentToServer: true)],
            random: ScriptedRandomSource(draws: [60])
        )
        #expect(plan["e"] == Store.Assignment(experimentId: "e", variant: b, isSentToServer: false))
    }

    @Test func anExperimentWithoutVariantsLosesItsAssignmentAndOldExperimentsAreKept() {
        let old = Store.Assignment(experimentId: "retired", variant: a, isSentToServer: true)
        let plan = AssignmentPlanner.plan(
            for: config([Trigger(placementName: "p", audiences: [rule("e", campaign: "c", [])])]),
            stored: [Store.Assignment(experimentId: "e", variant: a, isSentToServer: false), old],
            random: ScriptedRandomSource(draws: [0])
        )
        #expect(plan["e"] == nil)
        #expect(plan["retired"] == old)
    }

    /// SuperwallKit groups audiences by campaign: only the first placement seen with a
    /// campaign contributes its audiences.
    @Test func onlyTheFirstPlacementOfACampaignContributesItsAudiences() {
        let plan = AssignmentPlanner.plan(
            for: config([
                Trigger(placementName: "one", audiences: [rule("e1", campaign: "c", [a])]),
                Trigger(placementName: "two", audiences: [rule("e2", campaign: "c", [b])]),
                Trigger(placementName: "three", audiences: [rule("e3", campaign: "d", [b])]),
            ]),
            stored: [],
            random: ScriptedRandomSource(draws: [0])
        )
        #expect(Set(plan.keys) == ["e1", "e3"])
    }

    @Test func assignmentsAreStickyAcrossRestartsAndRedrawnOnReset() async throws {
        let config = try await presentationConfig([
            placement(
                "gate",
                [
                    audience(
                        "e",
                        rule: nil,
                        variants: [
                            treatment("a", "onboarding-annual", 50), treatment("b", "summer-sale", 50),
                        ]
                    )
                ]
            )
        ])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("assign-\(UUID().uuidString)")
            .path
        do {
            let first = await PresentationHarness.make(
                config,
                random: ScriptedRandomSource(draws: [70]),
                directory: directory
            )
            #expect(try await first.superwall.assignments().map { $0.variant.id } == ["b"])
        }
        let restarted = await PresentationHarness.make(
            config,
            random: ScriptedRandomSource(draws: [10]),
            directory: directory
        )
        #expect(try await restarted.superwall.assignments().map { $0.variant.id } == ["b"])
        _ = try await restarted.superwall.reset()
        #expect(try await restarted.superwall.assignments().map { $0.variant.id } == ["a"])
        #expect(try await restarted.superwall.assignments().map { $0.isSentToServer } == [false])
    }

    @Test func localConfigSourcesLeaveAssignmentsUnconfirmed() async throws {
        let config = try await presentationConfig([
            placement("gate", [audience("e", rule: nil, variants: [holdout("h")])])
        ])
        let harness = await PresentationHarness.make(config)
        let confirmed = try await harness.superwall.confirmAllAssignments()
        #expect(confirmed.map { $0.experimentId } == ["e"])
        #expect(confirmed.map { $0.isSentToServer } == [false])
        #expect(harness.delegate.names.contains("confirm_all_assignments"))
    }

    /// SuperwallKit's `confirmAllAssignments` only confirms; the bridge tracked a
    /// `trigger_fire` for every holdout and no-match placement, inflating trigger counts.
    @Test func confirmingAllAssignmentsTracksNoTriggerFire() async throws {
        let config = try await presentationConfig([
            placement("held", [audience("e", rule: nil, variants: [holdout("h")])]),
            placement("nobody", [audience("f", rule: "user.plan == \"never\"", variants: [holdout("g")])]),
        ])
        let harness = await PresentationHarness.make(config)
        harness.delegate.clear()
        _ = try await harness.superwall.confirmAllAssignments()
        #expect(harness.delegate.names == ["confirm_all_assignments"])
    }

    /// With the http source, a holdout is confirmed once with `POST confirm_assignments`; a
    /// failed post leaves it unconfirmed and the next presentation posts again.
    @Test func theServerIsToldOnceAndAFailedConfirmationIsRetried() async throws {
        let body = try await presentationConfig([
            placement("gate", [audience("e", rule: nil, variants: [holdout("h")])])
        ])
        let confirm = "/api/v1/confirm_assignments"
        let server = try await ScriptedAPIServer.start(
            [.init(status: 200, body: body)],
            pathSequences: [confirm: [.init(status: 500), .init(status: 200, body: "{}")]]
        )
        // The event queue's timer may post events meanwhile, on a slow run: only confirmations count.
        let confirmations = { server.posts.filter { $0.path == confirm } }
        let harness = await PresentationHarness.make(body, source: HTTPConfigSource(baseURL: server.baseURL))
        _ = try await harness.superwall.register(placement: "gate")
        try await eventually { confirmations().count == 1 }
        try await eventually { await harness.superwall.confirmationsPending == 0 }
        #expect(try await harness.superwall.assignments().map { $0.isSentToServer } == [false])
        _ = try await harness.superwall.register(placement: "gate")
        try await eventually { confirmations().count == 2 }
        try await eventually { (try? await harness.superwall.assignments().map { $0.isSentToServer }) == [true] }
        _ = try await harness.superwall.register(placement: "gate")
        _ = try await harness.superwall.confirmAllAssignments()
        #expect(confirmations().count == 2)
        let posted =
            try JSONSerialization.jsonObject(with: Data(try #require(confirmations().first?.body).utf8))
            as? [String: [[String: String]]]
        #expect(posted?["assignments"] == [["experiment_id": "e", "variant_id": "h"]])
    }
}

/// `AudienceMemo`: a placement's rule answers remembered with the fields they read.
@Suite struct AudienceMemoTests {
    private func harness(_ rule: String) async throws -> PresentationHarness {
        await PresentationHarness.make(
            try await presentationConfig([
                placement(
                    "gate",
                    [
                        audience("a", rule: rule, variants: [holdout("h")]),
                        audience("b", rule: #"params.fallback == "yes""#, variants: [holdout("h2")]),
                    ]
                )
            ])
        )
    }

    private func experiment(_ harness: PresentationHarness, _ params: [String: JSON] = [:]) async throws -> String? {
        guard
            case .holdout(let experiment) = try await harness.superwall.presentationResult(for: "gate", params: params)
        else { return nil }
        return experiment.id
    }

    @Test func aChangedFieldIsDecidedAfreshAndAnUnchangedOneAsBefore() async throws {
        let harness = try await harness("params.level > 3")
        #expect(try await experiment(harness, ["level": 5]) == "a")
        #expect(try await experiment(harness, ["level": 5]) == "a")
        #expect(try await experiment(harness, ["level": 1]) == nil)
        #expect(try await experiment(harness, ["level": 1, "fallback": "yes"]) == "b")
        #expect(try await experiment(harness, ["level": 5, "fallback": "yes"]) == "a")
    }

    @Test func anIntAndADoubleOfTheSameValueAreDifferentFields() async throws {
        let harness = try await harness("params.x / 2 == 0")
        #expect(try await experiment(harness, ["x": 1]) == "a")
        #expect(try await experiment(harness, ["x": .double(1)]) == nil)
        #expect(try await experiment(harness, ["x": 1]) == "a")
    }

    @Test func aRuleThatReadsAWholeVariableIsEvaluatedEveryTime() async throws {
        let harness = try await harness(#""plan" in user"#)
        #expect(try await experiment(harness) == nil)
        _ = try await harness.superwall.setUserAttributes(["plan": "pro"])
        #expect(try await experiment(harness) == "a")
    }

    @Test func aRuleThatAsksTheHostFollowsTheClock() async throws {
        let harness = try await harness(#"device.daysSince("app_install") >= 7"#)
        #expect(try await experiment(harness) == nil)
        harness.clock.advance(by: 8 * 86_400)
        #expect(try await experiment(harness) == "a")
    }
}
