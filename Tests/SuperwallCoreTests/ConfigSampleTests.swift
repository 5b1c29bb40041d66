import Foundation
import Testing

@testable import SuperwallCore

@Suite struct ConfigSampleTests {
    @Test func theRealServerResponseDecodes() throws {
        let config = try decodeSample()
        #expect(config.buildId == "poWduJZYQvCA8QbWLrjJC")
        #expect(config.triggers.map(\.placementName) == ["MyEvent", "$present"])
        #expect(config.logLevel == 10)
        #expect(config.appSessionTimeoutMs == 3_600_000)
        #expect(config.locales.isEmpty)
        #expect(config.preloadingDisabled == PreloadingDisabled(all: false, placements: []))
        #expect(config.attribution?.appleSearchAdsEnabled == true)
        #expect(
            config.web2appConfig
                == Web2AppConfig(
                    entitlementsMaxAgeMs: 86_400_000,
                    restoreAccessURL: "https://web2app.localhost:3065/manage"
                )
        )
        #expect(config.testModeUserIds == [TestModeUserId(kind: .aliasId, value: "678")])
        #expect(config.featureFlags.isEnabled("enable_session_events"))
        #expect(config.featureFlags.isEnabled("some_unknown_key"))
        #expect(!config.featureFlags.enableUserIdSeed)
    }

    @Test func audiencesVariantsAndPreloadFollowTheWire() throws {
        let audience = try #require(try decodeSample().trigger(for: "MyEvent")?.audiences.first)
        #expect(audience.experimentId == "80")
        #expect(audience.experimentGroupId == "39")
        #expect(audience.expression == nil)
        #expect(audience.preload.behavior == .always)
        #expect(
            audience.variants == [
                Variant(id: "218", kind: .holdout, percentage: 0, paywallIdentifier: nil),
                Variant(
                    id: "219",
                    kind: .treatment,
                    percentage: 100,
                    paywallIdentifier: "example-paywall-4de1-2022-03-15"
                ),
            ]
        )
    }

    @Test func thePaywallKeepsItsUsableProductsAndDropsTheRest() throws {
        let config = try decodeSample()
        let paywall = try #require(config.paywall(identifier: "example-paywall-4de1-2022-03-15"))
        #expect(paywall.id == "571")
        #expect(paywall.cacheKey == "abc?sw=10293")
        #expect(
            paywall.presentationStyle == PresentationStyle(kind: .drawer, height: 250, width: nil, cornerRadius: 25)
        )
        #expect(paywall.featureGating == .nonGated)
        #expect(paywall.isScrollEnabled)
        #expect(paywall.introductoryOfferEligibility == .automatic)
        // A PLAY_STORE product and one without entitlements are dropped, one by one.
        #expect(paywall.products.map(\.id) == ["sk.superwall.annual.89.99_7"])
        #expect(paywall.products.first?.referenceName == "primary")
        #expect(paywall.products.first?.entitlements == [Entitlement(id: "test", isActive: false)])
        // Only TRIAL_STARTED notifications exist.
        #expect(
            paywall.localNotifications == [LocalNotification(title: "test", subtitle: nil, body: "body", delayMs: 5000)]
        )
        #expect(
            config.droppedElements.map(\.path) == [
                "$.paywall_responses[0].products_v2[1]",
                "$.paywall_responses[0].products_v2[2]",
                "$.paywall_responses[0].local_notifications[0]",
            ]
        )
    }

    @Test func theProductCatalogueUsesCompositeIds() throws {
        let products = try decodeSample().products
        #expect(
            products.map(\.id) == [
                "com.ui_tests.monthly", "com.ui_tests.annual", "incorrect_product_identifier",
                "test:price_1R4AhCBitwqMmwU0jvsd3blk:no-trial",
            ]
        )
        #expect(
            products[3].storeProduct == .stripe(productIdentifier: "price_1R4AhCBitwqMmwU0jvsd3blk", trialDays: nil)
        )
        #expect(products[3].storeProduct.store == "STRIPE")
    }
}
