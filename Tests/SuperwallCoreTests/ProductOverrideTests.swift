import Foundation
import Testing

@testable import SuperwallCore

@Suite struct ProductOverrideTests {
    private static let coach = "com.pockettrainer.coach.monthly"

    @Test func anOverriddenProductIsShownAndSoldInItsNamesPlace() async throws {
        let controller = ScriptedPurchaseController(.purchase(.cancelled))
        let harness = try await PresentationHarness.make(
            try await presentationConfig(purchaseTriggers),
            usingPurchaseController: true,
            purchaseController: controller,
            overrideProductsByName: ["primary": Self.coach, "secondary": "com.pockettrainer.unknown"]
        )
        try await harness.superwall.setSubscriptionStatus(.inactive)
        _ = harness.registerInBackground("gated")
        let shown = try await harness.waitForPresentation()
        let products = shown.paywall.products
        #expect(products.map(\.referenceName) == ["primary", "secondary"])
        #expect(products.first?.storeProduct.productIdentifier == Self.coach)
        #expect(products.first?.entitlements.map(\.id).sorted() == ["coach", "pro"])
        // Unknown to the catalogue and the host's store: the paywall's own product stays.
        #expect(products.last?.storeProduct.productIdentifier == "com.pockettrainer.pro.monthly")
        #expect(shown.info.products.first?.storeProduct.productIdentifier == Self.coach)
        _ = try await harness.superwall.perform(.purchase(productId: Self.coach), inSession: shown.sessionId)
        #expect(controller.asked == ["\(Self.coach) from pro-workouts-gated"])
        try await harness.superwall.dismiss()
    }

    @Test func getPaywallsOverridesReplaceProductsOverTheOptionAndThePresentationStyle() async throws {
        let controller = ScriptedPurchaseController(.purchase(.cancelled))
        let harness = try await PresentationHarness.make(
            try await presentationConfig(purchaseTriggers),
            usingPurchaseController: true,
            purchaseController: controller,
            overrideProductsByName: ["primary": "com.pockettrainer.pro.monthly"]
        )
        try await harness.superwall.setSubscriptionStatus(.inactive)
        let drawer = PresentationStyle(kind: .drawer, height: 70, width: nil, cornerRadius: 16)
        let shown = try await harness.superwall.getPaywall(
            placement: "gated",
            overrides: PaywallOverrides(productsByName: ["primary": Self.coach], presentationStyle: drawer)
        )
        #expect(shown.paywall.products.first?.storeProduct.productIdentifier == Self.coach)
        #expect(shown.info.products.first?.storeProduct.productIdentifier == Self.coach)
        #expect(shown.paywall.presentationStyle == drawer)
        // The page's templates and the purchase see the override too.
        let templates = await harness.superwall.templates(for: try #require(await harness.superwall.openPaywall))
        #expect(templates.paywall.products.first?.storeProduct.productIdentifier == Self.coach)
        _ = try await harness.superwall.perform(.purchase(productId: Self.coach), inSession: shown.sessionId)
        #expect(controller.asked == ["\(Self.coach) from pro-workouts-gated"])
        try await harness.superwall.dismiss()
    }

    @Test func aPresentationStyleOfNoneKeepsThePaywallsOwn() async throws {
        let harness = try await PresentationHarness.make(
            try await presentationConfig(purchaseTriggers),
            testModeBehavior: .always
        )
        let plain = try await harness.superwall.getPaywall(placement: "gated")
        try await harness.superwall.dismiss()
        let kept = try await harness.superwall.getPaywall(
            placement: "gated",
            overrides: PaywallOverrides(
                presentationStyle: PresentationStyle(kind: .none, height: nil, width: nil, cornerRadius: nil)
            )
        )
        #expect(kept.paywall.presentationStyle == plain.paywall.presentationStyle)
        try await harness.superwall.dismiss()
    }

    @Test func getPaywallRefusesAnOverrideWithAProductNobodyKnowsBeforeTrackingAnything() async throws {
        let harness = try await PresentationHarness.make(
            try await presentationConfig(purchaseTriggers),
            testModeBehavior: .always
        )
        await #expect(throws: SuperwallError.productNotFound("com.nowhere")) {
            try await harness.superwall.getPaywall(
                placement: "gated",
                overrides: PaywallOverrides(productsByName: ["primary": "com.nowhere"])
            )
        }
        #expect(harness.delegate.names.isEmpty)
    }

    @Test func withoutOverridesThePaywallsOwnProductsStand() async throws {
        let harness = try await PresentationHarness.make(
            try await presentationConfig(purchaseTriggers),
            testModeBehavior: .always
        )
        _ = harness.registerInBackground("gated")
        let shown = try await harness.waitForPresentation()
        #expect(shown.paywall.products.first?.storeProduct.productIdentifier == annual)
        try await harness.superwall.dismiss()
    }
}
