import BridgeServer
import Foundation
import JSONRPC
import Logging
import TestSupport
import Testing

/// What a hostile client found accepted, each now refused with -32602 naming its limit.
@Suite struct ClientLimitTests {
    private func configured() async -> InProcessServer {
        let process = await bridgeProcess()
        _ = await call(process, "configure", configureParams(temporaryDirectory()))
        return process
    }

    private func limit(_ reply: JSONValue?) -> Int64? {
        #expect(reply?["error"]?["code"] == -32602, "\(String(describing: reply))")
        return reply?["error"]?["data"]?["limit"]?.int64Value
    }

    @Test func attributesThatNestTooDeeplyAreRefusedNotAStorageFailure() async {
        let process = await configured()
        var nested: JSONValue = "leaf"
        for _ in 0..<511 { nested = ["a": nested] }
        let reply = await call(process, "setUserAttributes", ["attributes": ["deep": nested]])
        #expect(limit(reply) == Int64(ClientLimits.attributeDepth))
        #expect((reply?["error"]?["message"]?.stringValue?.utf8.count ?? 0) < 300)
    }

    @Test func overlongStringsAreRefused() async {
        let process = await configured()
        let huge = JSONValue.string(String(repeating: "x", count: ClientLimits.attributeStringBytes + 1))
        #expect(
            limit(await call(process, "setUserAttributes", ["attributes": ["bio": huge]]))
                == Int64(ClientLimits.attributeStringBytes)
        )
        #expect(
            limit(await call(process, "identify", ["userId": .string(String(repeating: "u", count: 5_000))]))
                == Int64(ClientLimits.userIdBytes)
        )
        #expect(
            limit(
                await call(
                    process,
                    "setLocaleIdentifier",
                    ["localeIdentifier": .string(String(repeating: "e", count: 300))]
                )
            )
                == Int64(ClientLimits.nameBytes)
        )
    }

    /// A 5 MB placement name took 10 s to register and went into the log and every event.
    @Test func anOverlongPlacementNameIsRefusedWhereverANameIsTaken() async {
        let process = await configured()
        let long = JSONValue.string(String(repeating: "p", count: ClientLimits.placementNameBytes + 1))
        for (method, params) in [
            ("register", ["placement": long]), ("getPaywall", ["placement": long]),
            ("getPresentationResult", ["placement": long]),
            ("debug/explainPlacement", ["placement": long]), ("preloadPaywalls", ["placements": [long]]),
        ] as [(String, JSONValue)] {
            #expect(limit(await call(process, method, params)) == Int64(ClientLimits.placementNameBytes), "\(method)")
        }
        let atTheLimit = JSONValue.string(String(repeating: "p", count: ClientLimits.placementNameBytes))
        #expect(await call(process, "register", ["placement": atTheLimit])?["result"] != nil)
    }

    /// Each call's limit held, but 14 calls of 2,000 keys made 28,000, and each call then took 10 s.
    @Test func theUsersAttributesHaveATotalBoundAndACallPastItChangesNothing() async {
        let process = await configured()
        func keys(_ range: Range<Int>) -> JSONValue {
            .object(JSONObject(uniqueKeysWithValues: range.map { ("k\($0)", JSONValue.int(Int64($0))) }))
        }
        for start in stride(from: 0, to: 9_000, by: 3_000) {
            #expect(
                await call(process, "setUserAttributes", ["attributes": keys(start..<(start + 3_000))])?["result"]
                    != nil
            )
        }
        let refused = await call(process, "setUserAttributes", ["attributes": keys(9_000..<12_000)])
        #expect(limit(refused) == Int64(ClientLimits.attributeTotalCount))
        #expect(refused?["error"]?["data"]?["path"] == "params.attributes")
        let stored = await call(process, "getUserAttributes")?["result"]?["attributes"]?.objectValue
        #expect(stored?["k8999"] != nil && stored?["k9000"] == nil)
        // Integration attributes become user attributes too: at the bound, one more is refused.
        let room = ClientLimits.attributeTotalCount - (stored?.count ?? 0)
        #expect(
            await call(process, "setUserAttributes", ["attributes": keys(20_000..<(20_000 + room))])?["result"] != nil
        )
        #expect(
            limit(await call(process, "setIntegrationAttributes", ["attributes": ["adjustId": "adj-1"]]))
                == Int64(ClientLimits.attributeTotalCount)
        )
        #expect(await call(process, "getIntegrationAttributes")?["result"]?["attributes"] == [:])
        // Removing makes room again.
        #expect(
            await call(process, "setUserAttributes", ["attributes": ["k0": nil, "k1": nil, "fits": true]])?["result"]
                != nil
        )
    }

    @Test func tooManyEntitlementsAreRefused() async {
        let process = await configured()
        let entitlements = JSONValue.array((0...ClientLimits.entitlementCount).map { ["id": .string("e\($0)")] })
        let reply = await call(
            process,
            "setSubscriptionStatus",
            ["status": ["type": "active", "entitlements": entitlements]]
        )
        #expect(limit(reply) == Int64(ClientLimits.entitlementCount))
    }

    @Test func configureRefusesAFlushIntervalOrRetryCountOutOfRange() async {
        let process = await bridgeProcess()
        for options: JSONValue in [
            ["eventFlushIntervalMs": 0], ["eventFlushIntervalMs": -5], ["maxConfigRetryCount": 1_000_000_000],
        ] {
            var merged = configureParams(temporaryDirectory())["options"]?.objectValue ?? [:]
            for (key, value) in options.objectValue ?? [:] { merged[key] = value }
            let reply = await call(process, "configure", ["apiKey": "pk_test", "options": .object(merged)])
            #expect(limit(reply) != nil, "\(options)")
        }
    }

    @Test func requiredFieldsAreRequiredAndAnUnknownEnvironmentIsRefused() async {
        let process = await configured()
        #expect(await call(process, "setDelegate", ["enabled": .null])?["error"]?["data"]?["path"] == "params.enabled")
        #expect(await call(process, "setInterfaceStyle", [:])?["error"]?["data"]?["path"] == "params.style")
        #expect(
            await call(process, "setLocaleIdentifier", [:])?["error"]?["data"]?["path"] == "params.localeIdentifier"
        )
        #expect(
            await call(process, "setInterfaceStyle", ["style": .null])?["result"] == [:],
            "null is the device's style"
        )
        let fresh = await bridgeProcess()
        let environment = await call(
            fresh,
            "configure",
            [
                "apiKey": "pk_test", "options": ["configSource": ["type": "embedded"], "networkEnvironment": "prod"],
            ]
        )
        #expect(environment?["error"]?["data"]?["path"] == "params.options.networkEnvironment")
    }

    @Test func aDataDirectoryWithANulIsRefused() async {
        let process = await bridgeProcess()
        let reply = await call(
            process,
            "configure",
            [
                "apiKey": "pk_test",
                "options": ["configSource": ["type": "embedded"], "dataDirectory": .string("/tmp/a\u{0}b")],
            ]
        )
        #expect(reply?["error"]?["data"]?["path"] == "params.options.dataDirectory")
        #expect(await call(process, "getConfigurationStatus")?["result"] == ["status": "pending"])
    }
}
