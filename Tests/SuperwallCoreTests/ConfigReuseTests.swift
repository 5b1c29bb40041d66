import Foundation
import Testing

@testable import SuperwallCore

/// A decode that reuses the config in use (`decode(from:reusing:)`, a hot reload) takes the
/// placements and paywalls whose text did not change from it, and gives the config a fresh
/// decode would. The texts are edited as text, so that what is not edited stays byte for byte.
@Suite struct ConfigReuseTests {
    private let demo = EmbeddedDemoConfig.json

    private func replacing(_ old: String, with new: String, last: Bool = false) throws -> Data {
        let range = try #require(last ? demo.range(of: old, options: .backwards) : demo.range(of: old))
        return Data(demo.replacingCharacters(in: range, with: new).utf8)
    }

    @Test func anEditOfOnePaywallDecodesOnlyThatPaywall() throws {
        let before = try Config.decode(from: Data(demo.utf8))
        let text = try replacing(
            #""name": "Summer sale (deep link and win-back)""#,
            with: #""name": "Summer sale, extended""#
        )
        let after = try Config.decode(from: text, reusing: before)
        #expect(after == (try Config.decode(from: text)))
        #expect(after.paywall(identifier: "summer-sale")?.name == "Summer sale, extended")
        #expect(after.decodedText.reused == before.triggers.count + before.paywalls.count - 1)
        // The next reload reuses the edited paywall too.
        #expect(
            (try Config.decode(from: text, reusing: after)).decodedText.reused == after.triggers.count
                + after.paywalls.count
        )
    }

    /// A paywall that dropped a product is decoded again, so the drop is reported again.
    @Test func anElementThatDroppedSomethingIsDecodedAgainAndItsDropReported() throws {
        let text = try replacing(
            #""products_v2": ["#,
            with:
                #""products_v2": [{"store_product": {"store": "PLAY_STORE", "product_identifier": "x"}, "entitlements": []}, "#,
            last: true
        )
        let before = try Config.decode(from: text)
        let after = try Config.decode(from: text, reusing: before)
        #expect(before.droppedElements.count == 1)
        #expect(after.droppedElements == before.droppedElements)
        #expect(after.decodedText.reused == before.triggers.count + before.paywalls.count - 1)
    }

    @Test func elementsChangedInCodeAreNeverReused() throws {
        var before = try Config.decode(from: Data(demo.utf8))
        before.paywalls[0].name = "changed in code"
        let after = try Config.decode(from: Data(demo.utf8), reusing: before)
        #expect(after.paywalls[0].name != "changed in code")
        #expect(after.decodedText.reused == before.triggers.count)
    }
}
