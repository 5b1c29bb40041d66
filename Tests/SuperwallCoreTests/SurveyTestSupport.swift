import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

// SuperwallKit's paywall surveys (`SurveyManager`): which close asks which survey, the
// presentation probability drawn once per user and assignment key, the answers and their
// events, and the host that does not answer.

func survey(
    _ id: String = "survey-1",
    key: String = "key-1",
    condition: String = "ON_MANUAL_CLOSE",
    probability: Double = 1,
    other: Bool = true,
    close: Bool = true
) -> [String: Any] {
    [
        "id": id, "assignment_key": key, "title": "Why not now?", "message": "Help us make it better",
        "options": [
            ["id": "opt-price", "title": "Too expensive"], ["id": "opt-later", "title": "Maybe later"],
            ["id": "opt-features", "title": "Missing features"],
        ],
        "presentation_condition": condition, "presentation_probability": probability,
        "include_other_option": other, "include_close_option": close,
    ]
}

var surveyTriggers: [[String: Any]] {
    [
        placement("nongated", [audience("e1", rule: nil, variants: [treatment("v1", "onboarding-annual")])])
    ]
}

/// The test config, with `surveys` on the paywall `onboarding-annual`.
func surveyConfig(_ surveys: [[String: Any]], triggers: [[String: Any]] = surveyTriggers) async throws -> String {
    try edited(try await presentationConfig(triggers)) { config in
        editPaywalls(&config) { paywall in
            var paywall = paywall
            if paywall["identifier"] as? String == "onboarding-annual" { paywall["surveys"] = surveys }
            return paywall
        }
    }
}

/// Draws the same fraction of every range: 0.3 of 0..<1,000,000 is 300,000.
struct FractionRandomSource: RandomSource {
    let fraction: Double
    func uuid() -> UUID { UUID() }
    func int(in range: Range<Int>) -> Int { range.lowerBound + Int(Double(range.count) * fraction) }
}

struct SurveyRun {
    let harness: PresentationHarness
    let shown: PaywallPresentation
    let register: Task<PresentationOutcome, any Error>

    var closeEvent: TrackedEvent? { harness.delegate.event("paywall_close") }

    func close() async throws {
        _ = try await harness.superwall.perform(.close, inSession: shown.sessionId)
    }
}

/// `nongated` on screen, with `surveys` on its paywall and the host answering `answer`.
func showing(
    _ surveys: [[String: Any]],
    answer: (@Sendable (Survey) async throws -> SurveyAnswer)? = { _ in
        .response(optionId: "opt-price", customResponse: nil)
    },
    triggers: [[String: Any]] = surveyTriggers,
    random: any RandomSource = CountingRandomSource(),
    timeouts: Superwall.Timeouts = Superwall.Timeouts(),
    directory: String? = nil,
    controller: ScriptedPurchaseController? = nil
) async throws -> SurveyRun {
    let presenter = FakePresenter()
    presenter.surveyAnswer = answer
    let harness = try await PresentationHarness.make(
        try await surveyConfig(surveys, triggers: triggers),
        presenter: presenter,
        random: random,
        usingPurchaseController: controller != nil,
        timeouts: timeouts,
        directory: directory,
        purchaseController: controller
    )
    if controller != nil { try await harness.superwall.setSubscriptionStatus(.inactive) }
    let register = harness.registerInBackground("nongated")
    return SurveyRun(harness: harness, shown: try await harness.waitForPresentation(), register: register)
}
