import Foundation
import JSONRPC
import TestSupport
import Testing

/// `flushEvents`: the queued events go out at once, not at the next interval.
@Suite struct FlushEventsTests {
    @Test func queuedEventsReachEventsJsonlAtOnceAndAreCounted() async throws {
        let process = await bridgeProcess()
        let directory = temporaryDirectory()
        _ = await call(
            process,
            "configure",
            configureParams(
                directory,
                // Nothing tracked in the background (the automatic preload) between the flushes.
                options: ["eventFlushIntervalMs": 86_400_000, "paywalls": ["shouldPreload": false]]
            )
        )
        _ = await call(process, "setUserAttributes", ["attributes": ["plan": "gold"]])
        let flushed = try #require(await call(process, "flushEvents")?["result"]?["flushed"]?.int64Value)
        #expect(flushed > 0)
        let lines = try String(contentsOfFile: directory + "/events.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(lines.count == Int(flushed))
        #expect(lines.contains { $0.contains(#""event_name":"user_attributes""#) })
        #expect(await call(process, "flushEvents")?["result"] == ["flushed": 0])
        #expect(await call(process, "getEventQueueStatus")?["result"]?["waiting"] == 0)
    }

    @Test func beforeConfigureItIsNotConfigured() async {
        let process = await bridgeProcess()
        #expect(await call(process, "flushEvents")?["error"]?["code"] == -32001)
    }
}
