import Foundation
import Testing

@testable import SuperwallCore

/// A controller that answers from a script, optionally sets the status first (as a real one
/// must), and records what it was asked.
final class ScriptedPurchaseController: PurchaseController, @unchecked Sendable {
    enum Answer {
        case purchase(PurchaseResult)
        /// Never answers; ends only when cancelled.
        case silence
    }

    private let lock = NSLock()
    private var purchases: [String] = []
    private var cancelled = 0
    private let answer: Answer
    private let restoration: RestorationResult
    /// What the store says of a completed purchase.
    var transaction: TransactionReport?
    /// Called before answering `purchased` or `restored`: the controller sets the status.
    var beforeAnswering: (@Sendable () async -> Void)?

    init(_ answer: Answer, restoration: RestorationResult = .restored) {
        self.answer = answer
        self.restoration = restoration
    }

    func purchase(_ product: Product, paywallInfo: PaywallInfo?) async -> PurchaseAnswer {
        lock.withLock { purchases.append("\(product.id) from \(paywallInfo?.identifier ?? "app")") }
        switch answer {
        case .purchase(let result):
            if result == .purchased { await beforeAnswering?() }
            return PurchaseAnswer(result, transaction: result == .purchased ? transaction : nil)
        case .silence:
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
            lock.withLock { cancelled += 1 }
            return PurchaseAnswer(.cancelled)
        }
    }

    func restorePurchases() async -> RestorationResult {
        if restoration == .restored { await beforeAnswering?() }
        return restoration
    }

    var asked: [String] { lock.withLock { purchases } }
    var cancellations: Int { lock.withLock { cancelled } }
}

private var purchaseTriggers: [[String: Any]] {
    [
        placement("gated", [audience("e2", rule: nil, variants: [treatment("v2", "pro-workouts-gated")])]),
        placement("nongated", [audience("e1", rule: nil, variants: [treatment("v1", "onboarding-annual")])]),
    ]
}

private let annual = "com.pockettrainer.pro.annual"

/// A configured core whose purchase controller is `controller`, with `placement`'s paywall up.
private func showing(
    _ placement: String,
    controller: ScriptedPurchaseController?,
    timeouts: Superwall.Timeouts = Superwall.Timeouts(),
    testMode: TestModeBehavior = .automatic,
    automaticallyDismiss: Bool = true,
    webRestore: Bool = true
) async throws -> (PresentationHarness, PaywallPresentation, Task<PresentationOutcome, any Error>) {
    let config = try edited(try await presentationConfig(purchaseTriggers)) {
        if !webRestore { $0["web2app_config"] = nil }
    }
    let harness = await PresentationHarness.make(
        config,
        usingPurchaseController: controller != nil,
        timeouts: timeouts,
        purchaseController: controller,
        testModeBehavior: testMode,
        automaticallyDismiss: automaticallyDismiss
    )
    if controller != nil { try await harness.superwall.setSubscriptionStatus(.inactive) }
    let register = harness.registerInBackground(placement)
    let shown = try await harness.waitForPresentation()
    harness.delegate.clear()
    return (harness, shown, register)
}

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
        await harness.superwall.dismiss()
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
            await harness.superwall.dismiss()
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
        await harness.superwall.dismiss()
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
        await harness.superwall.dismiss()
    }

    /// SuperwallKit hands an app's own purchase to the store and tracks nothing; the bridge
    /// tracked a whole transaction. Here the controller is the store.
    @Test func anAppPurchaseOutsideAPaywallWithAControllerTracksNothing() async throws {
        let controller = ScriptedPurchaseController(.purchase(.purchased))
        let harness = await PresentationHarness.make(
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
        let harness = await PresentationHarness.make(
            try await presentationConfig(purchaseTriggers),
            usingPurchaseController: true,
            purchaseController: controller
        )
        harness.delegate.clear()
        #expect(try await harness.superwall.restorePurchases() == .restored)
        #expect(!harness.delegate.names.contains { $0.hasPrefix("restore_") || $0 == "transaction_restore" })
    }

    @Test func aTestModePurchaseOutsideAPaywallIsSourcedAPP() async throws {
        let harness = await PresentationHarness.make(
            try await presentationConfig(purchaseTriggers),
            testModeBehavior: .always
        )
        #expect(try await harness.superwall.purchase(productId: annual) == .purchased)
        #expect(harness.delegate.event("transaction_complete")?.delegateParameters["source"] == "APP")
    }
}

@Suite struct RestoreTests {
    @Test func aRestoreThatUnlocksThePaywallsEntitlementsDismissesAsRestored() async throws {
        let controller = ScriptedPurchaseController(.purchase(.cancelled), restoration: .restored)
        let (harness, shown, register) = try await showing("gated", controller: controller)
        controller.beforeAnswering = {
            _ = try? await harness.superwall.setSubscriptionStatus(.active([Entitlement(id: "pro")]))
        }
        #expect(try await harness.superwall.perform(.restore, inSession: shown.sessionId) == .restore(.restored))
        let outcome = try await register.value
        #expect(outcome.featureGranted)
        guard case .dismissed(_, .restored) = outcome.ending else {
            Issue.record("expected a restore dismissal, got \(outcome.ending)")
            return
        }
        #expect(
            harness.delegate.names == [
                "restore_start", "subscriptionStatus_didChange", "device_attributes", "customerInfo_didChange",
                "restore_complete",
                "transaction_restore", "paywall_close",
            ]
        )
    }

    /// SuperwallKit dismisses on a restore that ends with any active entitlement; whether it
    /// covers everything the paywall sells matters only with a web restore URL.
    @Test func aRestoreWithAnyActiveEntitlementDismissesWhenTheConfigHasNoWebRestore() async throws {
        let controller = ScriptedPurchaseController(.purchase(.cancelled), restoration: .restored)
        let config = try edited(
            try await presentationConfig(
                purchaseTriggers + [
                    placement("sale", [audience("e3", rule: nil, variants: [treatment("v3", "summer-sale")])])
                ]
            )
        ) { $0["web2app_config"] = nil }
        let harness = await PresentationHarness.make(
            config,
            usingPurchaseController: true,
            purchaseController: controller
        )
        try await harness.superwall.setSubscriptionStatus(.inactive)
        let register = harness.registerInBackground("sale")
        let shown = try await harness.waitForPresentation()
        // summer-sale sells pro and coach; the restore brings back pro only.
        controller.beforeAnswering = {
            _ = try? await harness.superwall.setSubscriptionStatus(.active([Entitlement(id: "pro")]))
        }
        #expect(try await harness.superwall.perform(.restore, inSession: shown.sessionId) == .restore(.restored))
        try await eventually { harness.presenter.dismissed.map(\.result) == [.restored] }
        guard case .dismissed(_, .restored) = try await register.value.ending else {
            Issue.record("expected a restore dismissal")
            return
        }
        #expect(harness.presenter.alerts.isEmpty)
    }

    @Test func withAWebRestoreURLAPartialRestoreOffersTheWebRestoreAndKeepsThePaywall() async throws {
        let controller = ScriptedPurchaseController(.purchase(.cancelled), restoration: .restored)
        let harness = await PresentationHarness.make(
            try await presentationConfig(
                purchaseTriggers + [
                    placement("sale", [audience("e3", rule: nil, variants: [treatment("v3", "summer-sale")])])
                ]
            ),
            usingPurchaseController: true,
            purchaseController: controller
        )
        try await harness.superwall.setSubscriptionStatus(.inactive)
        _ = harness.registerInBackground("sale")
        let shown = try await harness.waitForPresentation()
        harness.delegate.clear()
        controller.beforeAnswering = {
            _ = try? await harness.superwall.setSubscriptionStatus(.active([Entitlement(id: "pro")]))
        }
        // The answer used to look like a plain success while the paywall stayed up.
        #expect(
            try await harness.superwall.perform(.restore, inSession: shown.sessionId)
                == .restore(.restored, paywallKept: .webRestoreOffered(lockedEntitlements: ["coach"]))
        )
        #expect(harness.presenter.alerts.map(\.actionURL) == ["https://pockettrainer.superwall.app/manage"])
        #expect(harness.presenter.alerts.first?.title == "Some purchases were not restored")
        #expect(await harness.superwall.openSessionId == shown.sessionId)
        #expect(!harness.delegate.names.contains("restore_complete"))
        await harness.superwall.dismiss()
    }

    @Test func aRestoreWithNoActiveEntitlementIsAFailure() async throws {
        let (harness, shown, _) = try await showing(
            "gated",
            controller: ScriptedPurchaseController(.purchase(.cancelled), restoration: .restored),
            webRestore: false
        )
        guard
            case .restore(.failed(let message?), _)? = try await harness.superwall.perform(
                .restore,
                inSession: shown.sessionId
            )
        else {
            Issue.record("expected a failure")
            return
        }
        #expect(message.contains("no active entitlements"))
        #expect(harness.delegate.names == ["restore_start", "restore_fail"])
        #expect(await harness.superwall.openSessionId == shown.sessionId)
        await harness.superwall.dismiss()
    }

    @Test func aFailedRestoreSaysWhy() async throws {
        let controller = ScriptedPurchaseController(.purchase(.cancelled), restoration: .failed("store unreachable"))
        let (harness, shown, _) = try await showing("gated", controller: controller)
        #expect(
            try await harness.superwall.perform(.restore, inSession: shown.sessionId)
                == .restore(.failed("store unreachable"))
        )
        #expect(harness.delegate.event("restore_fail")?.delegateParameters["error_message"] == "store unreachable")
        await harness.superwall.dismiss()
    }
}

@Suite struct TestModeTests {
    @Test func withTestModeAskedForPurchasesAreSimulatedAndGrantTheProductsEntitlements() async throws {
        let (harness, shown, register) = try await showing("gated", controller: nil, testMode: .always)
        #expect(await harness.superwall.isTestModeActive)
        #expect(
            try await harness.superwall.perform(.purchase(productId: annual), inSession: shown.sessionId)
                == .purchase(.purchased)
        )
        #expect(try await harness.superwall.subscriptionStatus().activeEntitlements.map(\.id) == ["pro"])
        #expect(harness.delegate.calls.contains("testMode purchase \(annual)"))
        #expect(harness.delegate.names.contains("transaction_complete"))
        #expect(try await register.value.featureGranted)
    }

    @Test func withoutAControllerOrTestModeAPurchaseIsRefusedAndGrantsNothing() async throws {
        let (harness, shown, _) = try await showing("gated", controller: nil)
        #expect(await harness.superwall.isTestModeActive == false)
        await #expect(throws: SuperwallError.noPurchaseController) {
            try await harness.superwall.perform(.purchase(productId: annual), inSession: shown.sessionId)
        }
        await #expect(throws: SuperwallError.noPurchaseController) {
            try await harness.superwall.purchase(productId: annual)
        }
        #expect(try await harness.superwall.subscriptionStatus().activeEntitlements.isEmpty)
        #expect(!harness.delegate.names.contains("transaction_complete"))
        await harness.superwall.dismiss()
    }

    @Test func automaticTestModeIsForTheConfigsTestUsersAndAMismatchedBundle() async throws {
        let listed = try edited(try await presentationConfig([])) {
            $0["test_mode_user_ids"] = [["type": "userId", "value": "tester"]]
        }
        let harness = await PresentationHarness.make(listed)
        #expect(await harness.superwall.isTestModeActive == false)
        _ = try await harness.superwall.identify(userId: "tester")
        #expect(await harness.superwall.isTestModeActive)
        #expect(Superwall.isBundleMismatch(configured: "com.pockettrainer", actual: "superwall-bridge"))
        #expect(!Superwall.isBundleMismatch(configured: "com.pockettrainer", actual: "com.pockettrainer.widget"))
        #expect(!Superwall.isBundleMismatch(configured: nil, actual: "anything"))
        let bundled = try edited(try await presentationConfig([])) { $0["bundle_id_config"] = "com.pockettrainer" }
        let mismatched = await PresentationHarness.make(bundled, device: ["bundleId": "com.other"])
        #expect(await mismatched.superwall.isTestModeActive)
        let matched = await PresentationHarness.make(bundled, device: ["bundleId": "com.pockettrainer"])
        #expect(await matched.superwall.isTestModeActive == false)
    }

    /// The device's bundle id defaulted to a placeholder, so every config carrying
    /// `bundle_id_config` switched test mode on: purchases simulated and granted, the
    /// purchase controller never asked, and nothing said.
    @Test func aBundleIdTheClientNeverGaveCannotMismatch() async throws {
        let bundled = try edited(try await presentationConfig([])) { $0["bundle_id_config"] = "com.pockettrainer" }
        let harness = await PresentationHarness.make(bundled)
        #expect(await harness.superwall.isTestModeActive == false)
    }

    /// Test mode used to turn on without a word; SuperwallKit makes the device a sandbox one.
    @Test func testModeSaysWhyItIsOnAndMakesTheDeviceASandbox() async throws {
        let bundled = try edited(try await presentationConfig([])) { $0["bundle_id_config"] = "com.pockettrainer" }
        let mismatched = await PresentationHarness.make(bundled, device: ["bundleId": "com.other"])
        #expect(
            await mismatched.superwall.testModeReason
                == .bundleIdMismatch(expected: "com.pockettrainer", actual: "com.other")
        )
        #expect(await mismatched.superwall.deviceAttributes()["isSandbox"] == "true")
        let always = await PresentationHarness.make(try await presentationConfig([]), testModeBehavior: .always)
        #expect(await always.superwall.testModeReason == .testModeBehavior)
        let off = await PresentationHarness.make(bundled, device: ["bundleId": "com.pockettrainer"])
        #expect(await off.superwall.testModeReason == nil)
        #expect(await off.superwall.deviceAttributes()["isSandbox"] == "false")
        let listed = try edited(try await presentationConfig([])) {
            $0["test_mode_user_ids"] = [["type": "userId", "value": "tester"]]
        }
        let user = await PresentationHarness.make(listed)
        _ = try await user.superwall.identify(userId: "tester")
        #expect(await user.superwall.testModeReason == .testModeUser("tester"))
        #expect(await user.superwall.deviceAttributes()["isSandbox"] == "true")
    }

    @Test func withTestModeOffAndNoControllerAPurchaseIsAClearError() async throws {
        let (harness, shown, _) = try await showing("gated", controller: nil, testMode: .never)
        await #expect(throws: SuperwallError.noPurchaseController) {
            try await harness.superwall.perform(.purchase(productId: annual), inSession: shown.sessionId)
        }
        await harness.superwall.dismiss()
    }

    @Test func alwaysSimulatesEvenWithAController() async throws {
        let controller = ScriptedPurchaseController(.purchase(.cancelled))
        let (harness, shown, _) = try await showing("gated", controller: controller, testMode: .always)
        #expect(
            try await harness.superwall.perform(.purchase(productId: annual), inSession: shown.sessionId)
                == .purchase(.purchased)
        )
        #expect(controller.asked.isEmpty)
    }
}

@Suite struct ProductOverrideTests {
    private static let coach = "com.pockettrainer.coach.monthly"

    @Test func anOverriddenProductIsShownAndSoldInItsNamesPlace() async throws {
        let controller = ScriptedPurchaseController(.purchase(.cancelled))
        let harness = await PresentationHarness.make(
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
        await harness.superwall.dismiss()
    }

    @Test func getPaywallsOverridesReplaceProductsOverTheOptionAndThePresentationStyle() async throws {
        let controller = ScriptedPurchaseController(.purchase(.cancelled))
        let harness = await PresentationHarness.make(
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
        await harness.superwall.dismiss()
    }

    @Test func aPresentationStyleOfNoneKeepsThePaywallsOwn() async throws {
        let harness = await PresentationHarness.make(
            try await presentationConfig(purchaseTriggers),
            testModeBehavior: .always
        )
        let plain = try await harness.superwall.getPaywall(placement: "gated")
        await harness.superwall.dismiss()
        let kept = try await harness.superwall.getPaywall(
            placement: "gated",
            overrides: PaywallOverrides(
                presentationStyle: PresentationStyle(kind: .none, height: nil, width: nil, cornerRadius: nil)
            )
        )
        #expect(kept.paywall.presentationStyle == plain.paywall.presentationStyle)
        await harness.superwall.dismiss()
    }

    @Test func getPaywallRefusesAnOverrideWithAProductNobodyKnowsBeforeTrackingAnything() async throws {
        let harness = await PresentationHarness.make(
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
        let harness = await PresentationHarness.make(
            try await presentationConfig(purchaseTriggers),
            testModeBehavior: .always
        )
        _ = harness.registerInBackground("gated")
        let shown = try await harness.waitForPresentation()
        #expect(shown.paywall.products.first?.storeProduct.productIdentifier == annual)
        await harness.superwall.dismiss()
    }
}
