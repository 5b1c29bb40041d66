import Foundation
import JSONRPC
import TestSupport
import Testing

/// `flushEvents`: the queued events go out at once, not at the next interval.
@Suite struct FlushEventsTests {
    /// A bridge configured on a new data directory, with nothing tracked in the background
    /// (the timer's flushes, the automatic preload) between the flushes a test asks for.
    private func configured() async -> (InProcessServer, directory: String) {
        let process = await bridgeProcess()
        let directory = temporaryDirectory()
        _ = await call(
            process,
            "configure",
            configureParams(
                directory,
                options: ["eventFlushIntervalMs": 86_400_000, "paywalls": ["shouldPreload": false]]
            )
        )
        return (process, directory)
    }

    @Test func queuedEventsReachEventsJsonlAtOnceAndAreCounted() async throws {
        let (process, directory) = await configured()
        _ = await call(process, "setUserAttributes", ["attributes": ["plan": "gold"]])
        let flushed = try #require(await call(process, "flushEvents")?["result"]?["flushed"]?.int64Value)
        #expect(flushed > 0)
        let lines = try String(contentsOfFile: directory + "/events.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(lines.count == Int(flushed))
        #expect(lines.contains { $0.contains(#""event_name":"user_attributes""#) })
        #expect(await call(process, "flushEvents")?["result"] == ["flushed": 0])
        #expect(await call(process, "getEventQueueStatus")?["result"]?["waiting"] == 0)
    }

    /// Ten calls at once each reported the count of the flush they joined: 1,612 for 200 events.
    @Test func callsMadeAtOnceCountEachEventOnce() async throws {
        let (process, directory) = await configured()
        for round in 0..<10 {
            for index in 0..<10 {
                process.client.request(.string("r\(round)-\(index)"), "register", ["placement": "open_coach_chat"])
            }
            process.client.request(.string("flush-\(round)"), "flushEvents")
        }
        var flushed: Int64 = 0
        var answered = 0
        while answered < 110, let reply = await process.client.nextReply() {
            answered += 1
            if reply["id"]?.stringValue?.hasPrefix("flush-") == true {
                flushed += reply["result"]?["flushed"]?.int64Value ?? 0
            }
        }
        flushed += await call(process, "flushEvents")?["result"]?["flushed"]?.int64Value ?? 0
        let lines = try String(contentsOfFile: directory + "/events.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(Int(flushed) == lines.count)
    }

    @Test func beforeConfigureItIsNotConfigured() async {
        let process = await bridgeProcess()
        #expect(await call(process, "flushEvents")?["error"]?["code"] == -32001)
    }
}
