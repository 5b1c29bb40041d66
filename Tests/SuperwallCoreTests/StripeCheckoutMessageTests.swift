import Foundation
import Testing

@testable import SuperwallCore

@Suite struct StripeCheckoutMessageTests {
    @Test func eachStageIsTrackedAndAnAbandonIsATransactionAbandonNotPassedToThePage() async throws {
        let (harness, shown, _) = try await showingPage()
        try await ping(harness, shown)
        harness.presenter.clearPageEvents()
        try await harness.superwall.handlePageMessage(
            envelope(
                ["event_name": "stripe_checkout_submit", "checkout_context_id": "c1", "product_identifier": "price_1"],
                [
                    "event_name": "stripe_checkout_complete", "checkout_context_id": "c1",
                    "product_identifier": "price_1",
                ],
                ["event_name": "stripe_checkout_fail", "checkout_context_id": "c2", "product_identifier": "price_1"],
                ["event_name": "stripe_checkout_abandon", "checkout_context_id": "c3", "product_identifier": "price_1"]
            ),
            inSession: shown.sessionId
        )
        let names = harness.delegate.names
        #expect(
            ["stripeCheckout_submit", "stripeCheckout_complete", "stripeCheckout_fail", "transaction_abandon"]
                .allSatisfy(names.contains)
        )
        #expect(!names.contains("stripeCheckout_abandon"))
        #expect(harness.delegate.event("transaction_abandon")?.delegateParameters["store"] == "STRIPE")
        #expect(harness.presenter.pageEventNames.isEmpty)
        #expect(await harness.superwall.openSessionId == shown.sessionId)
    }
}
