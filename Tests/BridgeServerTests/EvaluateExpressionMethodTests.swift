import BridgeServer
import Foundation
import JSONRPC
import Logging
import TestSupport
import Testing

@Suite struct EvaluateExpressionMethodTests {
    private let context: JSONValue = [
        "variables": ["user": ["type": "map", "value": ["credits": ["type": "int", "value": 3]]]],
        "computed": ["daysSince": [["type": "string", "value": "event_name"]]],
        "host": ["daysSince": ["type": "uint", "value": 4]],
    ]

    @Test func aGivenContextIsUsedAndTheValueComesBackTagged() async {
        let process = await bridgeProcess()
        let result = await call(
            process,
            "debug/evaluateExpression",
            ["expression": "user.credits < 5 && computed.daysSince('x') == 4", "context": context]
        )?["result"]
        #expect(result == ["value": ["type": "bool", "value": true]])
        let list = await call(
            process,
            "debug/evaluateExpression",
            ["expression": "[user.credits, 'a']", "context": context]
        )?["result"]
        #expect(
            list == [
                "value": ["type": "list", "value": [["type": "int", "value": 3], ["type": "string", "value": "a"]]]
            ]
        )
    }

    @Test func compileAndEvaluationErrorsAreResultsWithAMessage() async {
        let process = await bridgeProcess()
        let compile = await call(
            process,
            "debug/evaluateExpression",
            ["expression": "user.credits <", "context": context]
        )?["result"]
        #expect(compile?["error"]?["message"]?.stringValue?.hasPrefix("Failed to compile expression") == true)
        #expect(compile?["error"]?["line"] == 1 && compile?["error"]?["column"] == 15)
        let evaluation = await call(process, "debug/evaluateExpression", ["expression": "1 / 0", "context": context])?[
            "result"
        ]
        #expect(evaluation == ["error": ["message": "Division by zero"]])
    }

    @Test func aMalformedContextOrExpressionIsInvalidParams() async {
        let process = await bridgeProcess()
        let badContext = await call(
            process,
            "debug/evaluateExpression",
            ["expression": "1", "context": ["variables": ["user": ["type": "mystery"]]]]
        )?["error"]
        #expect(badContext?["code"] == -32602)
        #expect(badContext?["data"]?["path"] == "params.context")
        #expect(badContext?["message"]?.stringValue?.contains("context.variables.user") == true)
        let noExpression = await call(process, "debug/evaluateExpression", ["context": context])?["error"]
        #expect(noExpression?["code"] == -32602)
    }

    @Test func withoutAContextTheLiveUserIsUsedOnceConfigured() async {
        let process = await bridgeProcess()
        let early = await call(process, "debug/evaluateExpression", ["expression": "true"])?["error"]
        #expect(early?["data"]?["kind"] == "notConfigured")
        _ = await call(process, "configure", configureParams(temporaryDirectory()))
        _ = await call(process, "setUserAttributes", ["attributes": ["plan": "pro"]])
        let live = await call(
            process,
            "debug/evaluateExpression",
            [
                "expression":
                    "user.plan == 'pro' && device.platform == 'iOS' && params.source == 'settings' && device.placementsSinceInstall('app_launch') == 1",
                "params": ["source": "settings"],
            ]
        )?["result"]
        #expect(live == ["value": ["type": "bool", "value": true]])
        let noPlacement = await call(process, "debug/evaluateExpression", ["expression": "params"])?["result"]
        #expect(noPlacement == ["value": ["type": "string", "value": ""]])
    }
}
