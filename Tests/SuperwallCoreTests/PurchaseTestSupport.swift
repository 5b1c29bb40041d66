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

var purchaseTriggers: [[String: Any]] {
    [
        placement("gated", [audience("e2", rule: nil, variants: [treatment("v2", "pro-workouts-gated")])]),
        placement("nongated", [audience("e1", rule: nil, variants: [treatment("v1", "onboarding-annual")])]),
    ]
}

/// A configured core whose purchase controller is `controller`, with `placement`'s paywall up.
func showing(
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
    let harness = try await PresentationHarness.make(
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
