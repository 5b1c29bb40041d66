import Foundation
import Synchronization
import Testing

@testable import SuperwallCore

private let annual = "com.pockettrainer.pro.annual"
private let coach = "com.pockettrainer.coach.monthly"

private var upsellTriggers: [[String: Any]] {
    [
        placement(
            "upsell",
            [
                audience(
                    "e1",
                    rule: #"device.subscriptionStatus == "INACTIVE""#,
                    variants: [treatment("v1", "onboarding-annual")]
                )
            ]
        ),
        placement(
            "coach_upsell",
            [
                audience(
                    "e2",
                    rule:
                        #"!("coach" in device.activeEntitlements) && !("com.pockettrainer.coach.monthly" in device.activeProducts) && size(device.customerInfo.subscriptions) == 0"#,
                    variants: [treatment("v2", "onboarding-annual")]
                )
            ]
        ),
    ]
}

/// Entitlements and customer info when the bridge owns the status: test mode, no controller.
@Suite struct BridgeOwnedCustomerInfoTests {
    @Test func atLaunchWithoutAControllerTheCustomerInfoIsKnownAndEmpty() async throws {
        let harness = await PresentationHarness.make(
            try await presentationConfig(upsellTriggers),
            testModeBehavior: .always
        )
        let info = try await harness.superwall.customerInfo()
        #expect(!info.isPlaceholder)
        #expect(info.subscriptions.isEmpty && info.entitlements.isEmpty)
        #expect(info.userId.hasPrefix("$SuperwallAlias:"))
    }

    @Test func aTestModePurchaseIsRecordedAndDerivesTheStatusEntitlementsAndCustomerInfo() async throws {
        let harness = await PresentationHarness.make(
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
        let harness = await PresentationHarness.make(
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
        let harness = await PresentationHarness.make(
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
            let first = await PresentationHarness.make(config, directory: directory, testModeBehavior: .always)
            _ = try await first.superwall.purchase(productId: coach)
            before = try await first.superwall.customerInfo()
            await first.superwall.awaitPresentationQueue()
        }
        let second = await PresentationHarness.make(config, directory: directory, testModeBehavior: .always)
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
        let harness = await PresentationHarness.make(
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

/// Entitlements and customer info when the host's purchase controller owns the status.
@Suite struct ControllerOwnedCustomerInfoTests {
    @Test func getCustomerInfoWaitsForTheFirstStatusTheHostSets() async throws {
        let harness = await PresentationHarness.make(
            try await presentationConfig(upsellTriggers),
            usingPurchaseController: true
        )
        let waiting = Task { try await harness.superwall.customerInfo() }
        try await Task.sleep(for: .milliseconds(50))
        try await harness.superwall.setSubscriptionStatus(.active([Entitlement(id: "pro")]))
        let info = try await waiting.value
        #expect(info.entitlements.map(\.id) == ["pro"])
        #expect(info.subscriptions.isEmpty)
        #expect(harness.delegate.calls.contains("customerInfo [\"pro\"]"))
    }

    @Test func getCustomerInfoGivesUpAtTheStatusDeadline() async throws {
        var timeouts = Superwall.Timeouts()
        timeouts.subscriptionStatus = .milliseconds(100)
        let harness = await PresentationHarness.make(
            try await presentationConfig(upsellTriggers),
            usingPurchaseController: true,
            timeouts: timeouts
        )
        await #expect(throws: SuperwallError.customerInfoTimeout(.milliseconds(100))) {
            try await harness.superwall.customerInfo()
        }
    }

    @Test func theCustomerInfoFollowsEveryStatusTheHostSets() async throws {
        let harness = await PresentationHarness.make(
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
        let harness = await PresentationHarness.make(
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
        let harness = await PresentationHarness.make(
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

    @Test func aProductWithoutAPeriodIsANonRecurringPurchaseAndLastsForLife() async throws {
        let lifetime = StoreProductDetails(
            productIdentifier: annual,
            price: 149,
            currencyCode: "USD",
            localizedPrice: "$149.00"
        )
        let harness = await PresentationHarness.make(
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
        let harness = await PresentationHarness.make(
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
        let harness = await PresentationHarness.make(
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
        await harness.superwall.clockDidAdvance()
        guard case .active = try await harness.superwall.subscriptionStatus() else {
            Issue.record("the subscription ended before its month was out")
            return
        }
        harness.clock.advance(by: 20 * 86_400)
        await harness.superwall.clockDidAdvance()
        #expect(try await harness.superwall.subscriptionStatus() == .inactive)
        #expect(harness.delegate.event("subscriptionStatus_didChange") != nil)
    }
}

/// `StoppableClock`: the system's time until stopped, then only what advances give it.
@Suite struct StoppableClockTests {
    @Test func aStoppedClockStandsStillAndMovesByExactlyWhatItIsAdvanced() async throws {
        let clock = StoppableClock()
        #expect(clock.advance(by: 10) == nil, "a running clock is not advanced")
        clock.stop()
        let stopped = clock.now()
        try await Task.sleep(for: .milliseconds(20))
        #expect(clock.now() == stopped)
        #expect(clock.advance(by: 3601) == stopped.addingTimeInterval(3601))
        #expect(clock.now() == stopped.addingTimeInterval(3601))
    }

    @Test func aSleepOnAStoppedClockEndsWhenAnAdvanceReachesItsDeadline() async throws {
        let clock = StoppableClock()
        clock.stop()
        let woke = Mutex(false)
        let sleeper = Task {
            try await clock.sleep(for: .seconds(60))
            woke.withLock { $0 = true }
        }
        try await Task.sleep(for: .milliseconds(50))
        clock.advance(by: 59)
        try await Task.sleep(for: .milliseconds(50))
        #expect(!woke.withLock { $0 })
        clock.advance(by: 1)
        try await sleeper.value
        #expect(woke.withLock { $0 })
    }

    @Test func aSleepOnAStoppedClockEndsOnCancellation() async throws {
        let clock = StoppableClock()
        clock.stop()
        let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }
}
