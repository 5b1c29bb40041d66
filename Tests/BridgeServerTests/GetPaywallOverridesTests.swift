import BridgeServer
import Foundation
import JSONRPC
import Logging
import TestSupport
import Testing

@Suite struct GetPaywallOverridesTests {
    /// The embedded demo's `open_coach_chat` shows `coach-upsell-gated` to a new user.
    private func configured() async -> InProcessServer {
        let process = await bridgeProcess()
        _ = await call(process, "configure", configureParams(temporaryDirectory()))
        return process
    }

    @Test func productsByNameAndThePresentationStyleReachThePaywallHandedBack() async {
        let process = await configured()
        let reply = await call(
            process,
            "getPaywall",
            [
                "placement": "open_coach_chat",
                "overrides": [
                    "productsByName": ["primary": "com.pockettrainer.pro.annual"],
                    "presentationStyle": ["type": "fullscreenNoAnimation"],
                ],
            ]
        )
        let paywall = reply?["result"]?["paywall"]
        #expect(
            paywall?["products"]?.arrayValue?.first?["productIdentifier"] == "com.pockettrainer.pro.annual",
            "\(String(describing: reply))"
        )
        #expect(paywall?["presentationStyle"]?["type"] == "fullscreenNoAnimation")
        #expect(
            paywall?["info"]?["products"]?.arrayValue?.first?["productIdentifier"] == "com.pockettrainer.pro.annual"
        )
    }

    /// SuperwallKit's `overrideProductsByName` set after `configure`: read back, and the next
    /// paywall sells what it names.
    @Test func overridesSetAfterConfigureAreReadBackAndSellFromTheNextPaywall() async {
        let process = await configured()
        #expect(await call(process, "getOverrideProductsByName")?["result"] == ["productsByName": [:]])
        let set = await call(
            process,
            "setOverrideProductsByName",
            ["productsByName": ["primary": "com.pockettrainer.pro.annual"]]
        )
        #expect(set?["result"] == [:])
        #expect(
            await call(process, "getOverrideProductsByName")?["result"]?["productsByName"]
                == ["primary": "com.pockettrainer.pro.annual"]
        )
        let paywall = await call(process, "getPaywall", ["placement": "open_coach_chat"])?["result"]?["paywall"]
        #expect(paywall?["products"]?.arrayValue?.first?["productIdentifier"] == "com.pockettrainer.pro.annual")
        let refused = await call(process, "setOverrideProductsByName", ["productsByName": ["primary": 5]])?["error"]
        #expect(refused?["data"]?["path"] == "params.productsByName.primary")
    }

    @Test func anUnknownOverrideAStyleOfNoKnownTypeAndAnUnknownProductAreRefused() async {
        let process = await configured()
        let unknownKey = await call(
            process,
            "getPaywall",
            ["placement": "open_coach_chat", "overrides": ["featureGating": "gated"]]
        )
        #expect(unknownKey?["error"]?["data"]?["path"] == "params.overrides.featureGating")
        let style = await call(
            process,
            "getPaywall",
            ["placement": "open_coach_chat", "overrides": ["presentationStyle": ["type": "sideways"]]]
        )
        #expect(style?["error"]?["data"]?["path"] == "params.overrides.presentationStyle.type")
        let product = await call(
            process,
            "getPaywall",
            ["placement": "open_coach_chat", "overrides": ["productsByName": ["primary": "com.nowhere"]]]
        )
        #expect(product?["error"]?["data"]?["kind"] == "productNotFound")
    }
}
