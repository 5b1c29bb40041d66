import Foundation
import Testing

@testable import SuperwallCore

/// Keys no decoder reads: ignored, as SuperwallKit ignores them, and reported as warnings with
/// the nearest key their object reads.
@Suite struct IgnoredMembersTests {
    /// The demo config with three typos: one at the top, one in an audience, one in a paywall's style.
    private func misspelt() async throws -> String {
        let demo = String(
            decoding: try await EmbeddedConfigSource().fetchConfig(ConfigRequest(apiKey: "pk")),
            as: UTF8.self
        )
        return try edited(demo) { config in
            config["trigger_optoins"] = []
            var triggers = config["trigger_options"] as! [[String: Any]]
            var audiences = triggers[0]["rules"] as! [[String: Any]]
            audiences[0]["expresion_cel"] = audiences[0].removeValue(forKey: "expression_cel") ?? "true"
            triggers[0]["rules"] = audiences
            config["trigger_options"] = triggers
            var products = config["products_v3"] as! [[String: Any]]
            products[1]["entitlement"] = products[1]["entitlements"]
            config["products_v3"] = products
            var paywalls = config["paywall_responses"] as! [[String: Any]]
            var style = paywalls[0]["presentation_style_v3"] as! [String: Any]
            style["typ"] = style.removeValue(forKey: "type")
            paywalls[0]["presentation_style_v3"] = style
            config["paywall_responses"] = paywalls
        }
    }

    @Test func eachMisspeltKeyIsAWarningWithItsPathAndTheKeyMeant() async throws {
        let config = try Config.decode(from: Data(try await misspelt().utf8))
        #expect(
            config.ignoredMembers.map(\.description) == [
                "$.trigger_optoins: unknown key \"trigger_optoins\" is ignored; did you mean \"trigger_options\"?",
                "$.trigger_options[0].rules[0].expresion_cel: unknown key \"expresion_cel\" is ignored; did you mean \"expression_cel\"?",
                "$.paywall_responses[0].presentation_style_v3.typ: unknown key \"typ\" is ignored; did you mean \"type\"?",
                "$.products_v3[1].entitlement: unknown key \"entitlement\" is ignored; did you mean \"entitlements\"?",
            ]
        )
        #expect(config.problems.isEmpty)
        #expect(Array(config.warnings.prefix(4)) == config.ignoredMembers)
        // Ignored as SuperwallKit ignores them: the audience has no rule, the style its default.
        #expect(config.triggers[0].audiences[0].rule == nil)
    }

    @Test func keysTheSuperwallAPISendsAndNobodyReadsAreNotTypos() throws {
        #expect(try decodeSample().ignoredMembers == [])
    }

    @Test func anElementTakenFromThePreviousConfigIsReportedAgain() async throws {
        let text = Data(try await misspelt().utf8)
        let first = try Config.decode(from: text)
        let again = try Config.decode(from: text, reusing: first)
        #expect(again.ignoredMembers == first.ignoredMembers)
    }

    @Test func aNameIsSuggestedOnlyWhenItIsNearEnoughToBeATypo() {
        #expect(NearestName.among(["type", "height", "width"], to: "typ") == "type")
        #expect(NearestName.among(["expression_cel", "occurrence"], to: "expresion_cel") == "expression_cel")
        #expect(NearestName.among(["trigger_options"], to: "trigger_optoins") == "trigger_options")
        #expect(NearestName.among(["id", "url"], to: "xy") == nil)
        #expect(NearestName.among(["variants"], to: "colour") == nil)
    }
}
