import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

@Suite struct SlowRuleConfigTests {
    /// Only a placement whose rules call `matches()` is decided off the actor; every other one
    /// is decided at once on it, as before.
    @Test func onlyAPlacementWhoseRulesCallMatchesIsDecidedOffTheActor() async throws {
        var triggers = actionTriggers
        triggers.append(
            placement(
                "search",
                [audience("e9", rule: #"user.name.matches("^A")"#, variants: [treatment("v9", "summer-sale")])]
            )
        )
        let harness = try await PresentationHarness.make(try await presentationConfig(triggers))
        let config = try #require(await harness.superwall.session?.config)
        #expect(config.trigger(for: "search")?.rulesMayBeSlow == true)
        let others = config.triggers.filter { $0.placementName != "search" }
        #expect(!others.isEmpty && others.allSatisfy { !$0.rulesMayBeSlow })
    }
}
