import Foundation
import JSONRPC
import TestSupport
import Testing

/// A client that presents paywalls and answers custom callbacks, driving the real binary.
struct PaywallClient {
    let bridge: BridgeProcess
    /// Every message that was not what a wait looked for, in order. A later wait looks here
    /// first: replies to concurrent requests (a `dismiss` and the `register` it ends) may come
    /// in either order.
    var seen: [JSONValue] = []

    static func start(
        capabilities: JSONValue = ["paywallPresenter": true, "customCallbacks": true, "delegate": true],
        configSource: JSONValue = ["type": "embedded"],
        timeouts: JSONValue = [:],
        storeProducts: JSONValue = [],
        testModeBehavior: String = "automatic",
        options extra: JSONObject = [:]
    ) async throws -> PaywallClient {
        let bridge = try BridgeProcess()
        await bridge.initialize(capabilities: capabilities)
        var client = PaywallClient(bridge: bridge)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "e2e-paywall-\(UUID().uuidString)"
        ).path
        var options: JSONObject = [
            "configSource": configSource, "dataDirectory": .string(directory), "timeouts": timeouts,
            "testModeBehavior": .string(testModeBehavior),
        ]
        options.merge(extra) { $1 }
        bridge.client.request(
            "configure",
            "configure",
            ["apiKey": "pk_e2e", "options": .object(options), "storeProducts": storeProducts]
        )
        let configured = try #require(await client.reply(to: "configure"))
        #expect(configured["result"]?["configurationStatus"] == "configured")
        return client
    }

    /// Reads until the reply to `id`.
    mutating func reply(to id: JSONValue, timeout: Duration = expectationTimeout) async -> JSONValue? {
        await next { $0["id"] == id && $0["method"] == nil }
    }

    /// Reads until a message from the bridge with `method` (a request or a notification).
    mutating func message(_ method: String, timeout: Duration = expectationTimeout) async -> JSONValue? {
        await next { $0["method"] == .string(method) }
    }

    private mutating func next(where matches: (JSONValue) -> Bool) async -> JSONValue? {
        if let index = seen.firstIndex(where: { matches($0) && $0["id"] != nil }) { return seen.remove(at: index) }
        while let message = await bridge.client.next() {
            if matches(message) { return message }
            seen.append(message)
        }
        return nil
    }

    /// The client goes away: the bridge must resolve every wait and exit 0 well within any
    /// deadline it holds.
    func disconnectAndExpectAPromptExit() async {
        let (status, elapsed) = await measuredOffThePool {
            bridge.client.closeWriting()
            return await bridge.waitForExit()
        }
        #expect(status == 0)
        #expect(elapsed < .seconds(10))
    }

    func answer(_ request: JSONValue, _ result: JSONValue) {
        bridge.client.send(["jsonrpc": "2.0", "id": request["id"] ?? .null, "result": result])
    }

    func request(_ id: JSONValue, _ method: String, _ params: JSONValue? = nil) {
        bridge.client.request(id, method, params)
    }

    /// The names of the delegate events seen so far.
    var eventNames: [String] { seen.compactMap { $0["params"]?["event"]?["name"]?.stringValue } }

    /// Registers `placement`, answers the `paywall/present` that follows, and returns the
    /// session id.
    mutating func registerAndShow(_ id: JSONValue, _ placement: String, params: JSONValue = [:]) async throws -> String
    {
        request(id, "register", ["placement": .string(placement), "params": params])
        let present = try #require(await message("paywall/present"))
        answer(present, [:])
        return try #require(present["params"]?["sessionId"]?.stringValue)
    }

    /// Sends `close` for the session, answers the `paywall/dismiss`, and returns `register`'s result.
    mutating func close(_ sessionId: String, register id: JSONValue) async throws -> JSONValue {
        request("close", "paywall/action", ["sessionId": .string(sessionId), "action": ["type": "close"]])
        let dismiss = try #require(await message("paywall/dismiss"))
        #expect(dismiss["params"]?["sessionId"] == .string(sessionId))
        answer(dismiss, [:])
        return try #require(await reply(to: id)?["result"])
    }
}

/// One placement whose only audience holds everybody out, another nobody matches.
private let holdoutConfig = #"""
    {"build_id": "e2e-1", "log_level": 10, "app_session_timeout_ms": 3600000, "toggles": [],
     "disable_preload": {"all": false, "triggers": []}, "localization": {"locales": [{"locale": "en"}]},
     "trigger_options": [
       {"event_name": "held", "rules": [{"experiment_group_id": "c1", "experiment_id": "x1", "expression_cel": null,
         "preload": {"behavior": "IF_TRUE"}, "variants": [{"variant_id": "h1", "variant_type": "HOLDOUT", "percentage": 100}]}]},
       {"event_name": "nobody", "rules": [{"experiment_group_id": "c2", "experiment_id": "x2", "expression_cel": "user.plan == \"gold\"",
         "preload": {"behavior": "IF_TRUE"}, "variants": [{"variant_id": "h2", "variant_type": "HOLDOUT", "percentage": 100}]}]}],
     "paywall_responses": []}
    """#

@Suite struct PaywallFlowOverPipesTests {
    @Test func aNonGatedPaywallClosedByTheUserGrantsTheFeature() async throws {
        var client = try await PaywallClient.start()
        client.request("register", "register", ["placement": "onboarding_complete", "hasFeature": true])
        let present = try #require(await client.message("paywall/present"))
        let paywall = present["params"]?["paywall"]
        #expect(paywall?["info"]?["featureGatingBehavior"] == "nonGated")
        #expect(paywall?["info"]?["presentedByPlacementWithName"] == "onboarding_complete")
        #expect(paywall?["presentationStyle"]?["type"] != nil)
        #expect(paywall?["products"]?.arrayValue?.first?["referenceName"] == "primary")
        client.answer(present, [:])
        let sessionId = try #require(present["params"]?["sessionId"]?.stringValue)
        let onPresent = try #require(await client.message("handler/onPresent"))
        #expect(onPresent["params"]?["registerId"] == "register")
        let result = try await client.close(sessionId, register: "register")
        #expect(result["featureGranted"] == true)
        #expect(result["outcome"] == "dismissed")
        #expect(result["paywallResult"] == ["type": "declined"])
        #expect(result["paywallInfo"]?["closeReason"] == "manualClose")
        #expect(
            client.seen.contains { $0["method"] == "handler/onDismiss" && $0["params"]?["registerId"] == "register" }
        )
        #expect(client.eventNames.contains("paywall_decline"))
        client.bridge.client.closeWriting()
        #expect(await client.bridge.waitForExit() == 0)
    }

    @Test func aGatedPaywallClosedByTheUserDoesNotGrantIt() async throws {
        var client = try await PaywallClient.start()
        let sessionId = try await client.registerAndShow("register", "open_coach_chat")
        let result = try await client.close(sessionId, register: "register")
        #expect(result["featureGranted"] == false)
        #expect(result["paywallInfo"]?["featureGatingBehavior"] == "gated")
    }

    @Test func aHoldoutAndANoMatchSkipAndGrant() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("e2e-config-\(UUID().uuidString).json")
            .path
        try holdoutConfig.write(toFile: path, atomically: true, encoding: .utf8)
        var client = try await PaywallClient.start(configSource: ["type": "file", "path": .string(path)])
        client.request("held", "register", ["placement": "held"])
        let held = try #require(await client.reply(to: "held")?["result"])
        #expect(held["outcome"] == "skipped")
        #expect(held["featureGranted"] == true)
        #expect(held["skipReason"]?["type"] == "holdout")
        #expect(held["skipReason"]?["experiment"]?["variant"]?["type"] == "holdout")
        #expect(client.seen.contains { $0["method"] == "handler/onSkip" && $0["params"]?["registerId"] == "held" })
        client.request("nobody", "register", ["placement": "nobody"])
        let nobody = try #require(await client.reply(to: "nobody")?["result"])
        #expect(nobody["skipReason"] == ["type": "noAudienceMatch"])
        #expect(nobody["featureGranted"] == true)
        client.request("result", "getPresentationResult", ["placement": "held"])
        #expect(await client.reply(to: "result")?["result"]?["type"] == "holdout")
        client.request("assignments", "getAssignments")
        let assignments = await client.reply(to: "assignments")?["result"]?["assignments"]?.arrayValue ?? []
        #expect(assignments.compactMap { $0["experimentId"]?.stringValue } == ["x1", "x2"])
    }

    @Test func withoutThePresenterCapabilityRegisterAnswers103() async throws {
        var client = try await PaywallClient.start(capabilities: ["delegate": true])
        client.request("register", "register", ["placement": "onboarding_complete"])
        let result = try #require(await client.reply(to: "register")?["result"])
        #expect(result["outcome"] == "error")
        #expect(result["featureGranted"] == false)
        #expect(result["error"]?["code"] == 103)
        #expect(result["error"]?["data"]?["kind"] == "noPresenter")
        client.request("reserved", "register", ["placement": "paywall_open"])
        #expect(await client.reply(to: "reserved")?["error"]?["data"]?["kind"] == "reservedPlacementName")
    }

    @Test func aCustomCallbackIsAnsweredByTheClient() async throws {
        var client = try await PaywallClient.start()
        let sessionId = try await client.registerAndShow("register", "onboarding_complete")
        client.request(
            "callback",
            "paywall/action",
            [
                "sessionId": .string(sessionId),
                "action": [
                    "type": "requestCallback", "name": "validate_promo_code", "variables": ["code": "SUMMER"],
                    "behavior": "blocking",
                ],
            ]
        )
        let ask = try #require(await client.message("handler/onCustomCallback"))
        #expect(ask["params"]?["registerId"] == "register")
        #expect(ask["params"]?["name"] == "validate_promo_code")
        #expect(ask["params"]?["variables"] == ["code": "SUMMER"])
        client.answer(ask, ["status": "success", "data": ["discount": 20]])
        #expect(await client.reply(to: "callback")?["result"] == ["status": "success", "data": ["discount": 20]])
        _ = try await client.close(sessionId, register: "register")
    }

    /// Answered too late: the action fails at the deadline, the client is sent
    /// `$/cancelRequest`, and the late answer changes nothing. Never answered: the same.
    @Test func aLateOrMissingAnswerFailsAtTheDeadlineAndIsCancelled() async throws {
        var client = try await PaywallClient.start(timeouts: ["customCallbackMs": 200])
        let sessionId = try await client.registerAndShow("register", "onboarding_complete")
        client.request(
            "late",
            "paywall/action",
            ["sessionId": .string(sessionId), "action": ["type": "requestCallback", "name": "slow"]]
        )
        let ask = try #require(await client.message("handler/onCustomCallback"))
        let failed = try #require(await client.reply(to: "late")?["result"])
        #expect(failed["status"] == "failure")
        var cancel = client.seen.first { $0["method"] == "$/cancelRequest" }
        if cancel == nil { cancel = await client.message("$/cancelRequest") }
        #expect(cancel?["params"]?["id"] == ask["id"])
        client.answer(ask, ["status": "success"])
        client.request(
            "never",
            "paywall/action",
            ["sessionId": .string(sessionId), "action": ["type": "requestCallback", "name": "silent"]]
        )
        _ = try #require(await client.message("handler/onCustomCallback"))
        #expect(await client.reply(to: "never")?["result"]?["status"] == "failure")
        // The paywall is still up and closes normally.
        let result = try await client.close(sessionId, register: "register")
        #expect(result["outcome"] == "dismissed")
    }

    @Test func aMalformedAnswerOrAnErrorIsAFailureNotAHang() async throws {
        var client = try await PaywallClient.start()
        let sessionId = try await client.registerAndShow("register", "onboarding_complete")
        client.request(
            "bad",
            "paywall/action",
            ["sessionId": .string(sessionId), "action": ["type": "requestCallback", "name": "x"]]
        )
        let ask = try #require(await client.message("handler/onCustomCallback"))
        client.answer(ask, ["status": "maybe"])
        #expect(await client.reply(to: "bad")?["result"]?["status"] == "failure")
        client.request(
            "error",
            "paywall/action",
            ["sessionId": .string(sessionId), "action": ["type": "requestCallback", "name": "y"]]
        )
        let second = try #require(await client.message("handler/onCustomCallback"))
        client.bridge.client.send([
            "jsonrpc": "2.0", "id": second["id"] ?? .null, "error": ["code": -1, "message": "boom"],
        ])
        #expect(await client.reply(to: "error")?["result"]?["status"] == "failure")
        _ = try await client.close(sessionId, register: "register")
    }

    @Test func withoutTheCustomCallbacksCapabilityTheAnswerIsFailureAtOnce() async throws {
        var client = try await PaywallClient.start(capabilities: ["paywallPresenter": true])
        let sessionId = try await client.registerAndShow("register", "onboarding_complete")
        client.request(
            "callback",
            "paywall/action",
            ["sessionId": .string(sessionId), "action": ["type": "requestCallback", "name": "x"]]
        )
        #expect(await client.reply(to: "callback")?["result"]?["status"] == "failure")
        #expect(!client.seen.contains { $0["method"] == "handler/onCustomCallback" })
        _ = try await client.close(sessionId, register: "register")
    }

    /// The client goes away with a paywall up: the paywall closes, the register ends, the
    /// bridge exits 0 without waiting out any deadline.
    @Test func aClientThatDisconnectsMidPaywallLeavesNothingWaiting() async throws {
        var client = try await PaywallClient.start()
        _ = try await client.registerAndShow("register", "onboarding_complete")
        _ = try #require(await client.message("handler/onPresent"))
        await client.disconnectAndExpectAPromptExit()
    }

    @Test func dismissAndUnknownSessionsOverTheWire() async throws {
        var client = try await PaywallClient.start(testModeBehavior: "always")
        let sessionId = try await client.registerAndShow("register", "onboarding_complete")
        client.request("unknown", "paywall/action", ["sessionId": "nope", "action": ["type": "close"]])
        #expect(await client.reply(to: "unknown")?["error"]?["data"]?["kind"] == "paywallSessionNotFound")
        client.request("badType", "paywall/action", ["sessionId": .string(sessionId), "action": ["type": "dance"]])
        #expect(await client.reply(to: "badType")?["error"]?["data"]?["path"] == "params.action.type")
        client.request(
            "purchase",
            "paywall/action",
            ["sessionId": .string(sessionId), "action": ["type": "purchase", "productId": "p"]]
        )
        #expect(await client.reply(to: "purchase")?["result"]?["result"]?["type"] == "failed")
        client.request("dismiss", "dismiss")
        let dismiss = try #require(await client.message("paywall/dismiss"))
        #expect(dismiss["params"]?["closeReason"] == "systemLogic")
        client.answer(dismiss, [:])
        #expect(await client.reply(to: "dismiss")?["result"] == [:])
        #expect(await client.reply(to: "register")?["result"]?["featureGranted"] == true)
    }

    @Test func theSubscriptionStatusIsSetAndReadOverTheWire() async throws {
        var client = try await PaywallClient.start(capabilities: ["delegate": true, "purchaseController": true])
        client.request("get", "getSubscriptionStatus")
        #expect(await client.reply(to: "get")?["result"]?["status"] == ["type": "unknown"])
        client.request(
            "set",
            "setSubscriptionStatus",
            ["status": ["type": "active", "entitlements": [["id": "pro", "type": "serviceLevel"]]]]
        )
        let status = await client.reply(to: "set")?["result"]?["status"]
        #expect(status?["type"] == "active")
        #expect(entitlementIds(status?["entitlements"]) == ["pro"])
        #expect(status?["entitlements"]?.arrayValue?.first?["isActive"] == true)
        #expect(
            client.seen.contains {
                $0["method"] == "delegate/subscriptionStatusDidChange" && $0["params"]?["from"] == ["type": "unknown"]
            }
        )
        client.request("bad", "setSubscriptionStatus", ["status": ["type": "gold"]])
        #expect(await client.reply(to: "bad")?["error"]?["data"]?["path"] == "params.status.type")
    }
}

/// Purchases through the client's purchase controller, over the wire.
@Suite struct PurchaseOverPipesTests {
    static let coach = "com.pockettrainer.coach.monthly"
    static let coachStatus: JSONValue = [
        "type": "active",
        "entitlements": [["id": "coach", "type": "serviceLevel"], ["id": "pro", "type": "serviceLevel"]],
    ]

    /// A client with a purchase controller, an inactive user, and the gated coach paywall up.
    static func showingGatedPaywall(timeouts: JSONValue = [:]) async throws -> (PaywallClient, String) {
        var client = try await PaywallClient.start(
            capabilities: ["paywallPresenter": true, "purchaseController": true, "delegate": true],
            timeouts: timeouts
        )
        client.request("status", "setSubscriptionStatus", ["status": ["type": "inactive"]])
        _ = await client.reply(to: "status")
        let sessionId = try await client.registerAndShow("register", "open_coach_chat")
        return (client, sessionId)
    }

    @Test func aGatedPaywallPurchaseGrantsTheFeatureAndTheEntitlements() async throws {
        var (client, sessionId) = try await Self.showingGatedPaywall()
        client.request(
            "buy",
            "paywall/action",
            ["sessionId": .string(sessionId), "action": ["type": "purchase", "productId": .string(Self.coach)]]
        )
        let purchase = try #require(await client.message("purchaseController/purchase"))
        #expect(purchase["params"]?["product"]?["id"] == .string(Self.coach))
        #expect(purchase["params"]?["paywallInfo"]?["identifier"] == "coach-upsell-gated")
        // A controller sets the status before it answers, as SuperwallKit requires.
        client.request("set", "setSubscriptionStatus", ["status": Self.coachStatus])
        _ = await client.reply(to: "set")
        client.answer(purchase, ["type": "purchased"])
        let dismiss = try #require(await client.message("paywall/dismiss"))
        #expect(dismiss["params"]?["result"]?["type"] == "purchased")
        client.answer(dismiss, [:])
        #expect(await client.reply(to: "buy")?["result"]?["result"]?["type"] == "purchased")
        let result = try #require(await client.reply(to: "register")?["result"])
        #expect(result["featureGranted"] == true)
        #expect(result["paywallResult"]?["type"] == "purchased")
        #expect(client.eventNames.contains("transaction_complete"))
        #expect(client.eventNames.contains("subscription_start"))
        client.request("get", "getSubscriptionStatus")
        #expect(
            entitlementIds(await client.reply(to: "get")?["result"]?["status"]?["entitlements"]) == ["coach", "pro"]
        )
        client.request("entitlements", "getEntitlements")
        #expect(entitlementIds(await client.reply(to: "entitlements")?["result"]?["active"]) == ["coach", "pro"])
        client.request("info", "getCustomerInfo")
        let info = try #require(await client.reply(to: "info")?["result"])
        #expect(info["subscriptions"]?.arrayValue?.first?["productId"] == .string(Self.coach))
        #expect(info["activeSubscriptionProductIds"] == [.string(Self.coach)])
        #expect(entitlementIds(info["entitlements"]) == ["coach", "pro"])
        #expect(client.seen.contains { $0["method"] == "delegate/customerInfoDidChange" })
    }

    @Test func aCancelledPurchaseIsAbandonedAndTheFeatureStaysLocked() async throws {
        var (client, sessionId) = try await Self.showingGatedPaywall()
        client.request(
            "buy",
            "paywall/action",
            ["sessionId": .string(sessionId), "action": ["type": "purchase", "productId": .string(Self.coach)]]
        )
        client.answer(try #require(await client.message("purchaseController/purchase")), ["type": "cancelled"])
        #expect(await client.reply(to: "buy")?["result"]?["result"]?["type"] == "cancelled")
        #expect(client.eventNames.contains("transaction_abandon"))
        let result = try await client.close(sessionId, register: "register")
        #expect(result["featureGranted"] == false)
    }

    @Test func aPurchaseNeverAnsweredTimesOutIsCancelledAtTheClientAndThePaywallStaysClosable() async throws {
        var (client, sessionId) = try await Self.showingGatedPaywall(timeouts: ["purchaseMs": 200])
        client.request(
            "buy",
            "paywall/action",
            ["sessionId": .string(sessionId), "action": ["type": "purchase", "productId": .string(Self.coach)]]
        )
        let purchase = try #require(await client.message("purchaseController/purchase"))
        let cancel = try #require(await client.message("$/cancelRequest"))
        #expect(cancel["params"]?["id"] == purchase["id"])
        let reply = await client.reply(to: "buy")
        #expect(reply?["result"]?["result"]?["type"] == "timedOut")
        #expect(client.eventNames.contains("transaction_timeout"))
        let result = try await client.close(sessionId, register: "register")
        #expect(result["featureGranted"] == false)
    }

    @Test func aPurchaseReplyThatDoesNotDecodeIsAFailureThatSaysWhy() async throws {
        var (client, sessionId) = try await Self.showingGatedPaywall()
        client.request(
            "buy",
            "paywall/action",
            ["sessionId": .string(sessionId), "action": ["type": "purchase", "productId": .string(Self.coach)]]
        )
        client.answer(try #require(await client.message("purchaseController/purchase")), ["type": 42])
        let result = await client.reply(to: "buy")?["result"]?["result"]
        #expect(result?["type"] == "failed")
        #expect(result?["error"]?.stringValue?.contains("does not decode") == true)
        #expect(client.eventNames.contains("transaction_fail"))
    }

    @Test func aRestoreThatUnlocksThePaywallDismissesItAsRestored() async throws {
        var (client, sessionId) = try await Self.showingGatedPaywall()
        client.request("restore", "paywall/action", ["sessionId": .string(sessionId), "action": ["type": "restore"]])
        let restore = try #require(await client.message("purchaseController/restorePurchases"))
        client.request("set", "setSubscriptionStatus", ["status": Self.coachStatus])
        _ = await client.reply(to: "set")
        client.answer(restore, ["type": "restored"])
        client.answer(try #require(await client.message("paywall/dismiss")), [:])
        #expect(await client.reply(to: "restore")?["result"]?["result"]?["type"] == "restored")
        let result = try #require(await client.reply(to: "register")?["result"])
        #expect(result["featureGranted"] == true)
        #expect(result["paywallResult"]?["type"] == "restored")
        #expect(client.eventNames.contains("restore_complete"))
    }

    @Test func aClientThatDisconnectsDuringAPurchaseLeavesNothingWaiting() async throws {
        var (client, sessionId) = try await Self.showingGatedPaywall()
        client.request(
            "buy",
            "paywall/action",
            ["sessionId": .string(sessionId), "action": ["type": "purchase", "productId": .string(Self.coach)]]
        )
        _ = try #require(await client.message("purchaseController/purchase"))
        await client.disconnectAndExpectAPromptExit()
    }

    @Test func withTestModeAskedForAnAppPurchaseIsSimulated() async throws {
        var client = try await PaywallClient.start(capabilities: ["delegate": true], testModeBehavior: "always")
        client.request("buy", "purchase", ["productId": .string(Self.coach)])
        #expect(await client.reply(to: "buy")?["result"]?["result"]?["type"] == "purchased")
        #expect(
            client.seen.contains {
                $0["method"] == "delegate/testModeTransaction" && $0["params"]?["product"]?["id"] == .string(Self.coach)
            }
        )
        client.request("get", "getSubscriptionStatus")
        #expect(
            entitlementIds(await client.reply(to: "get")?["result"]?["status"]?["entitlements"]) == ["coach", "pro"]
        )
    }
}

extension PaywallFlowOverPipesTests {
    @Test func withoutAControllerOrTestModeAPurchaseIsRefusedAndGrantsNothing() async throws {
        var client = try await PaywallClient.start(capabilities: ["delegate": true])
        client.request("buy", "purchase", ["productId": "com.pockettrainer.coach.monthly"])
        let error = await client.reply(to: "buy")?["error"]
        #expect(error?["code"] == -32005)
        #expect(error?["data"]?["kind"] == "noPurchaseController")
        client.request("get", "getSubscriptionStatus")
        #expect(await client.reply(to: "get")?["result"]?["status"]?["type"] == "inactive")
    }
}

/// The ids of a wire list of entitlements, in order.
func entitlementIds(_ entitlements: JSONValue?) -> [String] {
    entitlements?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
}
