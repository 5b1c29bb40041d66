import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

/// Events whose params SuperwallKit fills and the bridge did not.
@Suite struct SuperwallKitEventParamsTests {
    @Test func paywallOpenCarriesTheUsersAttributes() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig(demoTriggers))
        _ = try await harness.superwall.setUserAttributes(["plan": "free"])
        let register = harness.registerInBackground("nongated")
        let shown = try await harness.waitForPresentation()
        try await eventually { harness.delegate.event("paywall_open") != nil }
        #expect(harness.delegate.event("paywall_open")?.superwallParameters["user_attributes"]?["plan"] == "free")
        _ = try await harness.superwall.perform(.close, inSession: shown.sessionId)
        _ = try await register.value
    }

    @Test func settingTheInterfaceStyleTracksTheDeviceAttributes() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig([]))
        try await harness.superwall.setInterfaceStyle(.dark)
        #expect(harness.delegate.names == ["device_attributes"])
        #expect(harness.delegate.event("device_attributes")?.superwallParameters["interfaceStyle"] == "Dark")
    }
}
