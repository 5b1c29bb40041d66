import BridgeServer
import Foundation
import JSONRPC
import Logging
import TestSupport
import Testing

/// SuperwallKit's `eventTrackingBehavior` setter, for a consent flow after `configure`.
@Suite struct EventTrackingBehaviorTests {
    private func queueStatus(_ process: InProcessServer) async -> JSONValue? {
        await call(process, "getEventQueueStatus")?["result"]
    }

    @Test func turningEventsOffDropsWhatWaitsAndSendsNothingMore() async throws {
        let process = await bridgeProcess()
        _ = await call(process, "configure", configureParams(temporaryDirectory()))
        let before = try #require(await queueStatus(process))
        #expect((before["waiting"]?.int64Value ?? 0) > 0, "the launch events wait to be sent")
        #expect(await call(process, "setEventTrackingBehavior", ["behavior": "none"])?["result"] == [:])
        // The call answers once what waited is dropped.
        let after = await queueStatus(process)
        #expect(after?["waiting"] == 0)
        // What waited then and what the launch queued since (its preloads' events) is dropped.
        #expect((after?["dropped"]?.int64Value ?? 0) >= (before["waiting"]?.int64Value ?? 1))
        _ = await call(process, "register", ["placement": "workout_shared"])
        #expect(await queueStatus(process)?["waiting"] == 0, "nothing is queued while events are off")
    }

    @Test func turningThemBackOnSaysTheOptionsInEffect() async {
        let process = await bridgeProcess(delegate: true)
        var notifications: [JSONValue] = []
        _ = await call(process, "configure", configureParams(temporaryDirectory()), notifications: &notifications)
        _ = await call(
            process,
            "setEventTrackingBehavior",
            ["behavior": "SUPERWALL_ONLY"],
            notifications: &notifications
        )
        _ = await call(process, "getUserId", notifications: &notifications)
        let attributes = notifications.filter { $0["params"]?["event"]?["name"] == "config_attributes" }
        #expect(attributes.count == 2)
        #expect(attributes.last?["params"]?["params"]?["eventTrackingBehavior"] == "superwallOnly")
        let refused = await call(process, "setEventTrackingBehavior", ["behavior": "some"])?["error"]
        #expect(refused?["data"]?["path"] == "params.behavior")
    }
}
