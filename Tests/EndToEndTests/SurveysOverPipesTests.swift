import Foundation
import JSONRPC
import TestSupport
import Testing

/// `paywall/presentSurvey` between the real binary and a client: each shape of answer, and
/// which clients are asked at all.
@Suite struct SurveysOverPipesTests {
    /// A client on the survey config with `coach-upsell-gated` on screen, closed by the user.
    private static func closingTheSurveyedPaywall(timeouts: JSONValue = [:]) async throws -> (PaywallClient, String) {
        var client = try await PaywallClient.start(
            configSource: ["type": "file", "path": .string(conformanceConfig("demo-survey.json").path)],
            timeouts: timeouts
        )
        let sessionId = try await client.registerAndShow("register", "open_coach_chat")
        client.request("close", "paywall/action", ["sessionId": .string(sessionId), "action": ["type": "close"]])
        return (client, sessionId)
    }

    /// Answers the survey with `reply` (a result, or an error when `isError`), lets the paywall
    /// close, and returns the delegate's `paywall_close` params.
    private static func answeringTheSurvey(
        _ reply: JSONValue,
        isError: Bool = false
    ) async throws -> (PaywallClient, JSONValue) {
        var (client, sessionId) = try await closingTheSurveyedPaywall()
        let survey = try #require(await client.message("paywall/presentSurvey"))
        #expect(survey["params"]?["sessionId"] == .string(sessionId))
        #expect(survey["params"]?["survey"]?["options"]?.arrayValue?.count == 3)
        if isError {
            client.bridge.client.send(["jsonrpc": "2.0", "id": survey["id"] ?? .null, "error": reply])
        } else {
            client.answer(survey, reply)
        }
        client.answer(try #require(await client.message("paywall/dismiss")), [:])
        _ = try #require(await client.reply(to: "register"))
        let close = client.seen.last { $0["params"]?["event"]?["name"] == "paywall_close" }
        return (client, try #require(close?["params"]?["params"]))
    }

    @Test func theOtherOptionsTextReachesTheEvent() async throws {
        let (client, close) = try await Self.answeringTheSurvey([
            "type": "response", "optionId": "000", "customResponse": "Too busy",
        ])
        let response = try #require(client.seen.last { $0["params"]?["event"]?["name"] == "survey_response" })
        #expect(response["params"]?["params"]?["survey_selected_option_id"] == "000")
        #expect(response["params"]?["params"]?["survey_custom_response"] == "Too busy")
        #expect(response["params"]?["event"]?["selectedOption"] == ["id": "000", "title": "Other"])
        #expect(close["survey_presentation"] == "show")
    }

    @Test func theSurveysCloseButtonIsTracked() async throws {
        let (client, close) = try await Self.answeringTheSurvey(["type": "close"])
        #expect(client.eventNames.contains("survey_close"))
        #expect(!client.eventNames.contains("survey_response"))
        #expect(close["survey_presentation"] == "show")
    }

    /// A reply of no known shape, or an error, is a client that could not show the survey.
    @Test(arguments: [
        (["type": "maybe"] as JSONValue, false), (["code": -32601, "message": "no surveys here"] as JSONValue, true),
    ])
    func anAnswerOfNoKnownShapeOrAnErrorClosesThePaywallWithoutTheSurvey(reply: JSONValue, isError: Bool) async throws {
        let (client, close) = try await Self.answeringTheSurvey(reply, isError: isError)
        #expect(!client.eventNames.contains("survey_response"))
        #expect(close["survey_attached"] == true)
        #expect(close["survey_presentation"] == nil)
    }

    /// The paywall requests go only to a client that declared `paywallPresenter`: one that
    /// shows a `getPaywall` paywall itself hears of its end through its handler.
    @Test func aGetPaywallClientWithoutThePresenterCapabilityIsSentNoPaywallRequests() async throws {
        var client = try await PaywallClient.start(
            capabilities: ["delegate": true],
            configSource: ["type": "file", "path": .string(conformanceConfig("demo-survey.json").path)]
        )
        client.request("get", "getPaywall", ["placement": "open_coach_chat"])
        let sessionId = try #require(await client.reply(to: "get")?["result"]?["sessionId"]?.stringValue)
        client.request("close", "paywall/action", ["sessionId": .string(sessionId), "action": ["type": "close"]])
        #expect(await client.reply(to: "close")?["result"] == [:])
        client.request("ping", "$/ping")
        _ = try #require(await client.reply(to: "ping"))
        #expect(client.seen.contains { $0["method"] == "handler/onWillDismiss" })
        let requests = client.seen.compactMap { $0["id"] != nil ? $0["method"]?.stringValue : nil }
        #expect(requests.isEmpty, "the bridge sent \(requests)")
        #expect(client.eventNames.contains("paywall_close"))
    }
}
