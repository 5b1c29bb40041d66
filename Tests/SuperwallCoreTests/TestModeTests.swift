import Foundation
import Testing

@testable import SuperwallCore

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
        try await harness.superwall.dismiss()
    }

    @Test func automaticTestModeIsForTheConfigsTestUsersAndAMismatchedBundle() async throws {
        let listed = try edited(try await presentationConfig([])) {
            $0["test_mode_user_ids"] = [["type": "userId", "value": "tester"]]
        }
        let harness = try await PresentationHarness.make(listed)
        #expect(await harness.superwall.isTestModeActive == false)
        _ = try await harness.superwall.identify(userId: "tester")
        #expect(await harness.superwall.isTestModeActive)
        #expect(TestModeReason.isBundleMismatch(configured: "com.pockettrainer", actual: "superwall-bridge"))
        #expect(!TestModeReason.isBundleMismatch(configured: "com.pockettrainer", actual: "com.pockettrainer.widget"))
        #expect(!TestModeReason.isBundleMismatch(configured: nil, actual: "anything"))
        let bundled = try edited(try await presentationConfig([])) { $0["bundle_id_config"] = "com.pockettrainer" }
        let mismatched = try await PresentationHarness.make(bundled, device: ["bundleId": "com.other"])
        #expect(await mismatched.superwall.isTestModeActive)
        let matched = try await PresentationHarness.make(bundled, device: ["bundleId": "com.pockettrainer"])
        #expect(await matched.superwall.isTestModeActive == false)
    }

    /// The device's bundle id defaulted to a placeholder, so every config carrying
    /// `bundle_id_config` switched test mode on: purchases simulated and granted, the
    /// purchase controller never asked, and nothing said.
    @Test func aBundleIdTheClientNeverGaveCannotMismatch() async throws {
        let bundled = try edited(try await presentationConfig([])) { $0["bundle_id_config"] = "com.pockettrainer" }
        let harness = try await PresentationHarness.make(bundled)
        #expect(await harness.superwall.isTestModeActive == false)
    }

    /// Test mode says why it is on, and makes the device a sandbox one, as SuperwallKit does.
    @Test func testModeSaysWhyItIsOnAndMakesTheDeviceASandbox() async throws {
        let bundled = try edited(try await presentationConfig([])) { $0["bundle_id_config"] = "com.pockettrainer" }
        let mismatched = try await PresentationHarness.make(bundled, device: ["bundleId": "com.other"])
        #expect(
            await mismatched.superwall.testModeReason
                == .bundleIdMismatch(expected: "com.pockettrainer", actual: "com.other")
        )
        #expect(await mismatched.superwall.deviceAttributes()["isSandbox"] == "true")
        let always = try await PresentationHarness.make(try await presentationConfig([]), testModeBehavior: .always)
        #expect(await always.superwall.testModeReason == .testModeBehavior)
        let off = try await PresentationHarness.make(bundled, device: ["bundleId": "com.pockettrainer"])
        #expect(await off.superwall.testModeReason == nil)
        #expect(await off.superwall.deviceAttributes()["isSandbox"] == "false")
        let listed = try edited(try await presentationConfig([])) {
            $0["test_mode_user_ids"] = [["type": "userId", "value": "tester"]]
        }
        let user = try await PresentationHarness.make(listed)
        _ = try await user.superwall.identify(userId: "tester")
        #expect(await user.superwall.testModeReason == .testModeUser("tester"))
        #expect(await user.superwall.deviceAttributes()["isSandbox"] == "true")
    }

    @Test func withTestModeOffAndNoControllerAPurchaseIsAClearError() async throws {
        let (harness, shown, _) = try await showing("gated", controller: nil, testMode: .never)
        await #expect(throws: SuperwallError.noPurchaseController) {
            try await harness.superwall.perform(.purchase(productId: annual), inSession: shown.sessionId)
        }
        try await harness.superwall.dismiss()
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

    /// SuperwallKit's `SubscriptionStatusResolutionTests`: while test mode is on, the status it
    /// set stands against one set from outside; once test mode has set none, the host's applies.
    @Test func aStatusSetFromOutsideDoesNotUndoTestModesPurchase() async throws {
        let controller = ScriptedPurchaseController(.purchase(.cancelled))
        let (harness, shown, _) = try await showing("gated", controller: controller, testMode: .always)
        let fromOutside = SubscriptionStatus.active([Entitlement(id: "outside")])
        #expect(try await harness.superwall.setSubscriptionStatus(fromOutside) == fromOutside)
        #expect(try await harness.superwall.setSubscriptionStatus(.inactive) == .inactive)
        _ = try await harness.superwall.perform(.purchase(productId: annual), inSession: shown.sessionId)
        let bought = try await harness.superwall.subscriptionStatus()
        #expect(bought.isActive)
        #expect(try await harness.superwall.setSubscriptionStatus(.inactive) == bought)
        #expect(try await harness.superwall.subscriptionStatus() == bought)
    }
}

/// A host that offers test mode's choices and never makes one.
private struct SilentChooser: TestModeChooser {
    var offersChoices: Bool { true }
    func choosePurchaseOutcome(for product: Product) async -> TestModeChoice<TestModePurchaseOutcome> {
        try? await Task.sleep(for: .seconds(3600))
        return .chosen(.purchased)
    }
    func chooseRestoredEntitlements(from available: [String]) async -> TestModeChoice<[String]?> {
        try? await Task.sleep(for: .seconds(3600))
        return .chosen(available)
    }
}

@Suite struct TestModeChoiceTests {
    @Test func aChoiceThatNeverComesFailsThePurchaseAndTheRestoreAtTheirDeadlines() async throws {
        var timeouts = Superwall.Timeouts()
        timeouts.purchase = .milliseconds(50)
        timeouts.restore = .milliseconds(50)
        let harness = try await PresentationHarness.make(
            try await presentationConfig([]),
            timeouts: timeouts,
            testModeBehavior: .always,
            testModeChooser: SilentChooser()
        )
        guard case .failed(let message) = try await harness.superwall.purchase(productId: annual) else {
            Issue.record("expected a failed purchase")
            return
        }
        #expect(message.contains("No choice came within"))
        guard case .failed(let reason) = try await harness.superwall.restorePurchases() else {
            Issue.record("expected a failed restore")
            return
        }
        #expect(reason?.contains("No choice came within") == true)
        #expect(try await harness.superwall.subscriptionStatus().activeEntitlements.isEmpty)
    }
}

/// A host whose restore choice names these entitlements, whatever it was offered.
private struct NamingChooser: TestModeChooser {
    let names: [String]
    var offersChoices: Bool { true }
    func choosePurchaseOutcome(for product: Product) async -> TestModeChoice<TestModePurchaseOutcome> {
        .chosen(.purchased)
    }
    func chooseRestoredEntitlements(from available: [String]) async -> TestModeChoice<[String]?> {
        .chosen(names)
    }
}

@Suite struct TestModeRestoreTests {
    @Test func aRestoreGrantsOnlyTheEntitlementsItOfferedAndLeavesTheRestOut() async throws {
        let harness = try await PresentationHarness.make(
            try await presentationConfig([]),
            testModeBehavior: .always,
            testModeChooser: NamingChooser(names: ["bogus", "pro", "pro"] + (0..<10_000).map { "made-up-\($0)" })
        )
        #expect(try await harness.superwall.restorePurchases() == .restored)
        #expect(try await harness.superwall.subscriptionStatus().activeEntitlements.map(\.id) == ["pro"])
    }

    @Test func aRestoreOfNothingButStrangersLeavesTheUserInactive() async throws {
        let harness = try await PresentationHarness.make(
            try await presentationConfig([]),
            testModeBehavior: .always,
            testModeChooser: NamingChooser(names: ["bogus"])
        )
        _ = try await harness.superwall.restorePurchases()
        #expect(try await harness.superwall.subscriptionStatus().activeEntitlements.isEmpty)
    }
}
