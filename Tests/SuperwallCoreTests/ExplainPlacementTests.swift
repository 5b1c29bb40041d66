import Foundation
import Rules
import Testing

@testable import SuperwallCore

/// `explainPlacement` on the demo config: one user per outcome, a rule that errors, no side
/// effect, and agreement with the pipeline on the rules conformance data.
@Suite struct ExplainPlacementTests {
    /// The demo config; `CountingRandomSource` draws 7 of 100, so `start_workout`'s 20 %
    /// holdout takes the user.
    private func demo() async throws -> PresentationHarness {
        try await PresentationHarness.make(EmbeddedDemoConfig.json)
    }

    private func ruleExplanation(_ check: PlacementExplanation.AudienceCheck) throws -> RuleExplanation {
        guard case .evaluated(let explanation) = check.rule else { throw ExplanationMissing() }
        return explanation
    }

    private struct ExplanationMissing: Error {}

    @Test func aUserPastTheDailyLimitIsExplainedIntoThePromoPaywall() async throws {
        let harness = try await demo()
        _ = try await harness.superwall.setUserAttributes(["workouts_completed": 5])
        let explanation = try await harness.superwall.explainPlacement("daily_limit_reached")
        #expect(explanation.outcome == .paywall)
        #expect(explanation.featureGranted == false)
        #expect(
            explanation.paywall
                == .init(
                    identifier: "limit-reached-promo-code",
                    name: explanation.paywall?.name,
                    featureGating: .gated,
                    found: true
                )
        )
        #expect(explanation.variant?.variant.id == "3005")
        #expect(explanation.variant?.confirmed == false)
        let check = try #require(explanation.audiences.first)
        #expect(check.matched && check.evaluated)
        #expect(check.occurrence?.storedCount == 0)
        #expect(check.occurrence?.allowsAnother == true)
        let rule = try ruleExplanation(check)
        #expect(rule.trace.text == #"user.workouts_completed >= 3 && !("pro" in device.activeEntitlements)"#)
        #expect(rule.trace.outcome == .value(.bool(true)))
        let threshold = rule.trace.children[0]
        #expect(threshold.text == "user.workouts_completed >= 3")
        #expect(threshold.children[0].outcome == .value(.int(5)))
        #expect(rule.trace.children[1].children[0].children.map(\.text) == [#""pro""#, "device.activeEntitlements"])
    }

    @Test func aProWorkoutIsExplainedIntoTheHoldoutTheUserWasDrawnInto() async throws {
        let harness = try await demo()
        let explanation = try await harness.superwall.explainPlacement("start_workout", params: ["workout_tier": "pro"])
        #expect(explanation.outcome == .holdout)
        #expect(explanation.featureGranted)
        #expect(explanation.variant?.variant.kind == .holdout)
        #expect(explanation.audiences.map(\.matched) == [true, false])
        #expect(explanation.audiences.map(\.evaluated) == [true, false])
        let rule = try ruleExplanation(explanation.audiences[0])
        #expect(rule.trace.children[1].children[0].outcome == .value(.string("pro")))
        #expect(explanation.paywall == nil)
    }

    @Test func anActiveSubscriberIsExplainedOutOfEveryAudience() async throws {
        let harness = try await demo()
        _ = try await harness.superwall.setSubscriptionStatus(.active([Entitlement(id: "pro")]))
        let explanation = try await harness.superwall.explainPlacement("start_workout", params: ["workout_tier": "pro"])
        #expect(explanation.outcome == .noAudienceMatch)
        #expect(explanation.featureGranted)
        #expect(explanation.variant == nil)
        #expect(explanation.audiences.map(\.evaluated) == [true, true])
        for check in explanation.audiences {
            let rule = try ruleExplanation(check)
            #expect(!rule.matches)
            let status = rule.trace.text.contains("&&") ? rule.trace.children[0] : rule.trace
            #expect(status.children[0].outcome == .value(.string("ACTIVE")))
        }
    }

    @Test func aRuleThatErrorsShowsTheErrorAtTheNodeWhereItHappened() async throws {
        let harness = try await demo()
        _ = try await harness.superwall.setUserAttributes(["workouts_completed": "many"])
        let explanation = try await harness.superwall.explainPlacement("daily_limit_reached")
        #expect(explanation.outcome == .noAudienceMatch)
        let rule = try ruleExplanation(try #require(explanation.audiences.first))
        guard case .failure(let error) = rule.result else {
            Issue.record("expected the rule to fail, got \(rule.result)")
            return
        }
        let comparison = rule.trace.children[0]
        #expect(comparison.outcome == .error(error))
        #expect(comparison.children.map(\.outcome) == [.value(.string("many")), .value(.int(3))])
    }

    @Test func theUserOverlayHoldsForTheCallOnly() async throws {
        let harness = try await demo()
        let overlaid = try await harness.superwall.explainPlacement(
            "daily_limit_reached",
            user: ["workouts_completed": 9]
        )
        #expect(overlaid.outcome == .paywall)
        let plain = try await harness.superwall.explainPlacement("daily_limit_reached")
        #expect(plain.outcome == .noAudienceMatch)
        #expect(try await harness.superwall.userAttributes()["workouts_completed"] == nil)
    }

    @Test func explainingTracksNothingRecordsNoOccurrenceAndConfirmsNoAssignment() async throws {
        let harness = try await demo()
        _ = try await harness.superwall.setUserAttributes(["workouts_completed": 5])
        harness.delegate.clear()
        let assignments = try await harness.superwall.assignments()
        for _ in 0..<3 { _ = try await harness.superwall.explainPlacement("daily_limit_reached") }
        let explanation = try await harness.superwall.explainPlacement("daily_limit_reached")
        #expect(explanation.audiences.first?.occurrence?.storedCount == 0)
        #expect(harness.delegate.events.isEmpty)
        #expect(try await harness.superwall.assignments() == assignments)
    }

    @Test func aPlacementTheConfigLacksIsExplainedAsNotFound() async throws {
        let harness = try await demo()
        let explanation = try await harness.superwall.explainPlacement("no_such_placement")
        #expect(explanation.outcome == .placementNotFound)
        #expect(!explanation.placementFound)
        #expect(explanation.featureGranted)
        #expect(explanation.nearestPlacement == nil)
        let typo = try await harness.superwall.explainPlacement("Daily_limit_reachd")
        #expect(typo.nearestPlacement == "daily_limit_reached")
    }

    @Test func aRefreshListsTheExplainedPlacementsWhoseDecisionChanged() async throws {
        let before = EmbeddedDemoConfig.json
        let source = MutableConfigSource(before)
        let harness = try await PresentationHarness.make(
            before,
            source: source,
            explainOnRefresh: ["open_coach_chat", "daily_limit_reached"]
        )
        source.body = try edited(before) { object in
            var triggers = object["trigger_options"] as? [[String: Any]] ?? []
            for index in triggers.indices where triggers[index]["event_name"] as? String == "open_coach_chat" {
                var rules = triggers[index]["rules"] as? [[String: Any]] ?? []
                rules[0]["expression_cel"] = #"user.plan == "gold""#
                triggers[index]["rules"] = rules
            }
            object["trigger_options"] = triggers
        }
        let refresh = try await harness.superwall.refreshConfiguration()
        #expect(refresh.decisionChanges.map(\.placement) == ["open_coach_chat"])
        let change = try #require(refresh.decisionChanges.first)
        #expect(change.before.outcome == .paywall)
        #expect(change.before.paywallIdentifier == "coach-upsell-gated")
        #expect(change.after.outcome == .noAudienceMatch)
        #expect(change.after.audiences.first?.expression == #"user.plan == "gold""#)
    }

    /// `superwall-bridge explain` reads only the placement's part of the config.
    @Test(arguments: [
        "onboarding_complete", "start_workout", "daily_limit_reached", "open_coach_chat", "deepLink_open",
        "session_start", "nope",
    ])
    func aConfigNarrowedToAPlacementExplainsItAsTheWholeConfigDoes(_ placement: String) async throws {
        let narrowed = try Config.narrowedText(Data(EmbeddedDemoConfig.json.utf8), toPlacement: placement)
        let config = try Config.decode(from: narrowed)
        #expect(config.triggers.allSatisfy { $0.placementName == placement })
        #expect(config.paywalls.count <= 2)
        let whole = try await demo()
        let part = try await PresentationHarness.make(String(decoding: narrowed, as: UTF8.self))
        for harness in [whole, part] { _ = try await harness.superwall.setUserAttributes(["workouts_completed": 5]) }
        let params: [String: JSON] = ["workout_tier": "pro", "path": "promo", "offer": "summer"]
        let expected = try await whole.superwall.explainPlacement(placement, params: params)
        let explained = try await part.superwall.explainPlacement(placement, params: params)
        #expect(explained.decision == expected.decision)
        #expect(explained.audiences == expected.audiences)
    }

    /// Every rules conformance case whose context a user and a placement can carry (only
    /// `user` and `params` variables, of JSON kinds), as the audience of a placement: the
    /// explanation's decision is what `register` then does. The host refuses to show
    /// paywalls, so a `register` that decides on one asks for it and ends at once.
    @Test func theExplanationAgreesWithRegisterOnTheRulesConformanceCases() async throws {
        let cases = try PlacementCarriedCase.load()
        #expect(cases.count == 43)
        let config = try await presentationConfig(
            cases.enumerated().map { index, testCase in
                placement(
                    "case_\(index)",
                    [
                        audience(
                            "x\(index)",
                            rule: testCase.expression,
                            variants: [treatment("t\(index)", "coach-upsell-gated")]
                        )
                    ]
                )
            }
        )
        let presenter = FakePresenter(behavior: .refuse)
        let harness = try await PresentationHarness.make(config, presenter: presenter)
        var seen: Set<PlacementExplanation.Outcome> = []
        for (index, testCase) in cases.enumerated() {
            _ = try await harness.superwall.setUserAttributes(testCase.user.mapValues { $0 })
            let explanation = try await harness.superwall.explainPlacement("case_\(index)", params: testCase.params)
            let shownBefore = presenter.presentations.count
            let outcome = try await harness.superwall.register(placement: "case_\(index)", params: testCase.params)
            let registered: PlacementExplanation.Outcome
            switch outcome.ending {
            case .skipped(.noAudienceMatch): registered = .noAudienceMatch
            case .skipped(.holdout): registered = .holdout
            case .skipped(.placementNotFound): registered = .placementNotFound
            case .failed where presenter.presentations.count == shownBefore + 1: registered = .paywall
            default: registered = .paywallNotAvailable
            }
            #expect(explanation.outcome == registered, "\(testCase.expression)")
            seen.insert(registered)
            #expect(explanation.featureGranted == (registered != .paywall), "\(testCase.expression)")
            _ = try await harness.superwall.setUserAttributes(testCase.user.mapValues { _ in nil })
        }
        #expect(seen == [.paywall, .noAudienceMatch])
    }
}

/// A rules conformance case as a placement carries it: the user's attributes and the params.
private struct PlacementCarriedCase {
    let expression: String
    let user: [String: JSON]
    let params: [String: JSON]

    static func load() throws -> [PlacementCarriedCase] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("RulesTests/Fixtures/rules-cases.json")
        let cases = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [[String: Any]])
        return cases.compactMap { entry in
            guard let expression = entry["expr"] as? String, let context = entry["ctx"] as? [String: Any] else {
                return nil
            }
            let variables = context["variables"] as? [String: Any] ?? [:]
            guard (context["computed"] as? [String: Any] ?? [:]).isEmpty,
                (context["device"] as? [String: Any] ?? [:]).isEmpty,
                Set(variables.keys).isSubset(of: ["user", "params"]),
                let user = variables["user"].map(plainObject) ?? [:],
                let params = variables["params"].map(plainObject) ?? [:],
                // `user.isLoggedIn` is the bridge's own; a case that sets it cannot be carried.
                user["isLoggedIn"] == nil
            else { return nil }
            return PlacementCarriedCase(expression: expression, user: user, params: params)
        }
    }

    /// A tagged map of JSON kinds as plain JSON; nil for any other value.
    private static func plainObject(_ tagged: Any) -> [String: JSON]? {
        guard case .object(let members)? = plain(tagged) else { return nil }
        return members
    }

    private static func plain(_ tagged: Any) -> JSON? {
        guard let tagged = tagged as? [String: Any], let type = tagged["type"] as? String else { return nil }
        let value = tagged["value"]
        switch type {
        case "Null": return .null
        case "bool": return (value as? Bool).map(JSON.bool)
        case "int": return (value as? NSNumber).map { .int($0.int64Value) }
        case "float": return (value as? NSNumber).map { .double($0.doubleValue) }
        case "string": return (value as? String).map(JSON.string)
        case "list":
            guard let elements = value as? [Any] else { return nil }
            let converted = elements.compactMap(plain)
            return converted.count == elements.count ? .array(converted) : nil
        case "map":
            guard let members = value as? [String: Any] else { return nil }
            let converted = members.compactMapValues(plain)
            return converted.count == members.count ? .object(converted) : nil
        default: return nil
        }
    }
}
