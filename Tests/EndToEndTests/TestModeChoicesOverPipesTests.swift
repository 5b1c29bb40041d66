import Foundation
import JSONRPC
import TestSupport
import Testing

/// Test mode's choices made by a client that declared `testModeUI`, as SuperwallKit's drawers.
@Suite struct TestModeChoicesOverPipesTests {
    static let coach = "com.pockettrainer.coach.monthly"

    private func client() async throws -> PaywallClient {
        try await PaywallClient.start(capabilities: ["delegate": true, "testModeUI": true], testModeBehavior: "always")
    }

    /// Buys the coach plan, answering the bridge's question with `answer`; the purchase's result.
    private func purchase(
        _ client: inout PaywallClient,
        answering answer: JSONValue,
        id: JSONValue
    ) async throws
        -> JSONValue?
    {
        client.request(id, "purchase", ["productId": .string(Self.coach)])
        let question = try #require(await client.message("testMode/purchase"))
        #expect(question["params"]?["product"]?["id"] == .string(Self.coach))
        client.answer(question, answer)
        return await client.reply(to: id)?["result"]?["result"]
    }

    private func status(_ client: inout PaywallClient) async -> JSONValue? {
        client.request("status", "getSubscriptionStatus")
        return await client.reply(to: "status")?["result"]?["status"]
    }

    @Test func theClientChoosesHowASimulatedPurchaseEnds() async throws {
        var client = try await client()
        #expect(try await purchase(&client, answering: ["outcome": "abandoned"], id: "abandon")?["type"] == "cancelled")
        #expect(client.eventNames.contains("transaction_abandon"))
        let failed = try await purchase(&client, answering: ["outcome": "failed"], id: "fail")
        #expect(failed?["type"] == "failed")
        #expect(failed?["error"] == "Simulated purchase failure (test mode).")
        #expect(await status(&client)?["type"] == "inactive")
        #expect(try await purchase(&client, answering: ["outcome": "purchased"], id: "buy")?["type"] == "purchased")
        #expect(entitlementIds(await status(&client)?["entitlements"]) == ["coach", "pro"])
    }

    @Test func anAnswerThatDoesNotDecodeFailsThePurchaseSayingWhy() async throws {
        var client = try await client()
        let failed = try await purchase(&client, answering: ["outcome": "maybe"], id: "buy")
        #expect(failed?["type"] == "failed")
        #expect(failed?["error"]?.stringValue?.contains("does not decode") == true)
    }

    @Test func theChosenEntitlementsReplaceWhatTestModeBoughtAndNoneFailsTheRestore() async throws {
        var client = try await client()
        _ = try await purchase(&client, answering: ["outcome": "purchased"], id: "buy")

        client.request("restore", "restorePurchases")
        var question = try #require(await client.message("testMode/restore"))
        let available = question["params"]?["availableEntitlements"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(available.contains("pro") && available.contains("coach"))
        client.answer(question, ["entitlements": []])
        #expect(await client.reply(to: "restore")?["result"]?["result"]?["type"] == "failed")
        #expect(await status(&client)?["type"] == "inactive")
        #expect(client.eventNames.contains("restore_fail"))

        client.request("again", "restorePurchases")
        question = try #require(await client.message("testMode/restore"))
        client.answer(question, ["entitlements": ["pro"]])
        #expect(await client.reply(to: "again")?["result"]?["result"]?["type"] == "restored")
        #expect(entitlementIds(await status(&client)?["entitlements"]) == ["pro"])

        client.request("cancelled", "restorePurchases")
        question = try #require(await client.message("testMode/restore"))
        client.answer(question, ["entitlements": .null])
        let cancelled = await client.reply(to: "cancelled")?["result"]?["result"]
        #expect(cancelled?["type"] == "failed")
        #expect(
            entitlementIds(await status(&client)?["entitlements"]) == ["pro"],
            "a cancelled restore changes nothing"
        )
    }
}
