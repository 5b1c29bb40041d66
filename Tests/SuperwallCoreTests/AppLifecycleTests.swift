import Foundation
import Testing

@testable import SuperwallCore

/// A config whose `session_start` campaign shows a paywall to everyone, with a one-hour session timeout.
private func sessionCampaignConfig() async throws -> String {
    try await presentationConfig([
        placement("session_start", [audience("s1", rule: nil, variants: [treatment("s1-v", "summer-sale")])])
    ])
}

@Suite struct AppLifecycleTests {
    @Test func everyEventCarriesTheAppSessionIdAndAShortBackgroundKeepsIt() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig([]))
        _ = try await harness.superwall.setUserAttributes(["plan": "free"])
        let first = try #require(
            harness.delegate.event("user_attributes")?.delegateParameters["app_session_id"]?.stringValue
        )
        #expect(!first.isEmpty)
        #expect(harness.delegate.event("user_attributes")?.audienceParameters["$app_session_id"] == .string(first))
        try await harness.superwall.appWillResignActive()
        harness.clock.advance(by: 30 * 60)
        try await harness.superwall.appDidBecomeActive()
        #expect(harness.delegate.names.suffix(2) == ["app_close", "app_open"])
        #expect(harness.delegate.event("app_open")?.delegateParameters["app_session_id"] == .string(first))
        #expect(!harness.delegate.names.contains("session_start"))
    }

    @Test func aBackgroundLongerThanTheTimeoutStartsANewSessionWhoseCampaignPresents() async throws {
        let harness = try await PresentationHarness.make(try await sessionCampaignConfig())
        // configure's own session_start presented the campaign once; close it.
        let launch = try await harness.waitForPresentation()
        _ = try await harness.superwall.perform(.close, inSession: launch.sessionId)
        let firstSession = try #require(
            harness.delegate.event("app_launch")?.delegateParameters["app_session_id"]
                ?? harness.delegate.events.first?.delegateParameters["app_session_id"]
        )
        harness.delegate.clear()
        try await harness.superwall.appWillResignActive()
        harness.clock.advance(by: 2 * 3600)
        try await harness.superwall.appDidBecomeActive()
        #expect(harness.delegate.names.prefix(4) == ["app_close", "app_open", "session_start", "device_attributes"])
        #expect(harness.delegate.names.contains("user_attributes"))
        let newSession = try #require(harness.delegate.event("session_start")?.delegateParameters["app_session_id"])
        #expect(newSession != firstSession)
        let shown = try await harness.waitForPresentation(2)
        #expect(shown.paywall.identifier == "summer-sale")
        #expect(shown.info.presentedByPlacementWithName == "session_start")
    }

    /// Every new app session refreshed the config; SuperwallKit does so only under the
    /// config's `enable_config_refresh_v2`.
    @Test(arguments: [false, true]) func aNewAppSessionRefreshesTheConfigOnlyUnderConfigRefreshV2(
        _ enabled: Bool
    ) async throws {
        let config = try edited(try await presentationConfig([])) {
            $0["toggles"] = [["key": "enable_config_refresh_v2", "enabled": enabled]]
        }
        let harness = try await PresentationHarness.make(config)
        try await harness.superwall.appWillResignActive()
        harness.clock.advance(by: 2 * 3600)
        try await harness.superwall.appDidBecomeActive()
        await harness.superwall.awaitBackgroundRefresh()
        #expect(harness.delegate.names.contains("config_refresh") == enabled)
    }

    @Test func anActivationWithoutABackgroundStartsNothing() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig([]))
        try await harness.superwall.appDidBecomeActive()
        #expect(harness.delegate.names == ["app_open"])
    }
}

extension AppLifecycleTests {
    @Test func theEventsFileCarriesTheAppSessionIdOnEveryRow() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig([]))
        _ = try await harness.superwall.setUserAttributes(["plan": "free"])
        await harness.superwall.flushEvents()
        let text = try String(contentsOfFile: harness.directory + "/events.jsonl", encoding: .utf8)
        let rows = text.split(separator: "\n").map { try? JSONDecoder().decode(JSON.self, from: Data($0.utf8)) }
        #expect(rows.count > 3)
        for row in rows {
            let sessionId = row?["parameters"]?["$app_session_id"]?.stringValue
            #expect(sessionId?.isEmpty == false, "\(String(describing: row?["event_name"]))")
        }
    }
}
