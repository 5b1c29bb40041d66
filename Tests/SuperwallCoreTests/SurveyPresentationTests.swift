import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

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
        try await run.harness.superwall.dismiss()
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
