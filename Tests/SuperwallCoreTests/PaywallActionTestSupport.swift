import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

var actionTriggers: [[String: Any]] {
    [
        placement("nongated", [audience("e1", rule: nil, variants: [treatment("v1", "onboarding-annual")])]),
        placement("gated", [audience("e2", rule: nil, variants: [treatment("v2", "pro-workouts-gated")])]),
        placement(
            "summer_offer",
            [audience("e3", rule: #"params.offer == "summer""#, variants: [treatment("v3", "summer-sale")])]
        ),
    ]
}

/// A harness with one paywall on screen for `placement`.
func showing(
    _ placement: String,
    triggers: [[String: Any]] = actionTriggers,
    handler: RecordingHandler = RecordingHandler(),
    timeouts: Superwall.Timeouts = Superwall.Timeouts()
) async throws -> (PresentationHarness, PaywallPresentation, Task<PresentationOutcome, any Error>) {
    let harness = try await PresentationHarness.make(try await presentationConfig(triggers), timeouts: timeouts)
    let register = harness.registerInBackground(placement, handler: handler)
    return (harness, try await harness.waitForPresentation(), register)
}
