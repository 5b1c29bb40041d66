import Foundation
import Testing

@testable import SuperwallCore

/// A sink that keeps what it is given, refusing some indexes or failing when told to.
final class RecordingSink: EventSink, @unchecked Sendable {
    private let lock = NSLock()
    private var batches: [[String]] = []
    var refuse: Set<Int> = []
    var failing = false
    func deliver(_ events: [String]) async throws -> Set<Int> {
        try lock.withLock {
            if failing { throw URLError(.notConnectedToInternet) }
            batches.append(events)
            return refuse
        }
    }
    var delivered: [[String]] { lock.withLock { batches } }
    var names: [String] {
        delivered.joined().compactMap { text in
            (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["event_name"] as? String
        }
    }
}

@Suite struct EventQueueTests {
    private func store(queued count: Int, name: (Int) -> String = { "event_\($0)" }) throws -> Store {
        let store = try Store()
        for index in 0..<count {
            store.logPlacement(
                name(index),
                at: Date(timeIntervalSince1970: 1_790_000_000 + Double(index)),
                paramsJSON: Array(#"{"i":\#(index)}"#.utf8),
                eventId: UUID(uuidString: "00000000-0000-4000-8000-\(String(format: "%012d", index))"),
                queued: true
            )
        }
        return store
    }

    @Test func eventsGoOutInBatchesOfFiftyOldestFirstEachOnce() async throws {
        let sink = RecordingSink()
        let queue = EventQueue(store: try store(queued: 120), sink: sink)
        await queue.flush()
        #expect(sink.delivered.map(\.count) == [50, 50, 20])
        #expect(sink.names.first == "event_0" && sink.names.last == "event_119")
        await queue.flush()
        #expect(sink.delivered.count == 3, "nothing is sent twice")
        let first = try #require(sink.delivered.first?.first)
        let row = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        #expect(row["event_id"] as? String == "00000000-0000-4000-8000-000000000000")
        #expect((row["parameters"] as? [String: Any])?["i"] as? Int == 0)
        #expect(row["created_at"] as? String == "2026-09-21T14:13:20.000Z")
    }

    @Test func aFlushSendsAtMostElevenBatchesAndTheNextOneTheRest() async throws {
        let sink = RecordingSink()
        let queue = EventQueue(store: try store(queued: 600), sink: sink)
        await queue.flush()
        #expect(sink.delivered.count == 11)
        await queue.flush()
        #expect(sink.delivered.joined().count == 600)
    }

    /// A shutdown used to write at most 550 events to `events.jsonl`; a queue of 43k took
    /// some 80 restarts to drain. Nothing rate-limits a local file.
    @Test func aFlushToALocalFileWritesTheWholeQueue() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("events-\(UUID().uuidString).jsonl")
            .path
        let queue = EventQueue(store: try store(queued: 5_000), sink: JSONLinesEventSink(path: path))
        await queue.flush()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 5_000)
        #expect(await queue.waitingCount == 0)
    }

    @Test func aFailedDeliveryKeepsTheBatchForTheNextFlush() async throws {
        let sink = RecordingSink()
        sink.failing = true
        let queue = EventQueue(store: try store(queued: 10), sink: sink)
        await queue.flush()
        #expect(sink.delivered.isEmpty)
        sink.failing = false
        await queue.flush()
        #expect(sink.names.count == 10)
    }

    @Test func refusedRowsAreCountedAsDroppedAndNotSentAgain() async throws {
        let sink = RecordingSink()
        sink.refuse = [0, 3]
        let queue = EventQueue(store: try store(queued: 5), sink: sink)
        await queue.flush()
        #expect(await queue.droppedCount == 2)
        await queue.flush()
        #expect(sink.delivered.count == 1)
    }

    @Test func pastItsBoundTheQueueDropsTheOldestAndCountsThem() async throws {
        let sink = RecordingSink()
        let queue = EventQueue(store: try store(queued: 25), sink: sink, bound: 10)
        await queue.flush()
        #expect(sink.names == (15..<25).map { "event_\($0)" })
        #expect(await queue.droppedCount == 15)
    }

    @Test func theBoundHoldsBeforeAnyFlush() async throws {
        let queue = EventQueue(store: try store(queued: 25), sink: RecordingSink(), bound: 10)
        await queue.enforceBound()
        #expect(await queue.waitingCount == 10)
        #expect(await queue.droppedCount == 15)
    }

    @Test func eventsNotedPastTheBoundDropTheOldestByTheEstimateAndTheFlushSendsTheRest() async throws {
        let store = try store(queued: 25)
        let sink = RecordingSink()
        let queue = EventQueue(store: store, sink: sink, bound: 10)
        await queue.enforceBound()
        for index in 25..<30 {
            store.logPlacement(
                "event_\(index)",
                at: Date(),
                paramsJSON: Array("{}".utf8),
                eventId: UUID(),
                queued: true
            )
        }
        await queue.noteQueued(5)
        #expect(await queue.droppedCount == 20)
        #expect(await queue.waitingCount == 10)
        await queue.flush()
        #expect(sink.names == (20..<30).map { "event_\($0)" })
    }

    @Test func anEstimateAboveWhatWaitsFallsBackToCounting() async throws {
        let queue = EventQueue(store: try store(queued: 25), sink: RecordingSink(), bound: 10)
        await queue.noteQueued(25)
        #expect(await queue.waitingCount == 10)
        #expect(await queue.droppedCount == 15)
    }

    /// A flush that could not keep up held the queue while a task per 1,000 events queued
    /// behind it: memory grew without end under load.
    @Test func eventsThatArriveWhileABoundCheckWaitsJoinItRatherThanScheduleAnother() {
        var tally = ArrivalTally()
        let interval = EventQueue.boundCheckInterval
        let scheduled = (0..<(5 * interval)).filter { _ in tally.arrive() }
        #expect(scheduled == [interval - 1], "one check, when the first interval fills")
        #expect(tally.take() == 5 * interval, "the check notes every event that waited for it")
        #expect(!tally.checkIsScheduled && tally.count == 0)
        let next = (0..<interval).filter { _ in tally.arrive() }
        #expect(next == [interval - 1])
    }

    @Test func rowsNotQueuedAreLoggedButNeverSent() async throws {
        let store = try store(queued: 3)
        store.logPlacement("local_only", at: Date(), paramsJSON: Array("{}".utf8), eventId: UUID(), queued: false)
        let sink = RecordingSink()
        await EventQueue(store: store, sink: sink).flush()
        #expect(sink.names == ["event_0", "event_1", "event_2"])
        #expect(try store.placementNames().contains("local_only"))
    }

    @Test func aResetForgetsTheLogButNotTheQueue() async throws {
        let store = try store(queued: 3)
        try store.resetUser()
        store.logPlacement("after_reset", at: Date(), paramsJSON: Array("{}".utf8), eventId: UUID(), queued: true)
        let sink = RecordingSink()
        await EventQueue(store: store, sink: sink).flush()
        #expect(sink.names == ["event_0", "event_1", "event_2", "after_reset"])
        #expect(try store.placementNames() == ["after_reset"])
    }
}

@Suite struct TrackedEventDeliveryTests {
    private func superwall(
        _ behavior: EventTrackingBehavior = .all,
        config: String = EmbeddedDemoConfig.json
    ) async throws -> (Superwall, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("events-\(UUID().uuidString)")
            .path
        let superwall = Superwall()
        _ = await superwall.configure(
            apiKey: "pk",
            options: Superwall.ConfigureOptions(
                configSource: TextConfigSource(body: config),
                dataDirectory: directory,
                eventTrackingBehavior: behavior,
                eventFlushInterval: .seconds(3600)
            )
        )
        await superwall.awaitPresentationQueue()
        return (superwall, directory + "/events.jsonl")
    }

    private func sentNames(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { line in
            (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["event_name"] as? String
        }
    }

    /// `getEventQueueStatus` reported 191,311 waiting against a bound of 100,000: the bound
    /// was kept only when a flush came.
    @Test func theQueueKeepsItsBoundAsEventsArriveNotOnlyAtFlush() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("events-\(UUID().uuidString)")
            .path
        let superwall = Superwall()
        var options = Superwall.ConfigureOptions(
            configSource: TextConfigSource(body: EmbeddedDemoConfig.json),
            dataDirectory: directory,
            eventFlushInterval: .seconds(3600)
        )
        options.eventQueueBound = 50
        _ = await superwall.configure(apiKey: "pk", options: options)
        for index in 0..<60 {
            _ = try await superwall.register(placement: "workout_shared", params: ["n": .int(Int64(index))])
        }
        let status = try await superwall.eventQueueStatus()
        #expect(status.waiting == 50)
        #expect(status.dropped > 0)
    }

    @Test func withALocalSourceEventsGoToTheDataDirectorysJSONLinesFile() async throws {
        let (superwall, path) = try await superwall()
        _ = try await superwall.register(placement: "workout_shared", params: ["n": 1])
        #expect(try await superwall.eventQueueStatus().waiting > 2)
        await superwall.flushEvents()
        #expect(try await superwall.eventQueueStatus() == (waiting: 0, dropped: 0))
        let names = try sentNames(path)
        #expect(names.prefix(2) == ["app_install", "app_launch"])
        #expect(names.contains("workout_shared") && names.contains("trigger_fire"))
        let line = try #require(
            try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").first {
                $0.contains("\"workout_shared\"")
            }
        )
        let row = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let parameters = try #require(row["parameters"] as? [String: Any])
        #expect(parameters["n"] as? Int == 1)
        #expect(parameters["$is_standard_event"] as? Bool == false)
    }

    @Test func superwallOnlyLeavesOutTriggerFireUserAttributesAndPlacements() async throws {
        let (superwall, path) = try await superwall(.superwallOnly)
        _ = try await superwall.register(placement: "workout_shared")
        _ = try await superwall.setUserAttributes(["plan": .string("free")])
        await superwall.flushEvents()
        let names = try sentNames(path)
        #expect(names.contains("app_launch"))
        #expect(
            !names.contains("workout_shared") && !names.contains("trigger_fire") && !names.contains("user_attributes")
        )
    }

    @Test func noneSendsNothing() async throws {
        let (superwall, path) = try await superwall(.none)
        _ = try await superwall.register(placement: "workout_shared")
        await superwall.flushEvents()
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func verboseEventsStayHomeWhenTheConfigDisablesThem() async throws {
        let verboseOff = try edited(EmbeddedDemoConfig.json) {
            $0["toggles"] = [["key": "disable_verbose_events", "enabled": true]]
        }
        let (superwall, path) = try await superwall(config: verboseOff)
        _ = try await superwall.register(placement: "workout_shared")
        await superwall.flushEvents()
        let names = try sentNames(path)
        #expect(!names.contains("paywallPresentationRequest"))
        #expect(names.contains("trigger_fire"))
    }
}

@Suite struct CollectorDeliveryTests {
    @Test func theHTTPSourcesEventsArePostedToTheCollectorRetriedAndPartlyRefused() async throws {
        let server = try await ScriptedAPIServer.start(
            [.init(status: 200, body: EmbeddedDemoConfig.json)],
            posts: [
                .init(status: 503), .init(status: 200, body: #"{"status": "partial_success", "invalid_indexes": [0]}"#),
            ]
        )
        let superwall = Superwall(retryDelay: { _, _ in .milliseconds(10) })
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("collector-\(UUID().uuidString)")
            .path
        _ = await superwall.configure(
            apiKey: "pk_collector",
            options: Superwall.ConfigureOptions(
                configSource: HTTPConfigSource(baseURL: server.baseURL),
                dataDirectory: directory,
                maxConfigRetryCount: 0,
                eventFlushInterval: .seconds(3600)
            )
        )
        await superwall.awaitPresentationQueue()
        await superwall.flushEvents(within: .seconds(5))
        let posts = server.posts.filter { $0.path == "/api/v1/events" }
        #expect(posts.count == 2, "one refused with 503, then retried")
        let last = try #require(posts.last)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(last.body.utf8)) as? [String: Any])
        let events = try #require(body["events"] as? [[String: Any]])
        #expect(events.first?["event_name"] as? String == "app_install")
        #expect(
            events.allSatisfy {
                $0["event_id"] is String && $0["created_at"] is String && $0["parameters"] is [String: Any]
            }
        )
        #expect(await superwall.droppedEventCount == 1)
    }
}
