import Foundation
import Testing

@testable import SuperwallCore

@Suite struct PurchaseAlertTests {
    @Test func aFailedPurchaseShowsSuperwallKitsAlertWithTheStoresMessage() async throws {
        let controller = ScriptedPurchaseController(.purchase(.failed("Your card was declined.")))
        let (harness, shown, _) = try await showingPage(controller: controller)
        try await harness.superwall.handlePageMessage(
            envelope(["event_name": "purchase", "product_identifier": .string(annual)]),
            inSession: shown.sessionId
        )
        try await eventually { !harness.presenter.alerts.isEmpty }
        #expect(
            harness.presenter.alerts == [
                PaywallAlert(title: "An error occurred", message: "Your card was declined.", closeActionTitle: "Done")
            ]
        )
    }

    @Test func withoutThePurchaseFailureAlertOptionAFailedPurchaseShowsNoAlert() async throws {
        let controller = ScriptedPurchaseController(
            .purchase(.failed("Your card was declined.")),
            restoration: .failed(nil)
        )
        let (harness, shown, _) = try await showingPage(controller: controller, showsPurchaseFailureAlert: false)
        try await harness.superwall.handlePageMessage(
            envelope(["event_name": "purchase", "product_identifier": .string(annual)]),
            inSession: shown.sessionId
        )
        // Alerts are asked in order: the restore's coming first means the purchase asked none.
        try await harness.superwall.handlePageMessage(envelope(["event_name": "restore"]), inSession: shown.sessionId)
        try await eventually { !harness.presenter.alerts.isEmpty }
        #expect(harness.presenter.alerts == [PaywallAlert.restoreFailed])
    }

    @Test func aPurchaseWaitingForApprovalShowsThePendingAlert() async throws {
        let controller = ScriptedPurchaseController(.purchase(.pending))
        let (harness, shown, _) = try await showingPage(controller: controller)
        try await harness.superwall.handlePageMessage(
            envelope(["event_name": "purchase", "product_identifier": .string(annual)]),
            inSession: shown.sessionId
        )
        try await eventually { !harness.presenter.alerts.isEmpty }
        #expect(harness.presenter.alerts.map(\.title) == ["Waiting for Approval"])
    }

    @Test func aRestoreThatFindsNothingShowsTheRestoreFailedAlert() async throws {
        let controller = ScriptedPurchaseController(.purchase(.purchased), restoration: .failed(nil))
        let (harness, shown, _) = try await showingPage(controller: controller)
        try await harness.superwall.handlePageMessage(envelope(["event_name": "restore"]), inSession: shown.sessionId)
        try await eventually { !harness.presenter.alerts.isEmpty }
        #expect(harness.presenter.alerts == [PaywallAlert.restoreFailed])
        #expect(harness.presenter.alerts.first?.actionTitle == nil)
    }

    @Test func aTransactionFailCampaignShowsItsPaywallInsteadOfTheAlert() async throws {
        let triggers =
            pageTriggers + [
                placement("transaction_fail", [audience("tf", rule: nil, variants: [treatment("tf-v", "summer-sale")])])
            ]
        let controller = ScriptedPurchaseController(.purchase(.failed("declined")))
        let harness = try await PresentationHarness.make(
            try await presentationConfig(triggers),
            usingPurchaseController: true,
            purchaseController: controller,
            storeProducts: [annualDetails]
        )
        try await harness.superwall.setSubscriptionStatus(.inactive)
        _ = harness.registerInBackground("gated")
        let shown = try await harness.waitForPresentation()
        try await harness.superwall.handlePageMessage(
            envelope(["event_name": "purchase", "product_identifier": .string(annual)]),
            inSession: shown.sessionId
        )
        _ = try await harness.waitForPresentation(2)
        #expect(harness.presenter.presentations.last?.paywall.identifier == "summer-sale")
        #expect(harness.presenter.alerts.isEmpty)
    }
}
