import Foundation
import JSONRPC
import TestSupport
import Testing

/// Products, entitlements and customer info over the wire.
@Suite struct EntitlementsOverPipesTests {
    static let annual = "com.pockettrainer.pro.annual"
    static let coach = PurchaseOverPipesTests.coach

    @Test func productsCarryTheStoreDetailsGivenAtConfigureAndLater() async throws {
        var client = try await PaywallClient.start(storeProducts: [
            [
                "productIdentifier": .string(Self.annual), "price": 59.99, "currencyCode": "USD",
                "localizedPrice": "$59.99",
                "period": ["unit": "year"], "trialPeriodDays": 7,
            ]
        ])
        client.request("all", "getProducts")
        let products = try #require(await client.reply(to: "all")?["result"]?["products"]?.arrayValue)
        #expect(
            products.compactMap { $0["id"]?.stringValue } == ["com.pockettrainer.pro.monthly", Self.annual, Self.coach]
        )
        let annual = try #require(products.first { $0["id"] == .string(Self.annual) })
        #expect(annual["storeDetails"]?["localizedPrice"] == "$59.99")
        #expect(annual["storeDetails"]?["period"] == ["unit": "year", "count": 1])
        #expect(entitlementIds(annual["entitlements"]) == ["pro"])
        client.request(
            "set",
            "setStoreProducts",
            ["products": [["productIdentifier": .string(Self.coach), "price": 19.99, "period": ["unit": "month"]]]]
        )
        #expect(await client.reply(to: "set")?["result"] == [:])
        client.request("one", "getProducts", ["productIds": [.string(Self.coach)]])
        let coach = await client.reply(to: "one")?["result"]?["products"]?.arrayValue
        #expect(coach?.count == 1)
        #expect(coach?.first?["storeDetails"]?["price"] == 19.99)
        client.request(
            "bad",
            "setStoreProducts",
            ["products": [["productIdentifier": "x", "period": ["unit": "fortnight"]]]]
        )
        #expect(await client.reply(to: "bad")?["error"]?["data"]?["path"] == "params.products[0].period.unit")
    }

    @Test func entitlementsAndCustomerInfoFollowATestModePurchase() async throws {
        var client = try await PaywallClient.start(capabilities: ["delegate": true], testModeBehavior: "always")
        client.request("before", "getEntitlements")
        let before = try #require(await client.reply(to: "before")?["result"])
        #expect(entitlementIds(before["active"]).isEmpty)
        #expect(entitlementIds(before["inactive"]) == ["coach", "pro"])
        client.request("buy", "purchase", ["productId": .string(Self.annual)])
        #expect(await client.reply(to: "buy")?["result"]?["result"]?["type"] == "purchased")
        client.request("after", "getEntitlements")
        let after = try #require(await client.reply(to: "after")?["result"])
        #expect(entitlementIds(after["active"]) == ["pro"])
        #expect(entitlementIds(after["inactive"]) == ["coach"])
        #expect(entitlementIds(after["all"]) == ["coach", "pro"])
        #expect(after["web"] == [])
        let pro = try #require(after["active"]?.arrayValue?.first)
        #expect(pro["latestProductId"] == .string(Self.annual))
        #expect(pro["state"] == "subscribed")
        client.request("byProduct", "getEntitlementsByProductIds", ["productIds": [.string(Self.coach)]])
        let byProduct = await client.reply(to: "byProduct")?["result"]?["entitlements"]
        #expect(entitlementIds(byProduct) == ["coach", "pro"])
        client.request("info", "getCustomerInfo")
        let info = try #require(await client.reply(to: "info")?["result"])
        #expect(info["subscriptions"]?.arrayValue?.first?["productId"] == .string(Self.annual))
        #expect(info["userId"]?.stringValue?.hasPrefix("$SuperwallAlias:") == true)
        let change = try #require(client.seen.first { $0["method"] == "delegate/customerInfoDidChange" })
        #expect(entitlementIds(change["params"]?["to"]?["entitlements"]) == ["pro"])
        client.request("missing", "getEntitlementsByProductIds", [:])
        #expect(await client.reply(to: "missing")?["error"]?["data"]?["path"] == "params.productIds")
    }

    @Test func aControllersStatusWithFullEntitlementsIsKeptAndShapesTheCustomerInfo() async throws {
        var client = try await PaywallClient.start(capabilities: ["delegate": true, "purchaseController": true])
        client.request(
            "set",
            "setSubscriptionStatus",
            [
                "status": [
                    "type": "active",
                    "entitlements": [
                        [
                            "id": "pro", "expiresAt": "2030-01-01T00:00:00Z", "willRenew": true,
                            "productIds": [.string(Self.annual)],
                            "latestProductId": .string(Self.annual), "offerType": "trial",
                        ]
                    ],
                ]
            ]
        )
        let status = await client.reply(to: "set")?["result"]?["status"]
        #expect(status?["entitlements"]?.arrayValue?.first?["renewsAt"] == "2030-01-01T00:00:00.000Z")
        client.request("info", "getCustomerInfo")
        let info = try #require(await client.reply(to: "info")?["result"])
        #expect(entitlementIds(info["entitlements"]) == ["pro"])
        #expect(info["entitlements"]?.arrayValue?.first?["offerType"] == "trial")
        client.request(
            "bad",
            "setSubscriptionStatus",
            ["status": ["type": "active", "entitlements": [["id": "pro", "state": "frozen"]]]]
        )
        #expect(await client.reply(to: "bad")?["error"]?["data"]?["path"] == "params.status.entitlements[0].state")
    }

    @Test func getCustomerInfoIsBoundedWhenTheControllerNeverSetsAStatus() async throws {
        var client = try await PaywallClient.start(
            capabilities: ["purchaseController": true],
            timeouts: ["subscriptionStatusMs": 200]
        )
        // The answer is the deadline's own error; without a deadline the reply would never come.
        client.request("info", "getCustomerInfo")
        let error = await client.reply(to: "info")?["error"]
        #expect(error?["data"]?["kind"] == "customerInfoTimeout")
        #expect(error?["code"] == -32003)
    }

    @Test func aPurchasedReplyMayReportTheStoresTransaction() async throws {
        var (client, sessionId) = try await PurchaseOverPipesTests.showingGatedPaywall()
        client.request(
            "buy",
            "paywall/action",
            ["sessionId": .string(sessionId), "action": ["type": "purchase", "productId": .string(Self.coach)]]
        )
        let purchase = try #require(await client.message("purchaseController/purchase"))
        client.request("set", "setSubscriptionStatus", ["status": PurchaseOverPipesTests.coachStatus])
        _ = await client.reply(to: "set")
        client.answer(
            purchase,
            ["type": "purchased", "transaction": ["transactionId": "store-7", "purchaseDate": 1_790_000_000_000]]
        )
        client.answer(try #require(await client.message("paywall/dismiss")), [:])
        #expect(await client.reply(to: "buy")?["result"]?["result"]?["type"] == "purchased")
        client.request("info", "getCustomerInfo")
        let transaction = await client.reply(to: "info")?["result"]?["subscriptions"]?.arrayValue?.first
        #expect(transaction?["transactionId"] == "store-7")
        #expect(transaction?["purchaseDate"] == "2026-09-21T14:13:20.000Z")
    }

    @Test func aPurchasedReplyWithATransactionThatDoesNotDecodeIsAFailure() async throws {
        var (client, sessionId) = try await PurchaseOverPipesTests.showingGatedPaywall()
        client.request(
            "buy",
            "paywall/action",
            ["sessionId": .string(sessionId), "action": ["type": "purchase", "productId": .string(Self.coach)]]
        )
        client.answer(
            try #require(await client.message("purchaseController/purchase")),
            ["type": "purchased", "transaction": ["purchaseDate": "yesterday"]]
        )
        let result = await client.reply(to: "buy")?["result"]?["result"]
        #expect(result?["type"] == "failed")
        #expect(result?["error"]?.stringValue?.contains("result.transaction.purchaseDate") == true)
    }
}
