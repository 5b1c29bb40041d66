import JSONRPC
import Testing

@testable import BridgeCommandLine

/// What a replay compares of a frame, and how it names where two frames part.
@Suite struct ReplayNormalizationTests {
    @Test func timesUUIDsTheDataDirectoryAndTheBridgesRequestIdsAreNotCompared() throws {
        let frame = try JSONDecoding.decode(
            #"""
            {"jsonrpc":"2.0","id":"sw-7","method":"paywall/present","params":{"at":"2026-11-28T10:02:14.812Z",
             "waitedMs":12.5,"createdAt":1764324134812,"dataDirectory":"/tmp/replay-1",
             "text":"user {\"applicationInstalledAt\": \"2026-11-28T10:32:24.135Z\"}",
             "alias":"$SuperwallAlias:E17770BF-EBDE-4DF2-B441-AA238307EFF8","plan":"free","count":3}}
            """#
        )
        #expect(
            ReplayNormalization.normalized(frame)
                == [
                    "id": "<id>", "method": "paywall/present",
                    "params": [
                        "at": "<time>", "waitedMs": "<time>", "createdAt": "<time>",
                        "dataDirectory": "<data directory>", "text": #"user {"applicationInstalledAt": "<time>"}"#,
                        "alias": "$SuperwallAlias:<uuid>", "plan": "free", "count": 3,
                    ],
                ]
        )
    }

    @Test func theFirstDifferenceNamesItsPathAndADecisionsGatesComeBeforeItsAudiences() throws {
        let recorded: JSONValue = [
            "result": [
                "decision": [
                    "audiences": [["expression": "a >= 3"]],
                    "gates": [["gate": "audiences", "passed": true]],
                ]
            ]
        ]
        let replayed: JSONValue = [
            "result": [
                "decision": [
                    "audiences": [["expression": "a >= 10"]],
                    "gates": [["gate": "audiences", "passed": false]],
                ]
            ]
        ]
        let difference = try #require(ReplayNormalization.firstDifference(recorded, replayed))
        #expect(difference.path == "$.result.decision.gates[0].passed")
        #expect(difference.recorded == "true" && difference.replayed == "false")
        #expect(ReplayNormalization.firstDifference(recorded, recorded) == nil)
        let shorter = try #require(ReplayNormalization.firstDifference(["list": [1, 2]], ["list": [1]]))
        #expect(shorter.path == "$.list[1]" && shorter.replayed == "(absent)")
    }
}
