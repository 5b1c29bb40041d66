import Foundation
import JSONRPC
import TestSupport
import Testing

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

    /// A deep link answers before the paywall it presents is up; `awaitPresentations` answers
    /// only once it is, naming it, and the paywall carries the placement id the link answered.
    @Test func awaitPresentationsAnswersOnceTheDeepLinksPaywallIsUp() async throws {
        var client = try await PaywallClient.start()
        client.request("link", "handleDeepLink", ["url": "pockettrainer://open?path=promo&offer=summer"])
        let link = try #require(await client.reply(to: "link")?["result"])
        #expect(link["handled"] == true)
        let placementId = try #require(link["placementId"]?.stringValue)
        client.request("settled", "awaitPresentations")
        let present = try #require(await client.message("paywall/present"))
        #expect(!client.seen.contains { $0["id"] == "settled" }, "answered before the paywall was presented")
        #expect(present["params"]?["paywall"]?["info"]?["presentedByPlacementWithId"] == .string(placementId))
        client.answer(present, [:])
        let settled = try #require(await client.reply(to: "settled")?["result"])
        #expect(settled["onScreen"]?["sessionId"] == present["params"]?["sessionId"])
        #expect(settled["onScreen"]?["paywallInfo"]?["identifier"] == "summer-sale")

        client.request("plain", "handleDeepLink", ["url": "pockettrainer://superwall/redeem?code=X"])
        #expect(try #require(await client.reply(to: "plain")?["result"])["placementId"] == nil)
    }

    /// Android's `dismissForNextPaywall()`: the paywall closes for another, its feature is not
    /// granted, and the `register` waiting on it answers although no next paywall came.
    @Test func dismissForNextPaywallClosesItForAnotherAndTheRegisterStillAnswers() async throws {
        var client = try await PaywallClient.start()
        let sessionId = try await client.registerAndShow("register", "onboarding_complete")
        client.request("dismiss", "dismiss", ["forNextPaywall": true])
        let dismiss = try #require(await client.message("paywall/dismiss"))
        #expect(dismiss["params"]?["sessionId"] == .string(sessionId))
        #expect(dismiss["params"]?["closeReason"] == "forNextPaywall")
        client.answer(dismiss, [:])
        let result = try #require(await client.reply(to: "register")?["result"])
        #expect(result["featureGranted"] == false)
        #expect(await client.reply(to: "dismiss")?["result"] == [:])

        client.request("web", "openRestoreOnWeb")
        #expect(await client.reply(to: "web")?["result"] == ["url": "https://pockettrainer.superwall.app/manage"])
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
