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
        platform: JSONValue
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
}
