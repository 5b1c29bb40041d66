import Foundation
import Testing

@testable import SuperwallCore

/// What an editor is told a hot reload did: the diff listed paywalls only, and a rule that
/// does not compile was taken without a word.
@Suite struct RefreshReportTests {
    @Test func aRefreshListsThePlacementsCampaignsAndExperimentsItChangedAndWhatValidateFinds() async throws {
        let before = try await presentationConfig([
            placement(
                "gate",
                [audience("exp-gate", campaign: "c1", rule: nil, variants: [treatment("v-1", "coach-upsell-gated")])]
            ),
            placement(
                "old",
                [audience("exp-old", campaign: "c2", rule: nil, variants: [treatment("v-2", "coach-upsell-gated")])]
            ),
        ])
        let source = MutableConfigSource(before)
        let harness = try await PresentationHarness.make(before, source: source)
        source.body = try await presentationConfig([
            placement(
                "gate",
                [
                    audience(
                        "exp-gate",
                        campaign: "c1",
                        rule: "user.plan ==",
                        variants: [treatment("v-1", "coach-upsell-gated")]
                    )
                ]
            ),
            placement(
                "new",
                [audience("exp-new", campaign: "c3", rule: nil, variants: [treatment("v-3", "coach-upsell-gated")])]
            ),
        ])
        let report = try await harness.superwall.refreshConfiguration()
        #expect(report.placements == diff(added: ["new"], changed: ["gate"], removed: ["old"]))
        #expect(report.campaigns == diff(added: ["c3"], changed: ["c1"], removed: ["c2"]))
        #expect(report.experiments == diff(added: ["exp-new"], changed: ["exp-gate"], removed: ["exp-old"]))
        let rule = try #require(report.warnings.first { $0.path == "$.trigger_options[0].rules[0].expression_cel" })
        #expect(rule.message.hasPrefix("the rule does not compile"))
    }

    @Test func aRefreshNamesEachKeyNoDecoderReadsWithTheKeyMeant() async throws {
        let before = try await presentationConfig([
            placement("gate", [audience("exp-gate", rule: "user.plan == \"pro\"", variants: [holdout("h")])])
        ])
        let source = MutableConfigSource(before)
        let harness = try await PresentationHarness.make(before, source: source)
        source.body = try edited(before) { config in
            var triggers = config["trigger_options"] as! [[String: Any]]
            var rules = triggers[0]["rules"] as! [[String: Any]]
            rules[0]["expresion_cel"] = rules[0].removeValue(forKey: "expression_cel")
            triggers[0]["rules"] = rules
            config["trigger_options"] = triggers
        }
        let report = try await harness.superwall.refreshConfiguration()
        #expect(
            report.warnings.map(\.description).contains(
                "$.trigger_options[0].rules[0].expresion_cel: unknown key \"expresion_cel\" is ignored; did you mean \"expression_cel\"?"
            )
        )
    }

    private func diff(added: [String], changed: [String], removed: [String]) -> ConfigDiff {
        var diff = ConfigDiff()
        (diff.added, diff.changed, diff.removed) = (added, changed, removed)
        return diff
    }
}
