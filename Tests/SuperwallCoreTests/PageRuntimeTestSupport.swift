import Foundation
import Testing

@testable import SuperwallCore

var pageTriggers: [[String: Any]] {
    [
        placement("gated", [audience("e2", rule: nil, variants: [treatment("v2", "pro-workouts-gated")])])
    ]
}

/// The gated paywall up, with a purchase controller when given, and its page not yet pinged.
func showingPage(
    controller: ScriptedPurchaseController? = nil,
    automaticallyDismiss: Bool = true,
    showsPurchaseFailureAlert: Bool = true,
    device: [String: JSON] = [:]
) async throws -> (PresentationHarness, PaywallPresentation, Task<PresentationOutcome, any Error>) {
    let harness = try await PresentationHarness.make(
        try await presentationConfig(pageTriggers),
        usingPurchaseController: controller != nil,
        purchaseController: controller,
        automaticallyDismiss: automaticallyDismiss,
        storeProducts: [annualDetails],
        showsPurchaseFailureAlert: showsPurchaseFailureAlert,
        device: device
    )
    if controller != nil { try await harness.superwall.setSubscriptionStatus(.inactive) }
    let register = harness.registerInBackground("gated", params: ["source": "settings"])
    let shown = try await harness.waitForPresentation()
    return (harness, shown, register)
}

func ping(_ harness: PresentationHarness, _ shown: PaywallPresentation) async throws {
    try await harness.superwall.handlePageMessage(
        envelope(["event_name": "ping", "version": "2023-01-12"]),
        inSession: shown.sessionId
    )
}
