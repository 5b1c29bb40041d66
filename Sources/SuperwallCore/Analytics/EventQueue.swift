import Executors
import Foundation
import Logging
import Synchronization

/// Where queued events are delivered.
public protocol EventSink: Sendable {
    /// Delivers one batch of event rows (JSON texts, UTF-8); answers the indexes the receiver
    /// refused as invalid (they are not sent again). Throws when the batch did not get through.
    func deliver(_ events: [[UInt8]]) async throws -> Set<Int>
    /// Whether the receiver takes SuperwallKit's paced batches (a flush sends at most 11 of
    /// 50); one that is not (a local file) is sent the whole queue at every flush.
    var isRateLimited: Bool { get }
}

extension EventSink {
    public var isRateLimited: Bool { true }
}

/// SuperwallKit's `EventTrackingBehavior`: which events go out (all still reach the placement
/// log and the delegate).
public enum EventTrackingBehavior: String, Sendable, CaseIterable {
    case all
    /// Drops `trigger_fire`, `user_attributes` and the app's own placements.
    case superwallOnly
    case none
}

/// The outgoing event queue (SuperwallKit's `PlacementsQueue`), kept on disk: the placement
/// log's queued rows after a persisted position. Unlike SuperwallKit's memory-only queue,
/// nothing accepted is lost to a crash; a batch whose delivery was cut off is sent again, so
/// delivery is at least once (the collector sees each `event_id` at least once).
actor EventQueue {
    static let batchSize = 50
    /// SuperwallKit's flush sends at most this many batches; the rest waits for the next one.
    static let batchesPerFlush = 11
    /// A sink that is not rate-limited takes larger batches, as many as wait.
    static let unlimitedBatchSize = 1_000

    private let store: Store
    private let sink: any EventSink
    /// Off the cooperative pool, as the SDK's actor (see `SerialLane`).
    private nonisolated let lane = SerialLane()
    /// Where its timer and flushes run.
    private nonisolated var offload: OffloadExecutor { .shared }
    nonisolated var unownedExecutor: UnownedSerialExecutor { lane.asUnownedSerialExecutor() }
    /// The most events kept waiting; past it the oldest are dropped and counted.
    private let bound: Int
    /// The flush under way, numbered in the order flushes started.
    private var flushing: (task: Task<Void, Never>, number: Int)?
    private var flushesStarted = 0
    private var timer: Task<Void, Never>?

    /// How many events may be queued between two checks of the bound.
    static let boundCheckInterval = 1_000
    /// Events queued and not yet noted, and how many wait by the estimate, kept without
    /// waiting for the actor.
    private let arrivals = Mutex(ArrivalTally())

    init(store: Store, sink: any EventSink, bound: Int = 100_000) {
        self.store = store
        self.sink = sink
        self.bound = bound
    }

    /// Flushes every `interval` until `stop`.
    func start(every interval: Duration, on clock: any WallClock) {
        timer?.cancel()
        // Detached and weak: the timer must not keep the queue (and its store) alive.
        timer = Task.detached(executorPreference: offload) { [weak self] in
            while !Task.isCancelled {
                try? await clock.sleep(for: interval)
                guard !Task.isCancelled else { return }
                await self?.flush()
            }
        }
    }

    func stop() {
        timer?.cancel()
        timer = nil
    }

    /// Sends what waits, in batches. A flush that started after this call is joined rather than
    /// doubled; one that started before it may have read its batches before the events this
    /// call is to send were queued, so it is waited for and then followed by another.
    func flush() async {
        let asked = flushesStarted
        while let running = flushing {
            if running.number > asked { return await running.task.value }
            await running.task.value
            if flushing?.number == running.number { flushing = nil }
        }
        flushesStarted += 1
        let number = flushesStarted
        let task = Task(executorPreference: offload) { await self.send() }
        flushing = (task, number)
        let delivered = deliveredCount
        await task.value
        if flushing?.number == number { flushing = nil }
        // What a reset forgot and is now sent is read by nothing: the log stays the size of
        // what rules can still read and what waits to go out.
        if deliveredCount != delivered { try? store.pruneForgottenPlacements() }
    }

    /// Keeps the queue within its bound now.
    func enforceBound() {
        var position = storedPosition
        dropOldest(after: &position)
    }

    private var storedPosition: Int64 { ((try? store.value(.eventQueuePosition)) ?? nil) ?? 0 }

    /// The core calls this as it queues each event. Every `boundCheckInterval` events one
    /// check of the bound is scheduled, unless the estimate says the queue is within it; while
    /// a check waits for the queue (a flush that cannot keep up holds it), later events join
    /// it. A task per interval piled up there instead, about 4 bytes of memory per event
    /// without end; and a check that found nothing to do woke threads on the calls' core.
    nonisolated func noteArrival() {
        guard arrivals.withLock({ $0.arrive(within: bound) }) else { return }
        Task.detached(executorPreference: offload) { [weak self] in await self?.checkArrivals() }
    }

    private func checkArrivals() {
        noteQueued(arrivals.withLock { $0.take() })
    }

    /// The core tells the queue as events are queued, so a long flush interval or a collector
    /// that is down cannot let it grow past its bound. Counting the waiting rows is a scan, so
    /// the queue keeps an estimate (the last count, plus what was queued since, less what was
    /// sent) and counts only when it has none.
    func noteQueued(_ count: Int) {
        let counted = arrivals.withLock { $0.estimate } == nil ? waitingCount : 0
        // Added under the lock: events that arrive meanwhile add to the same estimate.
        let estimate = arrivals.withLock { tally -> Int in
            let estimate = (tally.estimate ?? counted) + count
            tally.estimate = estimate
            return estimate
        }
        if estimate > bound { dropOldest(estimate - bound) }
    }

    /// How many queued events were dropped unsent.
    var droppedCount: Int { ((try? store.value(.droppedEventCount)) ?? nil) ?? 0 }

    /// How many events wait to be sent.
    var waitingCount: Int {
        (try? store.outgoingEventCount(after: storedPosition)) ?? 0
    }

    /// How many events this queue has delivered since it started.
    private(set) var deliveredCount = 0
    /// How many of them `flushEvents` calls have answered for already.
    private var claimedCount = 0
    /// Whether the last batch failed: the first failure of a run is said at the default level.
    private var failing = false

    /// How many events were delivered that no earlier claim counted: of calls made at once,
    /// each event is counted by one. (Counting from each call's own start lost the events of
    /// a flush whose caller claimed after a later caller.)
    func claimDelivered() -> Int {
        defer { claimedCount = deliveredCount }
        return deliveredCount - claimedCount
    }

    private func send() async {
        var position = storedPosition
        dropOldest(after: &position)
        let (batchSize, batches) =
            sink.isRateLimited ? (Self.batchSize, Self.batchesPerFlush) : (Self.unlimitedBatchSize, Int.max)
        for _ in 0..<batches {
            guard let batch = try? store.outgoingEvents(after: position, limit: batchSize), let last = batch.last else {
                return
            }
            let refused: Set<Int>
            do {
                refused = try await sink.deliver(batch.map(\.text))
            } catch {
                let message: Logger.Message =
                    "event flush: a batch of \(batch.count) was not delivered (\(error)); kept for the next flush"
                if failing {
                    DecisionLog.analytics.debug(message, metadata: ["error": "\(error)"])
                } else {
                    DecisionLog.analytics.warning(message, metadata: ["error": "\(error)"])
                }
                failing = true
                return  // kept: the next flush tries again
            }
            failing = false
            DecisionLog.analytics.debug(
                "event flush: \(batch.count - refused.count) events delivered\(refused.isEmpty ? "" : ", \(refused.count) refused as invalid")"
            )
            // Past the batch, or past what a check of the bound dropped while it was out.
            position = max(last.position, storedPosition)
            try? store.set(position, for: .eventQueuePosition)
            arrivals.withLock { $0.estimate = $0.estimate.map { max(0, $0 - batch.count) } }
            deliveredCount += batch.count - refused.count
            if !refused.isEmpty { countDropped(refused.count) }
        }
    }

    /// Drops every event waiting to be sent, counted as dropped: what `setEventTrackingBehavior`
    /// does when the app narrows the events that go out (SuperwallKit empties its queue).
    func dropWaiting() {
        guard let waiting = try? store.outgoingEventCount(after: storedPosition), waiting > 0,
            let newest = try? store.outgoingPosition(keepingNewest: 0)
        else { return }
        try? store.set(newest, for: .eventQueuePosition)
        arrivals.withLock { $0.estimate = 0 }
        countDropped(waiting)
    }

    /// Keeps the queue within its bound, oldest first; the count it makes becomes the estimate.
    private func dropOldest(after position: inout Int64) {
        guard let waiting = try? store.outgoingEventCount(after: position) else { return }
        arrivals.withLock { $0.estimate = min(waiting, bound) }
        guard waiting > bound, let kept = try? store.outgoingPosition(keepingNewest: bound) else { return }
        position = kept
        try? store.set(position, for: .eventQueuePosition)
        countDropped(waiting - bound)
    }

    /// Drops the oldest `excess` events by the estimate, reading only those rows. Counting the
    /// whole queue is a scan of the bound's worth of rows, and a queue held at its bound by a
    /// flush that cannot keep up passes it again every `boundCheckInterval` events. The next
    /// flush counts exactly again.
    private func dropOldest(_ excess: Int) {
        guard let last = try? store.outgoingPosition(after: storedPosition, skipping: excess) else {
            return enforceBound()  // fewer wait than estimated
        }
        try? store.set(last, for: .eventQueuePosition)
        arrivals.withLock { $0.estimate = bound }
        countDropped(excess)
    }

    private func countDropped(_ count: Int) {
        try? store.set(droppedCount + count, for: .droppedEventCount)
    }
}

/// Events written to a JSON-lines file, one row a line: where they go with the `embedded` and
/// `file` config sources, so a developer can read what would have been sent.
struct JSONLinesEventSink: EventSink {
    let path: String
    var isRateLimited: Bool { false }

    func deliver(_ events: [[UInt8]]) async throws -> Set<Int> {
        var lines: [UInt8] = []
        lines.reserveCapacity(events.reduce(0) { $0 + $1.count + 1 })
        for event in events {
            lines += event
            lines.append(UInt8(ascii: "\n"))
        }
        try PrivateFile.append(lines, to: path)
        return []
    }
}

/// Superwall's collector: `POST /api/v1/events` with `{"events": [...]}`, retried as every
/// Superwall request is; `partial_success` names the refused rows in `invalid_indexes`.
struct CollectorEventSink: EventSink {
    let source: HTTPConfigSource
    let request: @Sendable () async -> ConfigRequest

    func deliver(_ events: [[UInt8]]) async throws -> Set<Int> {
        var body = Data(#"{"events":["#.utf8)
        body.reserveCapacity(events.reduce(16) { $0 + $1.count + 1 })
        for (index, event) in events.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(contentsOf: event)
        }
        body.append(contentsOf: "]}".utf8)
        let answer = try await source.postEvents(body, request: await request())
        struct Response: Decodable {
            var status: String?
            var invalid_indexes: [Int]?
        }
        guard let response = try? JSONDecoder().decode(Response.self, from: answer),
            response.status == "partial_success"
        else { return [] }
        return Set(response.invalid_indexes ?? [])
    }
}

/// Counts queued events between checks of the queue's bound, and whether a check is waiting;
/// keeps the queue's estimate of how many events wait (the last count, plus what was queued
/// since, less what was sent), nil until counted.
struct ArrivalTally {
    private(set) var count = 0
    private(set) var checkIsScheduled = false
    var estimate: Int?

    /// Counts one event; true when a check is due and none is scheduled (the caller schedules
    /// it). A check is due every `boundCheckInterval` events, unless the estimate with them is
    /// within `bound`: they then join the estimate and no check is made.
    mutating func arrive(within bound: Int) -> Bool {
        count += 1
        guard count >= EventQueue.boundCheckInterval, !checkIsScheduled else { return false }
        if let estimate, estimate + count <= bound {
            self.estimate = estimate + count
            count = 0
            return false
        }
        checkIsScheduled = true
        return true
    }

    /// What the scheduled check notes: every event counted so far, the count starting again.
    mutating func take() -> Int {
        defer {
            count = 0
            checkIsScheduled = false
        }
        return count
    }
}
