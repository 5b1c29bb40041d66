import Foundation
import Testing

@testable import SuperwallCore

/// `AudienceMemo`: a placement's rule answers remembered with the fields they read.
@Suite struct AudienceMemoTests {
    private func harness(_ rule: String) async throws -> PresentationHarness {
        try await PresentationHarness.make(
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
