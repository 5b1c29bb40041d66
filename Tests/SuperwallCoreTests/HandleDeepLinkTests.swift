import Foundation
import Testing

@testable import SuperwallCore

@Suite struct HandleDeepLinkTests {
    /// The demo app's paywalls with one campaign on `deepLink_open`, or none.
    private func harness(withDeepLinkCampaign: Bool) async throws -> PresentationHarness {
        let triggers =
            withDeepLinkCampaign
            ? [
                placement(
                    "deepLink_open",
                    [
                        audience(
                            "dl",
                            rule: "params.path == \"promo\" && params.offer == \"summer\"",
                            variants: [treatment("dl-t", "summer-sale")]
                        )
                    ]
                )
            ]
            : [placement("other", [audience("o", rule: nil, variants: [treatment("o-t", "summer-sale")])])]
        return try await PresentationHarness.make(try await presentationConfig(triggers))
    }

    @Test(arguments: [
        "myapp://superwall/redeem", "myapp://?superwall_debug=true", "myapp://?superwall_debug=false&token=t",
        "https://x.superwall.app/other/path", "myapp://superwall/premium", "not a url",
    ])
    func superwallKitsUnhandledLinksAreNotHandled(_ url: String) async throws {
        let harness = try await harness(withDeepLinkCampaign: false)
        #expect(try await harness.superwall.handleDeepLink(url) == false)
    }

    @Test func aDeepLinkCampaignMakesEveryLinkHandledAndTracksTheEvent() async throws {
        let harness = try await harness(withDeepLinkCampaign: true)
        #expect(try await harness.superwall.handleDeepLink("myapp://superwall/premium?x=1"))
        let event = try #require(harness.delegate.event("deepLink_open"))
        #expect(event.superwallParameters["host"] == "superwall")
        #expect(event.superwallParameters["path"] == "/premium")
        #expect(event.customParameters == ["x": 1])
    }

    @Test func aRedemptionLinkIsHandledWithoutDeepLinkOpenAndFailsClearly() async throws {
        let harness = try await harness(withDeepLinkCampaign: true)
        #expect(try await harness.superwall.handleDeepLink("myapp://superwall/redeem?code=WEB-123"))
        #expect(harness.delegate.names.contains("redemption_start"))
        let failure = try #require(harness.delegate.event("redemption_fail"))
        #expect(failure.superwallParameters["error_message"]?.stringValue?.contains("WEB-123") == true)
        #expect(!harness.delegate.names.contains("deepLink_open"))
    }

    @Test func aUniversalLinkIsReportedMappedAndHandled() async throws {
        let harness = try await harness(withDeepLinkCampaign: false)
        #expect(try await harness.superwall.handleDeepLink("https://myapp.superwall.app/app-link/promo?offer=summer"))
        #expect(
            harness.delegate.calls.contains(
                "superwallDeepLink myapp://promo?offer=summer [\"promo\"] [\"offer=summer\"]"
            )
        )
        #expect(harness.delegate.event("deepLink_open")?.superwallParameters["url"] == "myapp://promo?offer=summer")
    }

    @Test func aDebugLinkIsTrackedButNotClaimedAsHandledAndSaysWhy() async throws {
        let harness = try await harness(withDeepLinkCampaign: false)
        let link = "myapp://?superwall_debug=true&token=abc&paywall_id=1"
        #expect(try await harness.superwall.handleDeepLink(link) == false)
        #expect(harness.delegate.event("deepLink_open") != nil)
        #expect(DeepLink(link)?.unhandledReason?.contains("debugger") == true)
        #expect(DeepLink("myapp://promo")?.unhandledReason == nil)
    }

    @Test func aDeepLinkAudiencePresentsItsPaywallAfterDismissingTheOneOnScreen() async throws {
        let triggers = [
            placement(
                "deepLink_open",
                [
                    audience(
                        "dl",
                        rule: "params.path == \"promo\" && params.offer == \"summer\"",
                        variants: [treatment("dl-t", "summer-sale")]
                    )
                ]
            ),
            placement("gate", [audience("g", rule: nil, variants: [treatment("g-t", "coach-upsell-gated")])]),
        ]
        let harness = try await PresentationHarness.make(try await presentationConfig(triggers))
        let register = harness.registerInBackground("gate")
        _ = try await harness.waitForPresentation()
        #expect(try await harness.superwall.handleDeepLink("pockettrainer://open?path=promo&offer=summer"))
        let summer = try await harness.waitForPresentation(2)
        #expect(summer.info.identifier == "summer-sale")
        #expect(summer.info.presentedByPlacementWithName == "deepLink_open")
        let outcome = try await register.value
        #expect(outcome.featureGranted == false, "the gated paywall was closed by the link, not by a purchase")
        #expect(harness.presenter.dismissed.first?.closeReason == .systemLogic)
    }

    @Test func aLinkThatNoAudienceMatchesStillClosesThePaywallOnScreen() async throws {
        let triggers = [
            placement(
                "deepLink_open",
                [audience("dl", rule: "params.offer == \"summer\"", variants: [treatment("dl-t", "summer-sale")])]
            ),
            placement("gate", [audience("g", rule: nil, variants: [treatment("g-t", "coach-upsell-gated")])]),
        ]
        let harness = try await PresentationHarness.make(try await presentationConfig(triggers))
        let register = harness.registerInBackground("gate")
        _ = try await harness.waitForPresentation()
        #expect(try await harness.superwall.handleDeepLink("pockettrainer://open?offer=winter"))
        _ = try await register.value
        #expect(harness.presenter.presentations.count == 1)
        #expect(await harness.superwall.openSessionId == nil)
    }
}
