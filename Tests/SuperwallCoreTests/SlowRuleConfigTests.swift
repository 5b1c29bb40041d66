import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

@Suite struct SlowRuleConfigTests {
    @Test func aConfigWhoseRulesCallMatchesIsEvaluatedOffTheReader() async throws {
        let plain = try await PresentationHarness.make(try await presentationConfig(actionTriggers))
        #expect(!plain.superwall.evaluatesSlowRules)
        var triggers = actionTriggers
        triggers.append(
            placement(
                "search",
                [audience("e9", rule: #"user.name.matches("^A")"#, variants: [treatment("v9", "summer-sale")])]
            )
        )
        let slow = try await PresentationHarness.make(try await presentationConfig(triggers))
        #expect(slow.superwall.evaluatesSlowRules)
    }
}
