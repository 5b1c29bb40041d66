import Foundation
import Testing

@testable import SuperwallCore

/// A paywall with one product: App Store unless `store` says otherwise.
private func paywall(
    _ storeProduct: StoreProduct = .appStore(productIdentifier: "annual", billingPlanType: nil),
    details: StoreProductDetails?,
    eligibility: String = "AUTOMATIC",
    entitlements: [String] = ["pro"]
) throws -> Paywall {
    let json = #"""
        {"id":"1","identifier":"p","name":"P","cache_key":"k","build_id":"b","url":"https://example.com",
         "url_config":{"endpoints":[],"max_attempts":1},"paywalljs_event":"","presentation_style_v3":{"type":"MODAL"},
         "presentation_delay":0,"background_color_hex":"#FFF","introductory_offer_eligibility":"\#(eligibility)","products_v2":[]}
        """#
    var decoded = try JSONDecoder().decode(Paywall.self, from: Data(json.utf8))
    var product = Product(
        referenceName: "primary",
        storeProduct: storeProduct,
        compositeId: nil,
        entitlements: entitlements.map { Entitlement(id: $0) }
    )
    product.storeDetails = details
    decoded.products = [product]
    return decoded
}

private let withTrial = StoreProductDetails(
    productIdentifier: "annual",
    price: 59.99,
    currencyCode: "USD",
    period: .init(unit: .year),
    trialPeriodDays: 7,
    subscriptionGroupId: "g1"
)

private func subscription(
    _ product: String,
    group: String?,
    active: Bool,
    offer: Entitlement.OfferType? = nil
) -> SubscriptionTransaction {
    SubscriptionTransaction(
        transactionId: UUID().uuidString,
        productId: product,
        purchaseDate: Date(),
        willRenew: active,
        isActive: active,
        expirationDate: nil,
        offerType: offer,
        subscriptionGroupId: group,
        store: .appStore
    )
}

private func isAvailable(_ paywall: Paywall, _ info: CustomerInfo = CustomerInfo()) -> Bool {
    FreeTrialEligibility(customerInfo: info).isAvailable(on: paywall)
}

@Suite struct FreeTrialEligibilityTests {
    @Test func aProductWithATrialIsEligibleUntilItsGroupWasBought() throws {
        #expect(isAvailable(try paywall(details: withTrial)))
        let lapsed = CustomerInfo(subscriptions: [subscription("monthly", group: "g1", active: false)])
        #expect(!isAvailable(try paywall(details: withTrial), lapsed))
        let otherGroup = CustomerInfo(subscriptions: [subscription("other", group: "g2", active: false)])
        #expect(isAvailable(try paywall(details: withTrial), otherGroup))
    }

    @Test func theStoresAnswerWinsButAnActiveSubscriptionInTheGroupStillBlocksIt() throws {
        var told = withTrial
        told.isEligibleForIntroOffer = true
        let lapsed = CustomerInfo(subscriptions: [subscription("monthly", group: "g1", active: false)])
        #expect(isAvailable(try paywall(details: told), lapsed))
        let upgrading = CustomerInfo(subscriptions: [subscription("monthly", group: "g1", active: true)])
        #expect(!isAvailable(try paywall(details: told), upgrading))
        told.isEligibleForIntroOffer = false
        #expect(!isAvailable(try paywall(details: told)))
    }

    @Test func noIntroOfferOrUndescribedProductsMeanNoTrial() throws {
        var noTrial = withTrial
        noTrial.trialPeriodDays = nil
        #expect(!isAvailable(try paywall(details: noTrial)))
        #expect(!isAvailable(try paywall(details: nil)))
    }

    @Test func thePaywallsEligibilityRuleOverridesTheStore() throws {
        #expect(!isAvailable(try paywall(details: withTrial, eligibility: "ALWAYS_INELIGIBLE")))
        let bought = CustomerInfo(subscriptions: [subscription("monthly", group: "g1", active: false)])
        #expect(isAvailable(try paywall(details: withTrial, eligibility: "ALWAYS_ELIGIBLE"), bought))
        let onTrial = CustomerInfo(subscriptions: [subscription("monthly", group: "g1", active: true, offer: .trial)])
        #expect(!isAvailable(try paywall(details: withTrial, eligibility: "ALWAYS_ELIGIBLE"), onTrial))
    }

    @Test func aStripeTrialNeedsEntitlementsTheUserNeverHeld() throws {
        let stripe = StoreProduct.stripe(productIdentifier: "price_1", trialDays: 7)
        #expect(isAvailable(try paywall(stripe, details: nil)))
        #expect(!isAvailable(try paywall(stripe, details: nil, entitlements: [])))
        #expect(!isAvailable(try paywall(stripe, details: nil), CustomerInfo.placeholder))
        let held = CustomerInfo(entitlements: [Entitlement(id: "pro", isActive: false, latestProductId: "price_0")])
        #expect(!isAvailable(try paywall(stripe, details: nil), held))
        let neverBought = CustomerInfo(entitlements: [Entitlement(id: "pro", isActive: false)])
        #expect(isAvailable(try paywall(stripe, details: nil), neverBought))
        #expect(!isAvailable(try paywall(.stripe(productIdentifier: "price_1", trialDays: 0), details: nil)))
    }
}
