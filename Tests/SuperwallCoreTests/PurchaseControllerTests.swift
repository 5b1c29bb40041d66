import Foundation
import Testing

@testable import SuperwallCore

@Suite struct PurchaseControllerTests {
    @Test func aPurchaseOnAGatedPaywallCompletesDismissesAndGrantsTheFeature() async throws {
        let controller = ScriptedPurchaseController(.purchase(.purchased))
        let (harness, shown, register) = try await showing("gated", controller: controller)
        controller.beforeAnswering = {
            _ = try? await harness.superwall.setSubscriptionStatus(.active([Entitlement(id: "pro")]))
        }
        let result = try await harness.superwall.perform(.purchase(productId: annual), inSession: shown.sessionId)
        #expect(result == .purchase(.purchased))
        #expect(controller.asked == ["\(annual) from pro-workouts-gated"])
        let outcome = try await register.value
        #expect(outcome.featureGranted)
        guard case .dismissed(let info, .purchased(let productId)) = outcome.ending else {
            Issue.record("expected a purchase dismissal, got \(outcome.ending)")
            return
        }
        #expect(productId == annual)
        #expect(info.closeReason == .systemLogic)
        #expect(
            harness.delegate.names == [
                // The status the controller set, then the transaction it recorded, each change the customer info.
                "transaction_start", "subscriptionStatus_didChange", "device_attributes", "customerInfo_didChange",
                "customerInfo_didChange",
                "transaction_complete", "subscription_start", "paywall_close",
            ]
        )
        let complete = try #require(harness.delegate.event("transaction_complete"))
        #expect(complete.delegateParameters["transaction_type"] == "SUBSCRIPTION_START")
        #expect(complete.delegateParameters["source"] == "SUPERWALL")
        #expect(complete.delegateParameters["store"] == "APP_STORE")
        #expect(complete.delegateParameters["product_id"] == .string(annual))
        #expect(complete.delegateParameters["paywall_identifier"] == "pro-workouts-gated")
    }

    @Test func transactionCompleteCarriesTheControllersTransactionTheUsersAttributesAndTheProductsVariables()
        async throws
    {
        let controller = ScriptedPurchaseController(.purchase(.purchased))
        controller.transaction = TransactionReport(
            transactionId: "2000000123",
            purchaseDate: Date(timeIntervalSince1970: 1_700_000_000.25),
            expirationDate: Date(timeIntervalSince1970: 1_731_536_000)
        )
        let (harness, shown, _) = try await showing("gated", controller: controller)
        _ = try await harness.superwall.setUserAttributes(["plan": "free"])
        try await harness.superwall.setStoreProducts([
            StoreProductDetails(
                productIdentifier: annual,
                price: 59.99,
                currencyCode: "USD",
                period: .init(unit: .year),
                priceLocale: "en_US"
            )
        ])
        controller.beforeAnswering = {
            _ = try? await harness.superwall.setSubscriptionStatus(.active([Entitlement(id: "pro")]))
        }
        _ = try await harness.superwall.perform(.purchase(productId: annual), inSession: shown.sessionId)
        let complete = try #require(harness.delegate.event("transaction_complete")).delegateParameters
        #expect(
            complete["store_transaction_id"] == "2000000123"
                && complete["original_transaction_identifier"] == "2000000123"
        )
        #expect(complete["transaction_date"] == "2023-11-14T22:13:20.250+00:00")
        #expect(complete["expiration_date"] == "2024-11-13T22:13:20.000+00:00")
        #expect(complete["state"] == "PURCHASED")
        #expect(complete["payment"] == ["product_identifier": .string(annual), "quantity": 1])
        #expect(complete["user_attributes"]?["plan"] == "free")
        #expect(complete["storefront_countryCode"] == "" && complete["storefront_id"] == "")
        // The product's variables, as strings, as the page's templates have them.
        #expect(complete["product_raw_price"] == "59.99" && complete["product_price"] == "$59.99")
        #expect(complete["product_period"] == "year" && complete["product_monthly_price"] == "$4.99")
        #expect(complete["product_trial_period_days"] == "0")
    }

    @Test func customerInfoDidChangeCarriesTheEntitlementsBeforeAndAfterAsSuperwallKitEncodesThem() async throws {
        let controller = ScriptedPurchaseController(.purchase(.purchased))
        let (harness, _, _) = try await showing("gated", controller: controller)
        try await harness.superwall.setSubscriptionStatus(.active([Entitlement(id: "pro")]))
        let change = try #require(harness.delegate.event("customerInfo_didChange")).delegateParameters
        let to = try JSONDecoder().decode(JSON.self, from: Data(try #require(change["to"]?.stringValue).utf8))
        #expect(to["isPlaceholder"] == false)
        guard case .array(let entitlements)? = to["entitlements"], let pro = entitlements.first else {
            Issue.record("no entitlements")
            return
        }
        #expect(entitlements.count == 1)
        #expect(
            pro["identifier"] == "pro" && pro["type"] == "SERVICE_LEVEL" && pro["store"] == "APP_STORE"
                && pro["isActive"] == true
        )
        let from = try JSONDecoder().decode(JSON.self, from: Data(try #require(change["from"]?.stringValue).utf8))
        #expect(from["entitlements"] == [])
    }

    @Test func withoutAutomaticDismissalThePaywallStaysAfterAPurchase() async throws {
        let controller = ScriptedPurchaseController(.purchase(.purchased))
        let (harness, shown, _) = try await showing("gated", controller: controller, automaticallyDismiss: false)
        _ = try await harness.superwall.perform(.purchase(productId: annual), inSession: shown.sessionId)
        #expect(await harness.superwall.openSessionId == shown.sessionId)
        try await harness.superwall.dismiss()
    }

    @Test func aCancelledPurchaseIsAbandonedAndAGatedFeatureStaysLocked() async throws {
        let (harness, shown, register) = try await showing(
            "gated",
            controller: ScriptedPurchaseController(.purchase(.cancelled))
        )
        #expect(
            try await harness.superwall.perform(.purchase(productId: annual), inSession: shown.sessionId)
                == .purchase(.cancelled)
        )
        #expect(harness.delegate.names == ["transaction_start", "transaction_abandon"])
        #expect(
            harness.delegate.event("transaction_abandon")?.customParameters["abandoned_product_id"] == .string(annual)
        )
        #expect(await harness.superwall.openSessionId == shown.sessionId)
        _ = try await harness.superwall.perform(.close, inSession: shown.sessionId)
        #expect(try await register.value.featureGranted == false)
    }

    @Test func pendingAndFailedPurchasesAreTransactionFailures() async throws {
        for (answer, message) in [
            (PurchaseResult.pending, "Needs parental approval"), (.failed("card declined"), "card declined"),
        ] {
            let (harness, shown, _) = try await showing(
                "gated",
                controller: ScriptedPurchaseController(.purchase(answer))
            )
            #expect(
                try await harness.superwall.perform(.purchase(productId: annual), inSession: shown.sessionId)
                    == .purchase(answer)
            )
            #expect(harness.delegate.names == ["transaction_start", "transaction_fail"])
            #expect(harness.delegate.event("transaction_fail")?.delegateParameters["message"] == .string(message))
            #expect(await harness.superwall.openSessionId == shown.sessionId)
            try await harness.superwall.dismiss()
        }
    }

    @Test func aControllerThatNeverAnswersTimesOutAndThePaywallStaysUsable() async throws {
        var timeouts = Superwall.Timeouts()
        timeouts.purchase = .milliseconds(50)
        let controller = ScriptedPurchaseController(.silence)
        let (harness, shown, register) = try await showing("gated", controller: controller, timeouts: timeouts)
        #expect(
            try await harness.superwall.perform(.purchase(productId: annual), inSession: shown.sessionId)
                == .purchase(.timedOut)
        )
        #expect(harness.delegate.names == ["transaction_start", "transaction_timeout"])
        try await eventually { controller.cancellations == 1 }
        _ = try await harness.superwall.perform(.close, inSession: shown.sessionId)
        #expect(try await register.value.featureGranted == false)
    }

    @Test func aSecondPurchaseWhileOneIsInFlightIsRefused() async throws {
        let controller = ScriptedPurchaseController(.silence)
        let (harness, shown, _) = try await showing("gated", controller: controller)
        let first = Task {
            try await harness.superwall.perform(.purchase(productId: annual), inSession: shown.sessionId)
        }
        try await eventually { controller.asked.count == 1 }
        await #expect(throws: SuperwallError.purchaseInProgress) {
            try await harness.superwall.perform(.purchase(productId: annual), inSession: shown.sessionId)
        }
        first.cancel()
        try await harness.superwall.dismiss()
    }

    @Test func anUnknownProductFailsWithNoEvents() async throws {
        let controller = ScriptedPurchaseController(.purchase(.purchased))
        let (harness, shown, _) = try await showing("gated", controller: controller)
        guard
            case .purchase(.failed)? = try await harness.superwall.perform(
                .purchase(productId: "nope"),
                inSession: shown.sessionId
            )
        else {
            Issue.record("expected a failure")
            return
        }
        #expect(harness.delegate.names.isEmpty)
        #expect(controller.asked.isEmpty)
        try await harness.superwall.dismiss()
    }

    /// SuperwallKit hands an app's own purchase to the store and tracks nothing; the bridge
    /// tracked a whole transaction. Here the controller is the store.
    @Test func anAppPurchaseOutsideAPaywallWithAControllerTracksNothing() async throws {
        let controller = ScriptedPurchaseController(.purchase(.purchased))
        let harness = try await PresentationHarness.make(
            try await presentationConfig(purchaseTriggers),
            usingPurchaseController: true,
            purchaseController: controller
        )
        harness.delegate.clear()
        #expect(try await harness.superwall.purchase(productId: annual) == .purchased)
        #expect(controller.asked == ["\(annual) from app"])
        #expect(!harness.delegate.names.contains { $0.hasPrefix("transaction_") || $0 == "subscription_start" })
        await #expect(throws: SuperwallError.productNotFound("nope")) {
            try await harness.superwall.purchase(productId: "nope")
        }
    }

    /// SuperwallKit returns the store's own restore result outside a paywall; the bridge
    /// answered `failed` when the status set had no active entitlement, with restore events.
    @Test func anAppRestoreOutsideAPaywallWithAControllerAnswersTheControllersResultAndTracksNothing() async throws {
        let controller = ScriptedPurchaseController(.purchase(.purchased), restoration: .restored)
        let harness = try await PresentationHarness.make(
            try await presentationConfig(purchaseTriggers),
            usingPurchaseController: true,
            purchaseController: controller
        )
        harness.delegate.clear()
        #expect(try await harness.superwall.restorePurchases() == .restored)
        #expect(!harness.delegate.names.contains { $0.hasPrefix("restore_") || $0 == "transaction_restore" })
    }

    @Test func aTestModePurchaseOutsideAPaywallIsSourcedAPP() async throws {
        let harness = try await PresentationHarness.make(
            try await presentationConfig(purchaseTriggers),
            testModeBehavior: .always
        )
        #expect(try await harness.superwall.purchase(productId: annual) == .purchased)
        #expect(harness.delegate.event("transaction_complete")?.delegateParameters["source"] == "APP")
    }
}
