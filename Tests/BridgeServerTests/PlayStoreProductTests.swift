import BridgeServer
import Foundation
import JSONRPC
import Logging
import TestSupport
import Testing

/// Google Play products, as Superwall-Android reads them: kept by their full identifier
/// (`product:basePlan:offer`), and bought through the controller with their base plan and offer.
@Suite struct PlayStoreProductTests {
    private static var playProducts: [[String: Any]] {
        [
            [
                "store_product": [
                    "store": "PLAY_STORE", "product_identifier": "pro_sub", "base_plan_identifier": "monthly",
                    "offer": ["type": "SPECIFIED", "offer_identifier": "intro-week"],
                ],
                "entitlements": [["identifier": "pro", "type": "SERVICE_LEVEL"]],
            ],
            [
                "store_product": [
                    "store": "PLAY_STORE", "product_identifier": "pro_sub", "base_plan_identifier": "annual",
                    "offer": ["type": "AUTOMATIC"],
                ],
                "entitlements": [["identifier": "pro", "type": "SERVICE_LEVEL"]],
            ],
            [
                "store_product": ["store": "PLAY_STORE", "product_identifier": "lifetime_unlock"],
                "entitlements": [["identifier": "pro", "type": "SERVICE_LEVEL"]],
            ],
        ]
    }

    private func configuredAndroidBridge() async throws -> InProcessServer {
        try await configuredBridge(platform: "Android").process
    }

    private func configuredBridge(
        platform: JSONValue,
        storeProducts: JSONValue = []
    ) async throws -> (process: InProcessServer, configured: JSONValue?) {
        var config = try demoConfigObject()
        config["products_v3"] = ((config["products_v3"] as? [[String: Any]]) ?? []) + Self.playProducts
        let path = temporaryDirectory() + ".json"
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: path))
        let process = InProcessServer(handler: BridgeServer(logger: quietLogger(), logLevel: RecordingLogLevel()))
        process.client.request(
            0,
            "initialize",
            ["protocolVersion": "1.0", "capabilities": ["purchaseController": true]]
        )
        _ = await process.client.nextReply()
        let configured = await call(
            process,
            "configure",
            [
                "apiKey": "pk_test",
                "options": [
                    "configSource": ["type": "file", "path": .string(path)],
                    "dataDirectory": .string(temporaryDirectory()),
                ],
                "device": ["platform": platform],
                "storeProducts": storeProducts,
            ]
        )
        #expect(configured?["result"]?["configurationStatus"] == "configured", "\(String(describing: configured))")
        return (process, configured)
    }

    @Test func anIOSSessionLeavesThemOutAsSuperwallKitDoesAndWarnsOfEach() async throws {
        let (process, configured) = try await configuredBridge(platform: "iOS")
        let products = await call(process, "getProducts")?["result"]?["products"]?.arrayValue ?? []
        #expect(!products.isEmpty)
        #expect(products.allSatisfy { $0["store"] != "playStore" })
        let warnings = configured?["result"]?["warnings"]?.arrayValue ?? []
        let dropped = warnings.filter { $0["message"]?.stringValue?.contains("Google Play") == true }
        #expect(dropped.count == Self.playProducts.count, "\(warnings)")
    }

    @Test func playProductsAreKeptByTheirFullIdentifier() async throws {
        let process = try await configuredAndroidBridge()
        let products = await call(process, "getProducts")?["result"]?["products"]?.arrayValue ?? []
        let play = products.filter { $0["store"] == "playStore" }
        #expect(
            play.map { $0["id"]?.stringValue } == [
                "pro_sub:monthly:intro-week", "pro_sub:annual:sw-auto", "lifetime_unlock",
            ]
        )
        #expect(
            play.first?["playStore"] == [
                "productId": "pro_sub", "basePlanId": "monthly",
                "offer": ["type": "specified", "offerId": "intro-week"],
            ]
        )
        #expect(play.dropFirst().first?["playStore"]?["offer"] == ["type": "automatic"])
    }

    @Test func aPurchaseGivesTheControllerTheBasePlanAndTheOffer() async throws {
        let process = try await configuredAndroidBridge()
        for (productId, basePlan, offer) in [
            ("pro_sub:monthly:intro-week", JSONValue.string("monthly"), JSONValue.string("intro-week")),
            ("pro_sub:annual:sw-auto", "annual", .null), ("lifetime_unlock", .null, .null),
        ] {
            process.client.request("buy", "purchase", ["productId": .string(productId)])
            let asked = await process.client.next()
            #expect(asked?["method"] == "purchaseController/purchase")
            #expect(asked?["params"]?["product"]?["id"]?.stringValue == productId)
            #expect(asked?["params"]?["basePlanId"] == basePlan, "\(productId)")
            #expect(asked?["params"]?["offerId"] == offer, "\(productId)")
            process.client.send(["jsonrpc": "2.0", "id": asked?["id"] ?? .null, "result": ["type": "cancelled"]])
            let bought = await process.client.nextReply()
            #expect(bought?["id"] == "buy")
        }
    }

    /// `pro_sub` as Play Billing lists it: the annual base plan with two free trials, a trial
    /// tagged to be ignored and a discount; the monthly base plan alone.
    private static let playListing: JSONValue = [
        [
            "productIdentifier": "pro_sub", "currencyCode": "USD", "priceLocale": "en_US",
            "playOffers": [
                ["basePlanId": "annual", "pricingPhases": [Self.yearly]],
                ["basePlanId": "annual", "offerId": "trial-3d", "pricingPhases": [Self.free("day", 3), Self.yearly]],
                ["basePlanId": "annual", "offerId": "trial-1w", "pricingPhases": [Self.free("week", 1), Self.yearly]],
                [
                    "basePlanId": "annual", "offerId": "winback", "offerTags": ["winback-ignore-offer"],
                    "pricingPhases": [Self.free("month", 1), Self.yearly],
                ],
                [
                    "basePlanId": "annual", "offerId": "half-price",
                    "pricingPhases": [["price": 29.99, "period": ["unit": "year"]], Self.yearly],
                ],
                ["basePlanId": "monthly", "pricingPhases": [["price": 9.99, "period": ["unit": "month"]]]],
            ],
        ]
    ]
    private static let yearly: JSONValue = ["price": 59.99, "period": ["unit": "year"]]
    private static func free(_ unit: String, _ count: Int) -> JSONValue {
        ["price": 0, "period": ["unit": .string(unit), "count": .int(Int64(count))]]
    }

    /// Superwall-Android's automatic offer: of the base plan's offers not tagged
    /// `-ignore-offer`, the longest free trial; a specified offer Play does not list falls back
    /// to the base plan. The page's prices and the purchase follow the choice.
    @Test func theOfferIsChosenFromPlaysListingAsSuperwallAndroidChoosesAndBoughtWithIt() async throws {
        let process = try await configuredBridge(platform: "Android", storeProducts: Self.playListing).process
        let products = await call(process, "getProducts")?["result"]?["products"]?.arrayValue ?? []
        let annual = products.first { $0["id"] == "pro_sub:annual:sw-auto" }?["storeDetails"]
        #expect(annual?["chosenOfferId"] == "trial-1w", "\(String(describing: annual))")
        #expect(annual?["price"] == 59.99)
        #expect(annual?["period"]?["unit"] == "year")
        #expect(annual?["introductoryOffer"]?["paymentMode"] == "freeTrial")
        #expect(annual?["introductoryOffer"]?["period"] == ["unit": "week", "count": 1])
        let monthly = products.first { $0["id"] == "pro_sub:monthly:intro-week" }?["storeDetails"]
        #expect(monthly?["chosenOfferId"] == .null)
        #expect(monthly?["price"] == 9.99)
        #expect(monthly?["introductoryOffer"] == .null)
        for (productId, offer) in [
            ("pro_sub:annual:sw-auto", JSONValue.string("trial-1w")), ("pro_sub:monthly:intro-week", .null),
        ] {
            process.client.request("buy", "purchase", ["productId": .string(productId)])
            let asked = await process.client.next()
            #expect(asked?["params"]?["offerId"] == offer, "\(productId)")
            process.client.send(["jsonrpc": "2.0", "id": asked?["id"] ?? .null, "result": ["type": "cancelled"]])
            _ = await process.client.nextReply()
        }
    }
}
