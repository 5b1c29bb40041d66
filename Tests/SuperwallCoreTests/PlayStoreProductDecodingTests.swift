import Foundation
import Testing

@testable import SuperwallCore

/// Google Play products in a config: kept by Superwall-Android's rules, with its full
/// identifier and offer, and left out by SuperwallKit's, as each SDK does.
@Suite struct PlayStoreProductDecodingTests {
    private func product(_ storeProduct: [String: Any]) -> [String: Any] {
        ["store_product": storeProduct, "entitlements": [["identifier": "pro", "type": "SERVICE_LEVEL"]]]
    }

    private func play(_ identifier: String, basePlan: String, offer: [String: Any]) -> [String: Any] {
        product([
            "store": "PLAY_STORE", "product_identifier": identifier, "base_plan_identifier": basePlan, "offer": offer,
        ])
    }

    private func config(for platform: ReferenceSDK) throws -> Config {
        var json = try sampleJSON()
        json["products_v3"] = [
            product(["store": "APP_STORE", "product_identifier": "ios.annual"]),
            play("pro_sub", basePlan: "monthly", offer: ["type": "SPECIFIED", "offer_identifier": "intro-week"]),
            play("pro_sub", basePlan: "annual", offer: ["type": "AUTOMATIC"]),
            play("pro_sub", basePlan: "weekly", offer: ["type": "NO_OFFER"]),
            product(["store": "PLAY_STORE", "product_identifier": "lifetime_unlock"]),
            play("pro_sub", basePlan: "monthly", offer: ["type": "SOMETHING_NEW"]),
            play("broken", basePlan: "monthly", offer: ["type": "SPECIFIED"]),
        ]
        return try Config.decode(from: JSONSerialization.data(withJSONObject: json), for: platform)
    }

    @Test func anAndroidSessionKeepsPlayProductsByTheirFullIdentifier() throws {
        let products = try config(for: .superwallAndroid).products
        #expect(
            products.map(\.id) == [
                "ios.annual", "pro_sub:monthly:intro-week", "pro_sub:annual:sw-auto", "pro_sub:weekly:sw-none",
                "lifetime_unlock", "pro_sub:monthly:sw-none",
            ]
        )
        #expect(
            products[1].storeProduct
                == .playStore(
                    productIdentifier: "pro_sub",
                    basePlanIdentifier: "monthly",
                    offer: .specified("intro-week")
                )
        )
        #expect(products[2].storeProduct.store == "PLAY_STORE")
        // An offer type Superwall-Android does not know is no offer; a specified offer without
        // its identifier drops the product.
        // The sample's paywall drops only its product without entitlements now.
        #expect(
            try config(for: .superwallAndroid).droppedElements.map(\.path).filter {
                !$0.contains("local_notifications")
            }
                == ["$.paywall_responses[0].products_v2[2]", "$.products_v3[6]"]
        )
    }

    @Test func anotherSessionLeavesThemOutAsSuperwallKitDoesAndSaysWhere() throws {
        let decoded = try config(for: .superwallKit)
        #expect(decoded.products.map(\.id) == ["ios.annual"])
        #expect(
            decoded.droppedElements.map(\.path).filter { $0.hasPrefix("$.products_v3") }
                == (1...6).map { "$.products_v3[\($0)]" }
        )
        #expect(decoded.droppedElements.last?.message.contains("Google Play") == true)
    }

    @Test func thePlatformIsTheDevicesAndroidInAnySpelling() {
        #expect(ReferenceSDK(devicePlatform: "Android") == .superwallAndroid)
        #expect(ReferenceSDK(devicePlatform: "android") == .superwallAndroid)
        #expect(ReferenceSDK(devicePlatform: "iOS") == .superwallKit)
        #expect(ReferenceSDK(devicePlatform: "macOS") == .superwallKit)
    }
}
