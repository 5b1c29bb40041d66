import Foundation
import Synchronization
import Testing

@testable import SuperwallCore

/// What the host's store says of products, and how purchases are reported with it.
@Suite struct StoreProductTests {
    @Test func productsComeFromTheConfigWithTheHostsStoreDetails() async throws {
        let details = StoreProductDetails(
            productIdentifier: annual,
            price: 59.99,
            currencyCode: "USD",
            localizedPrice: "$59.99",
            period: .init(unit: .year)
        )
        let harness = try await PresentationHarness.make(
            try await presentationConfig(upsellTriggers),
            storeProducts: [details]
        )
        let all = try await harness.superwall.products()
        #expect(all.map(\.id) == ["com.pockettrainer.pro.monthly", annual, coach])
        #expect(all.first { $0.id == annual }?.storeDetails == details)
        #expect(try await harness.superwall.products(named: [coach, "nope"]).map(\.id) == [coach])
        let coachDetails = StoreProductDetails(productIdentifier: coach, price: 19.99, period: .init(unit: .month))
        try await harness.superwall.setStoreProducts([coachDetails])
        #expect(try await harness.superwall.products(named: [coach]).first?.storeDetails == coachDetails)
    }

    /// The client's storefront (`configure.device.storeFrontCountryCode`, `storeFrontId`): in the
    /// device template, so audiences can match on it, and in `transaction_complete`, as
    /// SuperwallKit reports the App Store's.
    @Test func theStorefrontTheClientGivesIsInTheTemplateAndTheCompletedTransaction() async throws {
        let harness = try await PresentationHarness.make(
            try await presentationConfig(upsellTriggers),
            testModeBehavior: .always,
            storeProducts: [StoreProductDetails(productIdentifier: annual, price: 59.99, period: .init(unit: .year))],
            device: ["storeFrontCountryCode": "DEU", "storeFrontId": "143443", "storeFrontCurrency": "EUR"]
        )
        let device = await harness.superwall.deviceAttributes()
        #expect(device["storeFrontCountryCode"] == "DEU")
        #expect(device["storeFrontCurrency"] == "EUR")
        _ = try await harness.superwall.purchase(productId: annual)
        let complete = try #require(harness.delegate.event("transaction_complete"))
        #expect(complete.delegateParameters["storefront_countryCode"] == "DEU")
        #expect(complete.delegateParameters["storefront_id"] == "143443")
    }

    @Test func aProductWithoutAPeriodIsANonRecurringPurchaseAndLastsForLife() async throws {
        let lifetime = StoreProductDetails(
            productIdentifier: annual,
            price: 149,
            currencyCode: "USD",
            localizedPrice: "$149.00"
        )
        let harness = try await PresentationHarness.make(
            try await presentationConfig(upsellTriggers),
            testModeBehavior: .always,
            storeProducts: [lifetime]
        )
        _ = try await harness.superwall.purchase(productId: annual)
        let complete = try #require(harness.delegate.event("transaction_complete"))
        #expect(complete.delegateParameters["transaction_type"] == "NON_RECURRING_PRODUCT_PURCHASE")
        #expect(complete.delegateParameters["product_raw_price"] == "149")
        #expect(complete.delegateParameters["product_price"] == "$149.00")
        #expect(harness.delegate.names.contains("nonRecurringProduct_purchase"))
        let info = try await harness.superwall.customerInfo()
        #expect(info.nonSubscriptions.map(\.productId) == [annual])
        #expect(info.entitlements.first?.isLifetime == true)
    }

    @Test func trialDaysFromTheStoreStartAFreeTrial() async throws {
        let trial = StoreProductDetails(
            productIdentifier: annual,
            price: 59.99,
            period: .init(unit: .year),
            trialPeriodDays: 7
        )
        let harness = try await PresentationHarness.make(
            try await presentationConfig(upsellTriggers),
            testModeBehavior: .always,
            storeProducts: [trial]
        )
        _ = try await harness.superwall.purchase(productId: annual)
        let complete = try #require(harness.delegate.event("transaction_complete"))
        #expect(complete.delegateParameters["transaction_type"] == "FREE_TRIAL_START")
        #expect(complete.delegateParameters["product_trial_period_days"] == "7")
        #expect(complete.delegateParameters["product_periodly"] == "yearly")
        #expect(harness.delegate.names.contains("freeTrial_start"))
        #expect(try await harness.superwall.customerInfo().subscriptions.first?.offerType == .trial)
    }
}
