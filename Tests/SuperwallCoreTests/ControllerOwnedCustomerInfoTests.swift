import Foundation
import Synchronization
import Testing

@testable import SuperwallCore

/// Entitlements and customer info when the host's purchase controller owns the status.
@Suite struct ControllerOwnedCustomerInfoTests {
    @Test func getCustomerInfoWaitsForTheFirstStatusTheHostSets() async throws {
        let harness = try await PresentationHarness.make(
            try await presentationConfig(upsellTriggers),
            usingPurchaseController: true,
            timeouts: .statusTheTestSets
        )
        let waiting = Task { try await harness.superwall.customerInfo() }
        try await eventually { await harness.superwall.waitsForTheCustomerInfo }
        try await harness.superwall.setSubscriptionStatus(.active([Entitlement(id: "pro")]))
        let info = try await waiting.value
        #expect(info.entitlements.map(\.id) == ["pro"])
        #expect(info.subscriptions.isEmpty)
        #expect(harness.delegate.calls.contains("customerInfo [\"pro\"]"))
    }

    @Test func getCustomerInfoGivesUpAtTheStatusDeadline() async throws {
        var timeouts = Superwall.Timeouts()
        timeouts.subscriptionStatus = .milliseconds(100)
        let harness = try await PresentationHarness.make(
            try await presentationConfig(upsellTriggers),
            usingPurchaseController: true,
            timeouts: timeouts
        )
        await #expect(throws: SuperwallError.customerInfoTimeout(.milliseconds(100))) {
            try await harness.superwall.customerInfo()
        }
    }

    @Test func theCustomerInfoFollowsEveryStatusTheHostSets() async throws {
        let harness = try await PresentationHarness.make(
            try await presentationConfig(upsellTriggers),
            usingPurchaseController: true
        )
        try await harness.superwall.setSubscriptionStatus(.active([Entitlement(id: "pro"), Entitlement(id: "coach")]))
        #expect(try await harness.superwall.customerInfo().entitlements.map(\.id) == ["coach", "pro"])
        try await harness.superwall.setSubscriptionStatus(.inactive)
        #expect(try await harness.superwall.customerInfo().entitlements.isEmpty)
        #expect(harness.delegate.names.filter { $0 == "customerInfo_didChange" }.count == 2)
    }

    @Test func aPurchasedReplyRecordsTheTransactionTheStoreReported() async throws {
        let controller = ScriptedPurchaseController(.purchase(.purchased))
        let expiry = Date(timeIntervalSince1970: 1_900_000_000)
        controller.transaction = TransactionReport(transactionId: "store-42", expirationDate: expiry, offerType: .trial)
        let harness = try await PresentationHarness.make(
            try await presentationConfig(upsellTriggers),
            usingPurchaseController: true,
            purchaseController: controller
        )
        controller.beforeAnswering = {
            _ = try? await harness.superwall.setSubscriptionStatus(.active([Entitlement(id: "pro")]))
        }
        #expect(try await harness.superwall.purchase(productId: annual) == .purchased)
        let transaction = try #require(try await harness.superwall.customerInfo().subscriptions.first)
        #expect(transaction.transactionId == "store-42")
        #expect(transaction.expirationDate == expiry)
        #expect(transaction.offerType == .trial)
        #expect(transaction.productId == annual)
    }
}
