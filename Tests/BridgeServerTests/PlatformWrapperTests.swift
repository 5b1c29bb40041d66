import BridgeServer
import Foundation
import JSONRPC
import Logging
import TestSupport
import Testing

@Suite struct PlatformWrapperTests {
    /// Wrappers say who they are, often before `configure`; the device attributes report it.
    @Test func aWrapperNamedBeforeConfigureIsReportedInTheDeviceAttributes() async {
        let process = await bridgeProcess()
        #expect(
            await call(process, "setPlatformWrapper", ["platformWrapper": "Flutter", "version": "2.3.1"])?["result"]
                == [:]
        )
        _ = await call(process, "configure", configureParams(temporaryDirectory()))
        let device = await call(process, "getDeviceAttributes")?["result"]?["attributes"]
        #expect(device?["platformWrapper"] == "Flutter")
        #expect(device?["platformWrapperVersion"] == "2.3.1")
        #expect(
            await call(process, "setPlatformWrapper", ["platformWrapper": "Flutter"])?["error"]?["data"]?["path"]
                == "params.version"
        )
    }

    /// An Android session's device template is Superwall-Android's `DeviceTemplate`: the
    /// wrapper in snake case, `activeEntitlementsObject`, `reviewRequestCount`, `kotlinVersion`,
    /// `deviceTier`, and none of UIKit's, Swift's or StoreKit's keys.
    @Test func anAndroidSessionsDeviceTemplateIsSuperwallAndroidsAndTheClientsValuesWin() async {
        let process = await bridgeProcess()
        _ = await call(process, "setPlatformWrapper", ["platformWrapper": "Flutter", "version": "2.4.11"])
        _ = await call(
            process,
            "configure",
            [
                "apiKey": "pk_test",
                "options": ["configSource": ["type": "embedded"], "dataDirectory": .string(temporaryDirectory())],
                "device": ["platform": "Android", "deviceTier": "high"],
            ]
        )
        _ = await call(process, "setSubscriptionStatus", ["status": "ACTIVE", "entitlements": ["pro"]])
        let device = await call(process, "getDeviceAttributes")?["result"]?["attributes"]
        #expect(device?["platform_wrapper"] == "Flutter")
        #expect(device?["platform_wrapper_version"] == "2.4.11")
        #expect(device?["activeEntitlementsObject"] == [["identifier": "pro", "type": "SERVICE_LEVEL"]])
        #expect(device?["reviewRequestCount"] == 0)
        #expect(device?["kotlinVersion"] == "2.0.21")
        #expect(device?["deviceTier"] == "high")
        #expect(device?["daysSinceLastPaywallView"] == .null)
        for appleOnly in ["platformWrapper", "swiftVersion", "isApplePayAvailable", "activeEntitlementObjects"] {
            #expect(device?[appleOnly] == nil, "\(appleOnly)")
        }
        // A rule reads the names Superwall-Android's do.
        let rule = await call(
            process,
            "debug/evaluateExpression",
            ["expression": "device.platform_wrapper == \"Flutter\" && device.reviewRequestCount == 0"]
        )
        #expect(rule?["result"]?["value"]?["value"] == true, "\(String(describing: rule))")
    }
}
