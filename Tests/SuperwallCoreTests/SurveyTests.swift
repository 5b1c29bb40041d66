import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

// SuperwallKit's paywall surveys (`SurveyManager`): which close asks which survey, the
// presentation probability drawn once per user and assignment key, the answers and their
// events, and the host that does not answer.

private func survey(
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

private var surveyTriggers: [[String: Any]] {
    [
        placement("nongated", [audience("e1", rule: nil, variants: [treatment("v1", "onboarding-annual")])])
    ]
}

/// The test config, with `surveys` on the paywall `onboarding-annual`.
private func surveyConfig(_ surveys: [[String: Any]], triggers: [[String: Any]] = surveyTriggers) async throws -> String
{
    try edited(try await presentationConfig(triggers)) { config in
        editPaywalls(&config) { paywall in
            var paywall = paywall
            if paywall["identifier"] as? String == "onboarding-annual" { paywall["surveys"] = surveys }
            return paywall
        }
    }
}

/// Draws the same fraction of every range: 0.3 of 0..<1,000,000 is 300,000.
private struct FractionRandomSource: RandomSource {
    let fraction: Double
    func uuid() -> UUID { UUID() }
    func int(in range: Range<Int>) -> Int { range.lowerBound + Int(Double(range.count) * fraction) }
}

private struct SurveyRun {
    let harness: PresentationHarness
    let shown: PaywallPresentation
    let register: Task<PresentationOutcome, any Error>

    var closeEvent: TrackedEvent? { harness.delegate.event("paywall_close") }

    func close() async throws {
        _ = try await harness.superwall.perform(.close, inSession: shown.sessionId)
    }
}

/// `nongated` on screen, with `surveys` on its paywall and the host answering `answer`.
private func showing(
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
    let harness = await PresentationHarness.make(
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

@Suite struct SurveyDecodingTests {
    @Test func aPaywallsSurveysDecodeWithEveryField() async throws {
        let config = try Config.decode(
            from: Data(try await surveyConfig([survey(condition: "ON_PURCHASE", probability: 0.25, close: false)]).utf8)
        )
        let decoded = try #require(config.paywalls.first { $0.identifier == "onboarding-annual" }?.surveys.first)
        #expect(
            decoded
                == Survey(
                    id: "survey-1",
                    assignmentKey: "key-1",
                    title: "Why not now?",
                    message: "Help us make it better",
                    options: [
                        .init(id: "opt-price", title: "Too expensive"), .init(id: "opt-later", title: "Maybe later"),
                        .init(id: "opt-features", title: "Missing features"),
                    ],
                    presentationCondition: .onPurchase,
                    presentationProbability: 0.25,
                    includeOtherOption: true,
                    includeCloseOption: false
                )
        )
        #expect(config.paywalls.first { $0.identifier == "summer-sale" }?.surveys == [])
    }

    /// SuperwallKit decodes surveys as a lossy array: a bad one is dropped, the paywall stays.
    @Test func aMalformedSurveyIsDroppedWithItsPath() async throws {
        var missingKey = survey("survey-2")
        missingKey["include_close_option"] = nil
        let text = try await surveyConfig([
            survey("survey-1", condition: "ON_SOMETHING_ELSE"), missingKey, survey("survey-3"),
        ])
        let config = try Config.decode(from: Data(text.utf8))
        let paywall = try #require(config.paywalls.first { $0.identifier == "onboarding-annual" })
        #expect(paywall.surveys.map(\.id) == ["survey-3"])
        let index = try #require(config.paywalls.firstIndex { $0.identifier == "onboarding-annual" })
        #expect(
            config.droppedElements.map(\.path) == [
                "$.paywall_responses[\(index)].surveys[0]", "$.paywall_responses[\(index)].surveys[1]",
            ]
        )
    }
}

@Suite struct SurveyPresentationTests {
    /// SuperwallKit's order: the survey, its response, then the decline and the close.
    @Test func aManualCloseAsksTheSurveyAndTracksTheResponseBeforeTheDecline() async throws {
        let run = try await showing([survey()])
        try await run.close()
        let outcome = try await run.register.value
        #expect(outcome.featureGranted)
        #expect(run.harness.presenter.surveys.map(\.id) == ["survey-1"])
        let names = run.harness.delegate.names
        #expect(names.firstIndex(of: "survey_response")! < names.firstIndex(of: "paywall_decline")!)
        let response = try #require(run.harness.delegate.event("survey_response"))
        #expect(response.superwallParameters["survey_id"] == "survey-1")
        #expect(response.superwallParameters["survey_assignment_key"] == "key-1")
        #expect(response.superwallParameters["survey_selected_option_id"] == "opt-price")
        #expect(response.superwallParameters["paywall_identifier"] == "onboarding-annual")
        #expect(response.customParameters["survey_selected_option_title"] == "Too expensive")
        // No text: the param is left out, as nulls in an event's params are.
        #expect(response.customParameters["survey_custom_response"] == nil)
        #expect(response.subject.paywallInfo?.identifier == "onboarding-annual")
        #expect(run.closeEvent?.superwallParameters["survey_attached"] == true)
        #expect(run.closeEvent?.superwallParameters["survey_presentation"] == "show")
        #expect(run.harness.presenter.dismissed.map(\.closeReason) == [.manualClose])
    }

    @Test func theOptionsAreShownInAnOrderDrawnForEachSurvey() async throws {
        let run = try await showing([survey()], random: FractionRandomSource(fraction: 0))
        try await run.close()
        _ = try await run.register.value
        let shown = try #require(run.harness.presenter.surveys.first)
        #expect(shown.options.map(\.id) == ["opt-later", "opt-features", "opt-price"])
        #expect(
            run.harness.delegate.event("survey_response")?.customParameters["survey_selected_option_title"]
                == "Too expensive"
        )
    }

    @Test func aPaywallWithoutSurveysSaysSoOnClose() async throws {
        let run = try await showing([])
        try await run.close()
        _ = try await run.register.value
        #expect(run.harness.presenter.surveys.isEmpty)
        #expect(run.closeEvent?.superwallParameters["survey_attached"] == false)
        #expect(run.closeEvent?.superwallParameters["survey_presentation"] == nil)
    }

    /// The assignment key is stored once the user is assessed: a second close of the same
    /// paywall does not ask again, though the survey is still attached.
    @Test func aUserIsAskedASurveyOncePerAssignmentKey() async throws {
        let run = try await showing([survey()])
        try await run.close()
        _ = try await run.register.value
        let again = run.harness.registerInBackground("nongated")
        let second = try await run.harness.waitForPresentation(2)
        _ = try await run.harness.superwall.perform(.close, inSession: second.sessionId)
        _ = try await again.value
        #expect(run.harness.presenter.surveys.count == 1)
        #expect(run.closeEvent?.superwallParameters["survey_attached"] == true)
        #expect(run.closeEvent?.superwallParameters["survey_presentation"] == nil)
    }

    /// Only the last assessed key is kept, as in SuperwallKit: a survey with another key is
    /// asked, and a return to the first key asks it again.
    @Test func aSurveyWithAnotherAssignmentKeyIsAsked() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("survey-\(UUID().uuidString)")
            .path
        for key in ["key-1", "key-2", "key-1"] {
            let run = try await showing([survey(key: key)], directory: directory)
            try await run.close()
            _ = try await run.register.value
            #expect(run.harness.presenter.surveys.map(\.assignmentKey) == [key])
            await run.harness.superwall.awaitPresentationQueue()
        }
    }

    @Test func resetForgetsTheAssessmentSoTheNextUserIsAsked() async throws {
        let run = try await showing([survey()])
        try await run.close()
        _ = try await run.register.value
        _ = try await run.harness.superwall.reset()
        let again = run.harness.registerInBackground("nongated")
        let second = try await run.harness.waitForPresentation(2)
        _ = try await run.harness.superwall.perform(.close, inSession: second.sessionId)
        _ = try await again.value
        #expect(run.harness.presenter.surveys.count == 2)
    }

    @Test func aZeroProbabilityHoldsTheUserOutAndStillCountsAsAssessed() async throws {
        let run = try await showing([survey(probability: 0)])
        try await run.close()
        _ = try await run.register.value
        #expect(run.harness.presenter.surveys.isEmpty)
        #expect(run.closeEvent?.superwallParameters["survey_presentation"] == "holdout")
        let again = run.harness.registerInBackground("nongated")
        let second = try await run.harness.waitForPresentation(2)
        _ = try await run.harness.superwall.perform(.close, inSession: second.sessionId)
        _ = try await again.value
        #expect(run.closeEvent?.superwallParameters["survey_presentation"] == nil)
    }

    /// A draw below the probability shows the survey; one at or above it is the holdout.
    @Test(arguments: [(0.3, "show"), (0.6, "holdout")])
    func theProbabilityDecidesBetweenShowAndHoldout(fraction: Double, presentation: String) async throws {
        let run = try await showing([survey(probability: 0.5)], random: FractionRandomSource(fraction: fraction))
        try await run.close()
        _ = try await run.register.value
        #expect(run.closeEvent?.superwallParameters["survey_presentation"] == .string(presentation))
        #expect(run.harness.presenter.surveys.count == (presentation == "show" ? 1 : 0))
    }

    @Test func thePurchaseSurveyIsNotAskedOnAClose() async throws {
        let run = try await showing([survey(condition: "ON_PURCHASE")])
        try await run.close()
        _ = try await run.register.value
        #expect(run.harness.presenter.surveys.isEmpty)
        #expect(run.closeEvent?.superwallParameters["survey_attached"] == true)
    }

    @Test func aDismissalByTheSDKAsksNoSurvey() async throws {
        let run = try await showing([survey()])
        await run.harness.superwall.dismiss()
        _ = try await run.register.value
        #expect(run.harness.presenter.surveys.isEmpty)
    }

    /// The first survey whose condition the close meets is the one asked.
    @Test func aPurchaseAsksThePurchaseSurveyBeforeThePaywallCloses() async throws {
        let controller = ScriptedPurchaseController(.purchase(.purchased))
        let run = try await showing(
            [survey("on-close"), survey("on-purchase", key: "key-purchase", condition: "ON_PURCHASE")],
            controller: controller
        )
        controller.beforeAnswering = {
            _ = try? await run.harness.superwall.setSubscriptionStatus(.active([Entitlement(id: "pro")]))
        }
        _ = try await run.harness.superwall.perform(
            .purchase(productId: "com.pockettrainer.pro.annual"),
            inSession: run.shown.sessionId
        )
        let outcome = try await run.register.value
        guard case .dismissed(_, .purchased) = outcome.ending else {
            Issue.record("expected a purchase, got \(outcome.ending)")
            return
        }
        #expect(run.harness.presenter.surveys.map(\.id) == ["on-purchase"])
        let names = run.harness.delegate.names
        #expect(names.firstIndex(of: "transaction_complete")! < names.firstIndex(of: "survey_response")!)
        #expect(names.firstIndex(of: "survey_response")! < names.firstIndex(of: "paywall_close")!)
        #expect(run.closeEvent?.superwallParameters["survey_presentation"] == "show")
    }
}

@Suite struct SurveyAnswerTests {
    @Test func theCloseButtonTracksSurveyClose() async throws {
        let run = try await showing([survey()], answer: { _ in .close })
        try await run.close()
        _ = try await run.register.value
        #expect(run.harness.delegate.names.contains("survey_close"))
        #expect(!run.harness.delegate.names.contains("survey_response"))
        #expect(run.closeEvent?.superwallParameters["survey_presentation"] == "show")
    }

    @Test func aCloseTheSurveyDoesNotOfferRecordsNothing() async throws {
        let run = try await showing([survey(close: false)], answer: { _ in .close })
        try await run.close()
        _ = try await run.register.value
        #expect(!run.harness.delegate.names.contains("survey_close"))
        #expect(run.harness.presenter.surveys.first?.includeCloseOption == false)
    }

    @Test func theOtherOptionCarriesTheUsersText() async throws {
        let run = try await showing(
            [survey()],
            answer: { _ in .response(optionId: "000", customResponse: "  I only train in summer ") }
        )
        try await run.close()
        _ = try await run.register.value
        let response = try #require(run.harness.delegate.event("survey_response"))
        #expect(response.superwallParameters["survey_selected_option_id"] == "000")
        #expect(response.customParameters["survey_selected_option_title"] == "Other")
        #expect(response.customParameters["survey_custom_response"] == "I only train in summer")
    }

    @Test(arguments: [
        (true, SurveyAnswer.response(optionId: "000", customResponse: "   ")),
        (false, SurveyAnswer.response(optionId: "000", customResponse: "text")),
        (true, SurveyAnswer.response(optionId: "opt-unknown", customResponse: nil)),
    ])
    func anAnswerTheSurveyDoesNotAllowRecordsNoResponse(other: Bool, answer: SurveyAnswer) async throws {
        let run = try await showing([survey(other: other)], answer: { _ in answer })
        try await run.close()
        let outcome = try await run.register.value
        #expect(outcome.featureGranted)
        #expect(!run.harness.delegate.names.contains("survey_response"))
        #expect(run.harness.delegate.names.contains("paywall_decline"))
    }

    /// The host never answers: the paywall still closes once `timeouts.survey` has passed.
    @Test func anUnansweredSurveyLetsThePaywallCloseAtItsDeadline() async throws {
        var timeouts = Superwall.Timeouts()
        timeouts.survey = .milliseconds(100)
        let run = try await showing(
            [survey()],
            answer: { _ in
                try await Task.sleep(for: .seconds(3600))
                return .close
            },
            timeouts: timeouts
        )
        let (outcome, elapsed) = try await measuredOffThePool {
            try await run.close()
            return try await run.register.value
        }
        #expect(elapsed < .seconds(20), "the host would answer after an hour")
        #expect(outcome.featureGranted)
        #expect(!run.harness.delegate.names.contains("survey_response"))
        #expect(run.closeEvent?.superwallParameters["survey_presentation"] == "show")
        #expect(run.harness.presenter.dismissed.map(\.closeReason) == [.manualClose])
    }

    @Test func aHostThatCannotShowSurveysClosesThePaywallWithoutOne() async throws {
        let run = try await showing([survey()], answer: nil)
        try await run.close()
        _ = try await run.register.value
        #expect(run.harness.presenter.surveys.count == 1)
        #expect(run.closeEvent?.superwallParameters["survey_attached"] == true)
        #expect(run.closeEvent?.superwallParameters["survey_presentation"] == nil)
    }

    /// `survey_response` is an implicit trigger that replaces the paywall: its campaign's
    /// paywall follows, no decline is tracked, and the `register` follows the new paywall.
    @Test func aResponseCampaignReplacesThePaywall() async throws {
        let triggers =
            surveyTriggers + [
                placement(
                    "survey_response",
                    [
                        audience(
                            "s",
                            rule: #"params.survey_selected_option_title == "Too expensive""#,
                            variants: [treatment("vs", "summer-sale")]
                        )
                    ]
                )
            ]
        let run = try await showing([survey()], triggers: triggers)
        try await run.close()
        let offer = try await run.harness.waitForPresentation(2)
        #expect(offer.info.identifier == "summer-sale")
        #expect(offer.info.presentedByPlacementWithName == "survey_response")
        #expect(!run.harness.delegate.names.contains("paywall_decline"))
        #expect(run.harness.delegate.event("paywall_close")?.superwallParameters["survey_presentation"] == "show")
        _ = try await run.harness.superwall.perform(.close, inSession: offer.sessionId)
        let outcome = try await run.register.value
        guard case .dismissed(let info, .declined) = outcome.ending else {
            Issue.record("expected the survey's paywall to end the register, got \(outcome.ending)")
            return
        }
        #expect(info.identifier == "summer-sale")
        #expect(run.harness.presenter.dismissed.map(\.closeReason) == [.forNextPaywall, .manualClose])
    }

    @Test func aResponseCampaignThatDoesNotMatchLetsThePaywallClose() async throws {
        let triggers =
            surveyTriggers + [
                placement(
                    "survey_response",
                    [
                        audience(
                            "s",
                            rule: #"params.survey_selected_option_title == "Maybe later""#,
                            variants: [treatment("vs", "summer-sale")]
                        )
                    ]
                )
            ]
        let run = try await showing([survey()], triggers: triggers)
        try await run.close()
        _ = try await run.register.value
        await run.harness.superwall.awaitPresentationQueue()
        #expect(run.harness.presenter.presentations.count == 1)
        #expect(run.harness.delegate.names.contains("paywall_decline"))
    }
}
