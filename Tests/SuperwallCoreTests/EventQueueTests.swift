import Executors
import Foundation
import Testing

@testable import SuperwallCore

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

    /// A flush to `events.jsonl` writes the whole queue, not a batch: nothing rate-limits a
    /// local file, and a batch at a time took a queue of 43k some 80 restarts to drain.
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
        let scheduled = (0..<(5 * interval)).filter { _ in tally.arrive(within: 100_000) }
        #expect(scheduled == [interval - 1], "one check, when the first interval fills")
        #expect(tally.take() == 5 * interval, "the check notes every event that waited for it")
        #expect(!tally.checkIsScheduled && tally.count == 0)
        let next = (0..<interval).filter { _ in tally.arrive(within: 100_000) }
        #expect(next == [interval - 1])
    }

    /// A check that would find the queue within its bound woke threads on the calls' core
    /// for nothing: the estimate takes the events instead, until they would pass the bound.
    @Test func eventsThatKeepAKnownEstimateWithinTheBoundScheduleNoCheck() {
        let interval = EventQueue.boundCheckInterval
        var tally = ArrivalTally()
        tally.estimate = 0
        let scheduled = (0..<(3 * interval)).filter { _ in tally.arrive(within: 2 * interval + interval / 2) }
        #expect(scheduled == [3 * interval - 1], "the third interval would pass the bound")
        #expect(tally.estimate == 2 * interval)
        #expect(tally.take() == interval)
    }

    /// `flushEvents` after a completed transaction's own flush: the events tracked meanwhile go
    /// out too, rather than the call joining a flush that had read its batch before them.
    @Test func aFlushAskedForWhileAnotherIsOutSendsWhatWasQueuedAfterThatOnesBatch() async throws {
        let store = try store(queued: 1)
        let sink = HeldSink()
        let queue = EventQueue(store: store, sink: sink)
        let first = Task(executorPreference: OffloadExecutor.shared) { await queue.flush() }
        await sink.firstBatchArrived.value
        store.logPlacement("event_1", at: Date(), paramsJSON: Array("{}".utf8), eventId: UUID(), queued: true)
        // Let go once this test's own flush has been asked for (at once, but for a busy host).
        let release = DeadlineTimer(after: .milliseconds(100)) { sink.release() }
        await queue.flush()
        #expect(sink.names == ["event_0", "event_1"])
        await first.value
        #expect(sink.names == ["event_0", "event_1"], "nothing is sent twice")
        release.cancel()
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

    private func rowCount(_ store: Store) throws -> Int {
        try store.transferPendingWrites()
        return try store.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM placement") ?? 0 }
    }

    /// The log kept every row a reset forgot: 71,261 rows in a three-minute soak, and each
    /// reset scanned them all.
    @Test func whatAResetForgotGoesOnceSentOrNeverToBeSent() async throws {
        let store = try store(queued: 3)
        store.logPlacement("local_only", at: Date(), paramsJSON: Array("{}".utf8), eventId: UUID(), queued: false)
        store.logPlacement("kept", at: Date(), paramsJSON: Array("{}".utf8), eventId: UUID(), queued: true)
        try store.resetUser()
        #expect(try rowCount(store) == 4, "the unqueued row goes at once; the queued ones wait to be sent")
        store.logPlacement("after_reset", at: Date(), paramsJSON: Array("{}".utf8), eventId: UUID(), queued: true)
        let sink = RecordingSink()
        await EventQueue(store: store, sink: sink).flush()
        #expect(sink.names == ["event_0", "event_1", "event_2", "kept", "after_reset"])
        #expect(try rowCount(store) == 1)
        #expect(try store.placementNames() == ["after_reset"])
    }

    @Test func eachResetForgetsWhatCameSinceTheLastAndKeepsTheInstallsHistory() throws {
        let store = try Store()
        for name in ["app_install", "first", "app_launch"] {
            store.logPlacement(name, at: Date(), paramsJSON: Array("{}".utf8), eventId: UUID(), queued: true)
        }
        try store.resetUser()
        for name in ["second", "app_launch", "third"] {
            store.logPlacement(name, at: Date(), paramsJSON: Array("{}".utf8), eventId: UUID(), queued: true)
        }
        try store.resetUser()
        #expect(try store.placementNames() == ["app_install", "app_launch", "app_launch"])
        #expect(try store.placementCount(named: "third", since: nil, until: Date()) == 0)
    }
}
