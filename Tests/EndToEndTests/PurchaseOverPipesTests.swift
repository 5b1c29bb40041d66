import Foundation
import JSONRPC
import TestSupport
import Testing

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

    /// The gated paywall up and its purchase (request `buy`) waiting on the client's controller.
    static func purchaseWaitingOnTheController() async throws -> PaywallClient {
        var (client, sessionId) = try await showingGatedPaywall()
        client.request(
            "buy",
            "paywall/action",
            ["sessionId": .string(sessionId), "action": ["type": "purchase", "productId": .string(coach)]]
        )
        _ = try #require(await client.message("purchaseController/purchase"))
        return client
    }

    @Test func aClientThatDisconnectsDuringAPurchaseLeavesNothingWaiting() async throws {
        try await Self.purchaseWaitingOnTheController().disconnectAndExpectAPromptExit()
    }

    /// The user did not cancel: the session ended under the purchase, and SuperwallKit tracks
    /// nothing when the app dies mid-purchase.
    @Test func aPurchaseCutOffByTheEndOfTheSessionIsAnsweredSoAndTracksNoAbandon() async throws {
        var client = try await Self.purchaseWaitingOnTheController()
        client.bridge.client.closeWriting()
        let answer = await client.reply(to: "buy")?["result"]?["result"]
        #expect(answer?["type"] == "sessionEnded", "\(String(describing: answer))")
        #expect(!client.eventNames.contains("transaction_abandon"))
        #expect(await client.bridge.waitForExit() == 0)
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
