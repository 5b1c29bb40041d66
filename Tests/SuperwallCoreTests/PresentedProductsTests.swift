import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

@Suite struct PresentedProductsTests {
    /// `paywall/present` carried bare products even after the host described them.
    @Test func thePresentedPaywallsProductsCarryTheHostsStoreDetails() async throws {
        let annual = StoreProductDetails(
            productIdentifier: "com.pockettrainer.pro.annual",
            price: 59.99,
            currencyCode: "USD",
            localizedPrice: "$59.99",
            period: .init(unit: .year)
        )
        let harness = try await PresentationHarness.make(
            try await presentationConfig(actionTriggers),
            storeProducts: [annual]
        )
        let register = harness.registerInBackground("gated")
        let shown = try await harness.waitForPresentation()
        let product = try #require(
            shown.paywall.products.first { $0.storeProduct.productIdentifier == "com.pockettrainer.pro.annual" }
        )
        #expect(product.storeDetails == annual)
        #expect(shown.info.products.first { $0.id == product.id }?.storeDetails == annual)
        try await harness.superwall.dismiss()
        _ = try await register.value
    }
}
