import Foundation
import Testing

@testable import SuperwallCore

/// `Config.warnings`: what `validate` reports without failing the file.
@Suite struct ConfigWarningsTests {
    private func warnings(
        _ triggers: [[String: Any]],
        edit: (inout [String: Any]) -> Void = { _ in }
    ) async throws -> [String] {
        let text = try edited(try await presentationConfig(triggers), edit)
        return try Config.decode(from: Data(text.utf8)).warnings.map(\.description)
    }

    /// Every demo paywall shown by some placement, so only the case at hand warns.
    private var showingEveryPaywall: [[String: Any]] {
        [
            "onboarding-annual", "onboarding-monthly-trial", "pro-workouts-gated", "limit-reached-promo-code",
            "coach-upsell-gated", "summer-sale",
        ]
        .enumerated().map { index, paywall in
            placement(
                "show_\(index)",
                [audience("s\(index)", rule: "user.x == \(index)", variants: [treatment("t\(index)", paywall)])]
            )
        }
    }

    @Test func aConfigWhereEverythingIsReachableHasNoWarnings() async throws {
        #expect(try await warnings(showingEveryPaywall) == [])
    }

    @Test func theAudiencesAfterOneThatAlwaysMatchesAreUnreachable() async throws {
        let found = try await warnings(
            showingEveryPaywall + [
                placement(
                    "gate",
                    [
                        audience("a", rule: "user.plan == \"pro\"", variants: [holdout("h1")]),
                        audience("b", rule: "\"true\"", variants: [holdout("h2")]),
                        audience("c", rule: "user.plan == \"free\"", variants: [holdout("h3")]),
                        audience("d", rule: nil, variants: [holdout("h4")]),
                    ]
                )
            ]
        )
        #expect(
            found == [
                "$.trigger_options[6].rules[2]: this audience can never match: audience 1 (experiment b) before it always does",
                "$.trigger_options[6].rules[3]: this audience can never match: audience 1 (experiment b) before it always does",
            ]
        )
    }

    @Test func anAudienceWithAnOccurrenceLimitDoesNotAlwaysMatch() async throws {
        let found = try await warnings(
            showingEveryPaywall + [
                placement(
                    "gate",
                    [
                        audience(
                            "a",
                            rule: nil,
                            variants: [holdout("h1")],
                            occurrence: ["key": "k", "max_count": 1, "interval": ["type": "INFINITY"]]
                        ),
                        audience("b", rule: nil, variants: [holdout("h2")]),
                    ]
                )
            ]
        )
        #expect(found == [])
    }

    @Test func aPlacementWithNoCampaignAPaywallNoCampaignReachesAndAProductNoPaywallUsesAreNamed() async throws {
        var triggers = showingEveryPaywall
        triggers.removeLast()
        triggers.append(placement("orphan", []))
        let found = try await warnings(triggers) { object in
            var products = object["products_v3"] as? [[String: Any]] ?? []
            var unused = products.first ?? [:]
            unused["sw_composite_product_id"] = "unused:composite"
            if var store = unused["store_product"] as? [String: Any] {
                store["product_identifier"] = "com.example.unused"
                unused["store_product"] = store
            }
            products.append(unused)
            object["products_v3"] = products
        }
        #expect(
            found == [
                #"$.trigger_options[5].rules: placement "orphan" has no campaign: register always skips it"#,
                #"$.paywall_responses[5]: no campaign reaches paywall "summer-sale""#,
                #"$.products_v3[3]: no paywall uses product "com.example.unused""#,
            ]
        )
    }
}
