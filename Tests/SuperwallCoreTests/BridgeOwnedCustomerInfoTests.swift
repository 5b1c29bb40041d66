import Foundation
import Synchronization
import Testing

@testable import SuperwallCore

/// Entitlements and customer info when the bridge owns the status: test mode, no controller.
@Suite struct BridgeOwnedCustomerInfoTests {
    @Test func atLaunchWithoutAControllerTheCustomerInfoIsKnownAndEmpty() async throws {
        let harness = try await PresentationHarness.make(
            try await presentationConfig(upsellTriggers),
            testModeBehavior: .always
        )
        let info = try await harness.superwall.customerInfo()
        #expect(!info.isPlaceholder)
        #expect(info.subscriptions.isEmpty && info.entitlements.isEmpty)
        #expect(info.userId.hasPrefix("$SuperwallAlias:"))
    }

    @Test func aTestModePurchaseIsRecordedAndDerivesTheStatusEntitlementsAndCustomerInfo() async throws {
        let harness = try await PresentationHarness.make(
            try await presentationConfig(upsellTriggers),
            testModeBehavior: .always
        )
        #expect(try await harness.superwall.purchase(productId: coach) == .purchased)
        let status = try await harness.superwall.subscriptionStatus()
        #expect(status.activeEntitlements.map(\.id) == ["coach", "pro"])
        let coachEntitlement = try #require(status.activeEntitlements.first)
        #expect(coachEntitlement.latestProductId == coach)
        #expect(coachEntitlement.state == .subscribed)
        let info = try await harness.superwall.customerInfo()
        #expect(info.subscriptions.map(\.productId) == [coach])
        #expect(info.activeSubscriptionProductIds == [coach])
        #expect(info.entitlements.map(\.id) == ["coach", "pro"])
        #expect(harness.delegate.calls.contains("customerInfo [\"coach\", \"pro\"]"))
        #expect(harness.delegate.names.contains("customerInfo_didChange"))
    }

    @Test func entitlementsListActiveInactiveAndAllFromTheProductMap() async throws {
        let harness = try await PresentationHarness.make(
            try await presentationConfig(upsellTriggers),
            testModeBehavior: .always
        )
        let before = try await harness.superwall.entitlements()
        #expect(before.active.isEmpty)
        #expect(before.all.map(\.id) == ["coach", "pro"])
        #expect(before.inactive.map(\.id) == ["coach", "pro"])
        _ = try await harness.superwall.purchase(productId: annual)
        let after = try await harness.superwall.entitlements()
        #expect(after.active.map(\.id) == ["pro"])
        #expect(after.inactive.map(\.id) == ["coach"])
        #expect(after.all.map(\.id) == ["coach", "pro"])
        #expect(after.web.isEmpty)
        let forCoach = try await harness.superwall.entitlements(forProductIds: [coach, "unknown"])
        #expect(forCoach.map(\.id) == ["coach", "pro"])
        #expect(forCoach.map(\.isActive) == [false, true])
        #expect(try await harness.superwall.entitlements(forProductIds: ["unknown"]).isEmpty)
    }

    @Test func rulesSeeTheStatusEntitlementsProductsAndCustomerInfoAtOnce() async throws {
        let harness = try await PresentationHarness.make(
            try await presentationConfig(upsellTriggers),
            testModeBehavior: .always
        )
        guard case .paywall = try await harness.superwall.presentationResult(for: "upsell"),
            case .paywall = try await harness.superwall.presentationResult(for: "coach_upsell")
        else {
            Issue.record("an inactive user should match both audiences")
            return
        }
        _ = try await harness.superwall.purchase(productId: coach)
        #expect(try await harness.superwall.presentationResult(for: "upsell") == .noAudienceMatch)
        #expect(try await harness.superwall.presentationResult(for: "coach_upsell") == .noAudienceMatch)
        let device = await harness.superwall.deviceAttributes()
        #expect(device["activeProducts"] == [.string(coach)])
        guard case .array(let objects)? = device["activeEntitlementObjects"] else {
            Issue.record("activeEntitlementObjects is not a list")
            return
        }
        #expect(objects.first?["latestProductId"] == JSON.string(coach))
    }

    @Test func thePurchaseHistoryAndCustomerInfoSurviveARelaunch() async throws {
        let config = try await presentationConfig(upsellTriggers)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("relaunch-\(UUID().uuidString)")
            .path
        let before: CustomerInfo
        do {
            let first = try await PresentationHarness.make(config, directory: directory, testModeBehavior: .always)
            _ = try await first.superwall.purchase(productId: coach)
            before = try await first.superwall.customerInfo()
            await first.superwall.awaitPresentationQueue()
        }
        let second = try await PresentationHarness.make(config, directory: directory, testModeBehavior: .always)
        #expect(try await second.superwall.customerInfo() == before)
        #expect(try await second.superwall.subscriptionStatus().activeEntitlements.map(\.id) == ["coach", "pro"])
    }

    @Test func aSimulatedSubscriptionLapsesAfterItsPeriodAndARestoreSeesIt() async throws {
        let monthly = StoreProductDetails(
            productIdentifier: coach,
            price: 19.99,
            currencyCode: "USD",
            period: .init(unit: .month)
        )
        let harness = try await PresentationHarness.make(
            try await presentationConfig(upsellTriggers),
            testModeBehavior: .always,
            storeProducts: [monthly]
        )
        _ = try await harness.superwall.purchase(productId: coach)
        #expect(
            try await harness.superwall.customerInfo().subscriptions.first?.expirationDate
                == harness.clock.now().addingTimeInterval(30 * 86_400)
        )
        harness.clock.advance(by: 31 * 86_400)
        #expect(
            try await harness.superwall.restorePurchases()
                == .failed("The restore finished but the user has no active entitlements.")
        )
        #expect(try await harness.superwall.subscriptionStatus() == .inactive)
        let info = try await harness.superwall.customerInfo()
        #expect(info.entitlements.map(\.state) == [.expired, .expired])
        #expect(info.activeSubscriptionProductIds.isEmpty)
    }
}
