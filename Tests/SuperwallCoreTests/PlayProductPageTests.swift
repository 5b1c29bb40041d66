import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

/// A paywall that sells a Google Play subscription, on an Android device: its page shows the
/// price of the offer Superwall-Android would buy it with, chosen from the store's listing.
@Suite struct PlayProductPageTests {
    private static var coach: [String: Any] {
        [
            "store_product": [
                "store": "PLAY_STORE", "product_identifier": "pocket_trainer_coach", "base_plan_identifier": "annual",
                "offer": ["type": "AUTOMATIC"],
            ],
            "entitlements": [["identifier": "coach", "type": "SERVICE_LEVEL"]],
            "reference_name": "primary",
        ]
    }

    /// Play Billing's listing of the subscription: the annual base plan, a 3-day and a
    /// one-week free trial.
    private static let listing = StoreProductDetails(
        productIdentifier: "pocket_trainer_coach",
        currencyCode: "USD",
        priceLocale: "en_US",
        playOffers: [
            PlayOfferDetails(basePlanId: "annual", pricingPhases: [yearly]),
            PlayOfferDetails(
                basePlanId: "annual",
                offerId: "trial-3d",
                pricingPhases: [.init(price: 0, period: .init(unit: .day, count: 3)), yearly]
            ),
            PlayOfferDetails(
                basePlanId: "annual",
                offerId: "trial-1w",
                pricingPhases: [.init(price: 0, period: .init(unit: .week)), yearly]
            ),
        ]
    )
    private static let yearly = PlayOfferDetails.PricingPhase(
        price: Decimal(string: "49.99")!,
        period: .init(unit: .year)
    )

    @Test func thePagePricesThePlayProductByTheOfferSuperwallAndroidChooses() async throws {
        let config = try edited(EmbeddedDemoConfig.json) { object in
            object["products_v3"] = ((object["products_v3"] as? [[String: Any]]) ?? []) + [Self.coach]
            editPaywalls(&object) { paywall in
                var paywall = paywall
                if paywall["identifier"] as? String == "coach-upsell-gated" { paywall["products_v2"] = [Self.coach] }
                return paywall
            }
        }
        let harness = try await PresentationHarness.make(
            config,
            storeProducts: [Self.listing],
            device: ["platform": "Android", "deviceLocale": "en_US"]
        )
        let register = harness.registerInBackground("open_coach_chat")
        let shown = try await harness.waitForPresentation()
        try await ping(harness, shown)
        let variables = try #require(
            harness.presenter.pageEvents.first { $0["event_name"] == "template_variables" }?["variables"]
        )
        #expect(variables["primary"]?["price"] == "$49.99", "\(variables["primary"] ?? .null)")
        #expect(variables["primary"]?["period"] == "year")
        #expect(variables["primary"]?["trialPeriodText"] == "7-day")
        #expect(variables["primary"]?["identifier"] == "pocket_trainer_coach:annual:sw-auto")
        try await harness.superwall.dismiss()
        _ = try await register.value
    }
}

/// Superwall-Android's offer choice on its own.
@Suite struct PlayOfferChoiceTests {
    private let yearly = PlayOfferDetails.PricingPhase(price: 40, period: .init(unit: .year))

    private func offer(_ id: String?, _ first: Decimal? = nil, plan: String = "annual") -> PlayOfferDetails {
        PlayOfferDetails(
            basePlanId: plan,
            offerId: id,
            pricingPhases: first.map { [.init(price: $0, period: .init(unit: .month)), yearly] } ?? [yearly]
        )
    }

    @Test func withoutAFreeTrialTheCheapestFirstPaidPhaseIsChosenAndItsFirstOnATie() {
        let listing = [offer(nil), offer("half", 20), offer("quarter", 10), offer("also-quarter", 10)]
        #expect(listing.chosen(for: "annual", .automatic)?.offerId == "quarter")
    }

    @Test func aBasePlanPlayDoesNotListChoosesNothingAndNoBasePlanChoosesTheFirstListed() {
        let listing = [offer(nil, plan: "monthly"), offer("trial", 0, plan: "monthly"), offer(nil)]
        #expect(listing.chosen(for: "weekly", .automatic) == nil)
        #expect(listing.chosen(for: "", .automatic)?.basePlanId == "monthly")
        #expect(listing.chosen(for: "monthly", .noOffer)?.offerId == nil)
        #expect(listing.chosen(for: "monthly", .specified("trial"))?.offerId == "trial")
    }
}
