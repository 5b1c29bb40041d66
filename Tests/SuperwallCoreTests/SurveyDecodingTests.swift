import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

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
