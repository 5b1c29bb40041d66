import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

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
