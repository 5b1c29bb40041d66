import BridgeServer
import Foundation
import JSONRPC
import Logging
import TestSupport
import Testing

/// A rule of 200 `matches` on a 60 KB value ran on the thread that reads messages: `$/ping`
/// waited seconds behind it, and `$/cancelRequest` was not read until it had finished.
@Suite struct SlowRuleTests {
    private static let heavy = (0..<200).map { "text.matches('(a|b)*c\($0)')" }.joined(separator: " || ")
    private static let context: JSONValue = [
        "variables": ["text": ["type": "string", "value": .string(String(repeating: "a", count: 60_000))]]
    ]

    @Test func aPingIsAnsweredWhileASlowRuleEvaluates() async {
        let process = await bridgeProcess()
        process.client.request(
            "slow",
            "debug/evaluateExpression",
            ["expression": .string(Self.heavy), "context": Self.context]
        )
        process.client.request("ping", "$/ping")
        var order: [JSONValue] = []
        while order.count < 2, let message = await process.client.next(timeout: slowExpectationTimeout) {
            if let id = message["id"], message["method"] == nil { order.append(id) }
        }
        #expect(order == ["ping", "slow"])
    }

    @Test func aSlowRuleIsCancelledAtOnce() async {
        let process = await bridgeProcess()
        process.client.request(
            "slow",
            "debug/evaluateExpression",
            ["expression": .string(Self.heavy), "context": Self.context]
        )
        process.client.notify("$/cancelRequest", ["id": "slow"])
        let reply = await process.client.next(timeout: slowExpectationTimeout)
        #expect(reply?["id"] == "slow")
        #expect(reply?["error"]?["code"] == -32800)
    }

    /// A placement whose rule is heavy is decided off the SDK's actor from what its turn read:
    /// a decision on another placement, sent after it, is answered first, and so is a `reset`,
    /// which the heavy decision does not see.
    @Test func aPlacementWithAHeavyRuleHoldsNoOtherPlacement() async throws {
        var config = try demoConfigObject()
        var triggers = try #require(config["trigger_options"] as? [[String: Any]])
        let index = try #require(triggers.firstIndex { $0["event_name"] as? String == "start_workout" })
        var rules = try #require(triggers[index]["rules"] as? [[String: Any]])
        rules[0]["expression_cel"] =
            (0..<200).map { "user.text.matches('(a|b)*c\($0)')" }.joined(separator: " || ")
            + " || user.text == \"\""
        triggers[index]["rules"] = [rules[0]]
        config["trigger_options"] = triggers
        let path = temporaryDirectory() + ".json"
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: path))
        let process = await bridgeProcess()
        let params = configureParams(temporaryDirectory(), source: ["type": "file", "path": .string(path)])
        let configured = await call(process, "configure", params)
        #expect(configured?["result"]?["configurationStatus"] == "configured", "\(String(describing: configured))")
        let text = String(repeating: "a", count: 60_000)
        _ = await call(process, "setUserAttributes", ["attributes": ["text": .string(text)]])

        process.client.request("heavy", "getPresentationResult", ["placement": "start_workout"])
        process.client.request("other", "getPresentationResult", ["placement": "open_coach_chat"])
        var order: [String] = []
        var replies: [String: JSONValue] = [:]
        while order.count < 2, let reply = await process.client.nextReply() {
            guard let id = reply["id"]?.stringValue else { continue }
            order.append(id)
            replies[id] = reply
        }
        #expect(order == ["other", "heavy"])
        #expect(replies["other"]?["result"]?["type"] == "paywall", "\(String(describing: replies["other"]))")
        // The heavy rule read the 60 KB text its turn saw: no match, whatever the budget ended.
        #expect(replies["heavy"]?["result"] != nil, "\(String(describing: replies["heavy"]))")
    }
}
