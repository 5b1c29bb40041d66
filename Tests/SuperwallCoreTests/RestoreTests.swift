import Foundation
import Testing

@testable import SuperwallCore

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
        let harness = try await PresentationHarness.make(
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

    /// The summer sale (pro and coach) on screen, with a controller whose restore brings back pro only.
    private func summerSaleRestoringProOnly(
        adjusting adjust: (inout Superwall.ConfigureOptions) -> Void = { _ in }
    ) async throws -> (PresentationHarness, PaywallPresentation, Task<PresentationOutcome, any Error>) {
        let controller = ScriptedPurchaseController(.purchase(.cancelled), restoration: .restored)
        let harness = try await PresentationHarness.make(
            try await presentationConfig(
                purchaseTriggers + [
                    placement("sale", [audience("e3", rule: nil, variants: [treatment("v3", "summer-sale")])])
                ]
            ),
            usingPurchaseController: true,
            purchaseController: controller,
            adjusting: adjust
        )
        try await harness.superwall.setSubscriptionStatus(.inactive)
        let register = harness.registerInBackground("sale")
        let shown = try await harness.waitForPresentation()
        harness.delegate.clear()
        controller.beforeAnswering = {
            _ = try? await harness.superwall.setSubscriptionStatus(.active([Entitlement(id: "pro")]))
        }
        return (harness, shown, register)
    }

    @Test func withAWebRestoreURLAPartialRestoreOffersTheWebRestoreAndKeepsThePaywall() async throws {
        let (harness, shown, _) = try await summerSaleRestoringProOnly()
        // The answer says the paywall stayed up, and why: not a plain success.
        #expect(
            try await harness.superwall.perform(.restore, inSession: shown.sessionId)
                == .restore(.restored, paywallKept: .webRestoreOffered(lockedEntitlements: ["coach"]))
        )
        #expect(harness.presenter.alerts.map(\.actionURL) == ["https://pockettrainer.superwall.app/manage"])
        #expect(harness.presenter.alerts.first?.title == "Some purchases were not restored")
        #expect(await harness.superwall.openSessionId == shown.sessionId)
        #expect(!harness.delegate.names.contains("restore_complete"))
        try await harness.superwall.dismiss()
    }

    /// `paywalls.shouldShowWebRestorationAlert: false`: the restore goes on as without a web
    /// restore page, dismissing on any active entitlement.
    @Test func withoutTheWebRestorationAlertAPartialRestoreDismissesAsRestored() async throws {
        let (harness, shown, register) = try await summerSaleRestoringProOnly { $0.showsWebRestorationAlert = false }
        #expect(try await harness.superwall.perform(.restore, inSession: shown.sessionId) == .restore(.restored))
        guard case .dismissed(_, .restored) = try await register.value.ending else {
            Issue.record("expected a restore dismissal")
            return
        }
        #expect(harness.presenter.alerts.isEmpty)
    }

    /// `paywalls.restoreFailed`: the app's own words (a German app's) for the alert.
    @Test func theRestoreFailedAlertSaysWhatTheOptionSays() async throws {
        let german = PaywallAlert(
            title: "Kein Abo gefunden",
            message: "Für dein Konto wurde kein aktives Abo gefunden.",
            closeActionTitle: "OK"
        )
        let controller = ScriptedPurchaseController(.purchase(.cancelled), restoration: .failed(nil))
        let harness = try await PresentationHarness.make(
            try await presentationConfig(purchaseTriggers),
            usingPurchaseController: true,
            purchaseController: controller,
            adjusting: { $0.restoreFailedAlert = german }
        )
        try await harness.superwall.setSubscriptionStatus(.inactive)
        _ = harness.registerInBackground("gated")
        let shown = try await harness.waitForPresentation()
        _ = try await harness.superwall.perform(.restore, inSession: shown.sessionId)
        try await eventually { !harness.presenter.alerts.isEmpty }
        #expect(harness.presenter.alerts == [german])
        try await harness.superwall.dismiss()
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
        try await harness.superwall.dismiss()
    }

    @Test func aFailedRestoreSaysWhy() async throws {
        let controller = ScriptedPurchaseController(.purchase(.cancelled), restoration: .failed("store unreachable"))
        let (harness, shown, _) = try await showing("gated", controller: controller)
        #expect(
            try await harness.superwall.perform(.restore, inSession: shown.sessionId)
                == .restore(.failed("store unreachable"))
        )
        #expect(harness.delegate.event("restore_fail")?.delegateParameters["error_message"] == "store unreachable")
        try await harness.superwall.dismiss()
    }
}
