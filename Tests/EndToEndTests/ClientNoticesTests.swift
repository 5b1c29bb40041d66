import Foundation
import JSONRPC
import TestSupport
import Testing

/// What a client is told, in the answer and in the log, about what would otherwise go wrong
/// without a word.
@Suite struct ClientNoticesTests {
    /// A bridge whose delegate is bound, so that its log reaches `delegate/handleLog` too.
    private static func start(arguments: [String] = []) async throws -> PaywallClient {
        let bridge = try BridgeProcess(arguments: arguments)
        await bridge.initialize(capabilities: ["delegate": true])
        var client = PaywallClient(bridge: bridge)
        bridge.client.request("delegate", "setDelegate", ["enabled": true])
        _ = await client.reply(to: "delegate")
        return client
    }

    static func directory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("notices-\(UUID().uuidString)").path
    }

    /// Test mode is said when it turns on: silently, it simulated and granted every purchase.
    @Test func testModeIsSaidInConfiguresAnswerTheLogAndTheDevice() async throws {
        var client = try await Self.start()
        let directory = Self.directory()
        client.bridge.client.request(
            "configure",
            "configure",
            [
                "apiKey": "pk_notices",
                "options": [
                    "configSource": ["type": "embedded"], "dataDirectory": .string(directory),
                    "testModeBehavior": "always",
                ],
            ]
        )
        let answer = try #require(await client.reply(to: "configure"))["result"]
        #expect(answer?["testMode"]?["active"] == true)
        #expect(answer?["testMode"]?["reason"] == "testModeBehavior")
        #expect(answer?["dataDirectory"] == .string(directory))
        let log = await client.log { $0.contains("test mode is on") }
        #expect(log?["level"] == "warn")
        client.bridge.client.request("device", "getDeviceAttributes")
        #expect(await client.reply(to: "device")?["result"]?["attributes"]?["isSandbox"] == "true")
        client.bridge.client.closeWriting()
        #expect(await client.bridge.waitForExit() == 0)
        #expect(client.bridge.stderr.contains("test mode is on"))
    }

    /// A page message the bridge refuses is said in the log, which a bound delegate hears,
    /// for a host that does not read `paywall/pageMessage`'s error.
    @Test func aRefusedPageMessageIsLoggedNamingThePaywallAndWhy() async throws {
        var client = try await Self.start()
        client.bridge.client.request(
            "configure",
            "configure",
            [
                "apiKey": "pk_notices",
                "options": ["configSource": ["type": "embedded"], "dataDirectory": .string(Self.directory())],
            ]
        )
        _ = await client.reply(to: "configure")
        client.bridge.client.request("paywall", "getPaywall", ["placement": "open_coach_chat"])
        let sessionId = await client.reply(to: "paywall")?["result"]?["sessionId"]
        client.bridge.client.request(
            "page",
            "paywall/pageMessage",
            [
                "sessionId": sessionId ?? .null,
                "message": ["version": 1, "payload": ["events": [["event_name": "purchase"]]]],
            ]
        )
        #expect(await client.reply(to: "page")?["error"]?["data"]?["kind"] == "invalidPageMessage")
        let log = await client.log { $0.contains("posted a message that is refused") }
        #expect(log?["level"] == "warn")
        #expect(log?["message"]?.stringValue?.contains("coach-upsell-gated") == true)
        #expect(log?["error"]?.stringValue?.contains("product_identifier is required") == true)
        client.bridge.client.closeWriting()
        #expect(await client.bridge.waitForExit() == 0)
    }

    /// Events the end of a session could not deliver in time (a collector that never answers)
    /// stay on disk for the next session: the client is told so, with how many.
    @Test func eventsTheEndOfASessionCouldNotDeliverAreSaid() async throws {
        let collector = try SilentTCPServer()
        var client = try await Self.start()
        client.bridge.client.request(
            "configure",
            "configure",
            [
                "apiKey": "pk_notices",
                "options": [
                    "configSource": ["type": "http", "baseUrl": .string("http://127.0.0.1:\(collector.port)")],
                    "dataDirectory": .string(Self.directory()), "timeouts": ["configMs": 100], "maxConfigRetryCount": 0,
                ],
            ]
        )
        #expect(await client.reply(to: "configure")?["result"]?["configurationStatus"] == "failed")
        client.bridge.client.request("shutdown", "shutdown")
        let log = await client.log { $0.contains("the event flush did not finish") }
        #expect(log?["level"] == "warn")
        let message = log?["message"]?.stringValue ?? ""
        #expect(message.contains("events wait on disk and go out in the next session"), "\(message)")
        #expect(await client.reply(to: "shutdown")?["result"] == .object([:]))
        client.bridge.client.notify("exit")
        #expect(await client.bridge.waitForExit() == 0)
        #expect(client.bridge.stderr.contains("the event flush did not finish"))
        withExtendedLifetime(collector) {}
    }

    /// After a configure that failed (the data directory held by another bridge), every call
    /// answered a bare "not configured", as if configure had never been called.
    @Test func aCallAfterAFailedConfigureSaysWhyConfigureFailed() async throws {
        let directory = Self.directory()
        let params: JSONValue = [
            "apiKey": "pk_notices",
            "options": ["configSource": ["type": "embedded"], "dataDirectory": .string(directory)],
        ]
        var holder = try await Self.start()
        holder.bridge.client.request("configure", "configure", params)
        #expect(await holder.reply(to: "configure")?["result"]?["configurationStatus"] == "configured")
        var second = try await Self.start()
        second.bridge.client.request("configure", "configure", params)
        let failed = try #require(await second.reply(to: "configure"))["result"]
        #expect(failed?["configurationStatus"] == "failed")
        #expect(failed?["dataDirectory"] == .null)
        second.bridge.client.request("user", "getUserId")
        let error = try #require(await second.reply(to: "user"))["error"]
        #expect(error?["data"]?["kind"] == "notConfigured")
        #expect(error?["data"]?["cause"]?["data"]?["kind"] == "dataDirectoryInUse")
        #expect(error?["message"]?.stringValue?.contains("The last configure failed") == true)
        for client in [holder, second] {
            client.bridge.client.closeWriting()
            #expect(await client.bridge.waitForExit() == 0)
        }
    }

    /// A controller that answered `purchased` without ever setting a status that covers the
    /// product: the feature was granted while the status stayed inactive, without a word.
    @Test func aPurchaseTheStatusNeverCoversIsWarnedOfAfterTheStatusWait() async throws {
        var (client, sessionId) = try await PurchaseOverPipesTests.showingGatedPaywall(timeouts: [
            "subscriptionStatusMs": 200
        ])
        client.request(
            "buy",
            "paywall/action",
            [
                "sessionId": .string(sessionId),
                "action": ["type": "purchase", "productId": .string(PurchaseOverPipesTests.coach)],
            ]
        )
        client.answer(try #require(await client.message("purchaseController/purchase")), ["type": "purchased"])
        client.answer(try #require(await client.message("paywall/dismiss")), [:])
        let log = await client.log { $0.contains("answered purchased for \(PurchaseOverPipesTests.coach)") }
        #expect(log?["level"] == "warn")
        #expect(log?["message"]?.stringValue?.contains("setSubscriptionStatus") == true)
        client.bridge.client.closeWriting()
        #expect(await client.bridge.waitForExit() == 0)
    }

    /// The demo's daily-limit paywall sells pro.monthly, and showed it to pro subscribers too.
    @Test func theDemoSellsItsDailyLimitOfferOnlyToUsersWithoutPro() async throws {
        var client = try await PaywallClient.start(capabilities: ["purchaseController": true])
        client.request("attributes", "setUserAttributes", ["attributes": ["workouts_completed": 5]])
        _ = await client.reply(to: "attributes")
        for (status, outcome) in [
            (["type": "inactive"], "paywall"),
            (["type": "active", "entitlements": [["id": "pro"]]], "noAudienceMatch"),
        ] as [(JSONValue, JSONValue)] {
            client.request("status", "setSubscriptionStatus", ["status": status])
            _ = await client.reply(to: "status")
            client.request("result", "getPresentationResult", ["placement": "daily_limit_reached"])
            #expect(await client.reply(to: "result")?["result"]?["type"] == outcome, "\(status)")
        }
    }

    /// At debug level a session of configure, identify, attributes and register logged two
    /// lines; now each decision is a line, under SuperwallKit's scopes, and trace adds the
    /// values the rules read.
    @Test func theDebugLogNarratesEachDecisionAndTraceAddsTheRuleValues() async throws {
        var client = try await Self.start(arguments: ["--log-level", "trace"])
        client.bridge.client.request(
            "configure",
            "configure",
            [
                "apiKey": "pk_notices",
                "options": ["configSource": ["type": "embedded"], "dataDirectory": .string(Self.directory())],
            ]
        )
        _ = await client.reply(to: "configure")
        client.request("identify", "identify", ["userId": "narrated"])
        _ = await client.reply(to: "identify")
        client.request("attributes", "setUserAttributes", ["attributes": ["workouts_completed": 1]])
        _ = await client.reply(to: "attributes")
        client.request("register", "register", ["placement": "daily_limit_reached"])
        _ = await client.reply(to: "register")
        let lines: [(String, String)] = [
            ("configManager", "config build pt-2026-11-20.3 in use"),
            ("identityManager", "identify: user narrated"),
            ("identityManager", "user attributes merged: workouts_completed"),
            ("paywallPresentation", "register daily_limit_reached: config: already loaded"),
            ("paywallPresentation", "register daily_limit_reached: subscriptionStatus: INACTIVE, known at once"),
            (
                "paywallPresentation",
                "register daily_limit_reached: audiences: no audience matched (experiment 2004 rule not true)"
            ),
            ("paywallPresentation", "register daily_limit_reached: outcome: skipped (noAudienceMatch)"),
            (
                "paywallPresentation",
                "daily_limit_reached: experiment 2004's rule is false, reading user.workouts_completed = 1"
            ),
        ]
        for (scope, text) in lines {
            let log = await client.log { $0.hasPrefix(text) }
            #expect(log?["scope"] == .string(scope), "\(text)")
            #expect(log?["level"] == "debug", "\(text)")
        }
        client.bridge.client.closeWriting()
        #expect(await client.bridge.waitForExit() == 0)
        #expect(client.bridge.stderr.contains("identify: user narrated"))
    }

    @Test func atTheDefaultLevelTheDecisionsAreNotLogged() async throws {
        var client = try await Self.start()
        client.bridge.client.request(
            "configure",
            "configure",
            [
                "apiKey": "pk_notices",
                "options": ["configSource": ["type": "embedded"], "dataDirectory": .string(Self.directory())],
            ]
        )
        _ = await client.reply(to: "configure")
        client.request("identify", "identify", ["userId": "quiet"])
        _ = await client.reply(to: "identify")
        client.bridge.client.closeWriting()
        #expect(await client.bridge.waitForExit() == 0)
        #expect(!client.bridge.stderr.contains("identify: user quiet"))
        #expect(
            !client.seen.contains { $0["params"]?["message"]?.stringValue?.contains("identify: user quiet") == true }
        )
    }

    @Test func configureSaysTestModeIsOffAndWhichDataDirectoryItUsed() async throws {
        var client = try await Self.start()
        let directory = Self.directory()
        client.bridge.client.request(
            "configure",
            "configure",
            [
                "apiKey": "pk_notices",
                "options": ["configSource": ["type": "embedded"], "dataDirectory": .string(directory)],
            ]
        )
        let answer = try #require(await client.reply(to: "configure"))["result"]
        #expect(answer?["testMode"] == ["active": false, "reason": .null, "message": .null])
        #expect(answer?["dataDirectory"] == .string(directory))
        client.bridge.client.closeWriting()
        #expect(await client.bridge.waitForExit() == 0)
        #expect(!client.bridge.stderr.contains("test mode"))
    }
}

extension PaywallClient {
    /// The params of the first `delegate/handleLog` whose message satisfies `matches`, seen
    /// already or still to come.
    mutating func log(_ matches: (String) -> Bool) async -> JSONValue? {
        func isWanted(_ message: JSONValue) -> Bool {
            message["method"] == "delegate/handleLog" && matches(message["params"]?["message"]?.stringValue ?? "")
        }
        if let index = seen.firstIndex(where: isWanted) { return seen.remove(at: index)["params"] }
        while let message = await bridge.client.next() {
            if isWanted(message) { return message["params"] }
            seen.append(message)
        }
        return nil
    }
}
