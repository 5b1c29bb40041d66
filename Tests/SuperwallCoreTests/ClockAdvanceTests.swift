import Foundation
import Synchronization
import Testing

@testable import SuperwallCore

/// The wall clock moving on at once (`debug/advanceClock` on a manual clock).
@Suite struct ClockAdvanceTests {
    @Test func aSubscriptionEndsWhenTheClockIsAdvancedPastItsExpiry() async throws {
        let monthly = StoreProductDetails(
            productIdentifier: annual,
            price: 9.99,
            currencyCode: "USD",
            localizedPrice: "$9.99",
            period: .init(unit: .month)
        )
        let harness = try await PresentationHarness.make(
            try await presentationConfig(upsellTriggers),
            testModeBehavior: .always,
            storeProducts: [monthly]
        )
        _ = try await harness.superwall.purchase(productId: annual)
        guard case .active = try await harness.superwall.subscriptionStatus() else {
            Issue.record("the purchase did not make the user active")
            return
        }
        harness.clock.advance(by: 20 * 86_400)
        try await harness.superwall.clockDidAdvance()
        guard case .active = try await harness.superwall.subscriptionStatus() else {
            Issue.record("the subscription ended before its month was out")
            return
        }
        harness.clock.advance(by: 20 * 86_400)
        try await harness.superwall.clockDidAdvance()
        #expect(try await harness.superwall.subscriptionStatus() == .inactive)
        #expect(harness.delegate.event("subscriptionStatus_didChange") != nil)
    }
}
