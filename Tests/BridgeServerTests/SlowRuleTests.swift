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
        while order.count < 2, let message = await process.client.next(timeout: .seconds(120)) {
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
        let reply = await process.client.next(timeout: .seconds(120))
        #expect(reply?["id"] == "slow")
        #expect(reply?["error"]?["code"] == -32800)
    }
}
