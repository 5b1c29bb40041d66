import BridgeServer
import Foundation
import JSONRPC
import Logging
import TestSupport
import Testing

/// The wrappers' own input shapes are the same requests, so that a wrapper passes its users'
/// values through; the answers keep the protocol's shape.
@Suite struct WrapperShapeTests {
    @Test(arguments: [
        // React Native's and Expo's `{status: "ACTIVE", entitlements}`, as the status.
        ["status": ["status": "ACTIVE", "entitlements": [["id": "pro", "type": "SERVICE_LEVEL"]]]] as JSONValue,
        // Its name in capitals, with Android's entitlements as ids.
        ["status": ["type": "ACTIVE", "entitlements": ["pro"]]],
        // The bare name, its entitlements beside it.
        ["status": "ACTIVE", "entitlements": ["pro"]],
    ])
    func aWrappersActiveStatusIsTheProtocolsActiveStatus(_ params: JSONValue) async {
        let process = await bridgeProcess()
        _ = await call(process, "configure", configureParams(temporaryDirectory()))
        let set = await call(process, "setSubscriptionStatus", params)
        #expect(set?["result"]?["status"]?["type"] == "active", "\(String(describing: set))")
        let status = await call(process, "getSubscriptionStatus")?["result"]?["status"]
        #expect(
            status?["entitlements"]?.arrayValue?.map { $0["id"]?.stringValue } == ["pro"],
            "\(String(describing: status))"
        )
    }

    @Test func theOtherNamesInAnyCaseAndAnUnknownOneIsRefusedByPath() async {
        let process = await bridgeProcess()
        _ = await call(process, "configure", configureParams(temporaryDirectory()))
        #expect(
            await call(process, "setSubscriptionStatus", ["status": "INACTIVE"])?["result"]?["status"]?["type"]
                == "inactive"
        )
        #expect(
            await call(process, "setSubscriptionStatus", ["status": ["status": "Unknown"]])?["result"]?["status"]?[
                "type"
            ]
                == "unknown"
        )
        let refused = await call(process, "setSubscriptionStatus", ["status": ["status": "SUBSCRIBED"]])?["error"]
        #expect(refused?["code"] == -32602)
        #expect(refused?["data"]?["path"] == "params.status.status")
    }

    /// The wrappers' `PaywallInfo` names: `presentedByEventWithName` beside the placement's, and
    /// the load durations.
    @Test func aPaywallInfoCarriesTheWrappersNamesAndLoadDurations() async {
        let process = await bridgeProcess()
        _ = await call(process, "configure", configureParams(temporaryDirectory()))
        let info = await call(process, "getPaywall", ["placement": "open_coach_chat"])?["result"]?["paywall"]?["info"]
        #expect(info?["presentedByEventWithName"] == "open_coach_chat", "\(String(describing: info))")
        #expect(info?["presentedByEventWithName"] == info?["presentedByPlacementWithName"])
        #expect(info?["presentedByEventAt"] == info?["presentedByPlacementAt"])
        #expect(info?["responseLoadDuration"]?.doubleValue != nil)
        // The page has not loaded: its duration is not known yet.
        #expect(info?["webViewLoadDuration"] == .null)
    }
}
