import Executors
import Foundation

extension Superwall {
    /// The queue for the session's source: Superwall's collector for the `http` source, the
    /// data directory's `events.jsonl` for the others.
    func startEventQueue(_ options: ConfigureOptions) {
        guard let session else { return }
        let sink: any EventSink
        if let collector = configLoading.backend?.collector {
            sink = CollectorEventSink(source: collector) { [weak self] in
                await self?.eventRequest() ?? ConfigRequest(apiKey: "")
            }
        } else {
            sink = JSONLinesEventSink(
                path: URL(fileURLWithPath: session.directory.path).appendingPathComponent(DataDirectory.eventsFile).path
            )
        }
        let queue = EventQueue(store: session.store, sink: sink, bound: options.eventQueueBound, offload: offload)
        tracker.begin(store: session.store, ids: random, queue: queue, behavior: options.eventTrackingBehavior)
        let interval = options.eventFlushInterval
        // Detached and weak, as every task that reaches the queue: none may keep the session's
        // store open after the session is gone.
        Task.detached(executorPreference: offload) { [weak queue, clock] in
            await queue?.start(every: interval, on: clock)
        }
    }

    private func eventRequest() -> ConfigRequest {
        ConfigRequest(
            apiKey: session?.apiKey ?? "",
            headers: requestHeaders(cachedBuildId: config?.buildId),
            retryPolicy: RetryPolicy(maxRetries: 6, delay: retryDelay),
            attemptTimeout: 30
        )
    }

    /// Sends the queued events now (after `transaction_complete`, at shutdown, at end of
    /// input), waiting at most `limit`; what is not sent by then stays queued on disk.
    public func flushEvents(within limit: Duration = .seconds(2)) async {
        guard let queue = tracker.queue else { return }
        // The wait is bounded, not the flush: the queue's own task goes on, and a batch still
        // on its way stays on disk for next time.
        let finished = await withDeadline(limit, fallback: false) { [weak queue] in
            await queue?.flush()
            return true
        }
        if !finished {
            let waiting = await queue.waitingCount
            Self.logger.warning(
                "the event flush did not finish within \(limit): \(waiting) events wait on disk and go out in the next session"
            )
        }
    }

    /// `flushEvents`: sends the queued events now, to the collector or `events.jsonl`, waiting
    /// at most `limit`, and answers how many went out since the last call answered (a flush
    /// already under way counts); what is not sent stays queued on disk. Of calls made at
    /// once, each event is counted by one.
    public func flushQueuedEvents(within limit: Duration) async throws(SuperwallError) -> Int {
        guard session != nil, let queue = tracker.queue else { throw .notConfigured }
        try commitTracked()
        await flushEvents(within: limit)
        return await queue.claimDelivered()
    }

    /// How many queued events were dropped unsent (the queue's bound, refused by the collector).
    public var droppedEventCount: Int {
        get async { await tracker.queue?.droppedCount ?? 0 }
    }

    /// The outgoing queue: how many events wait to be sent, and how many were dropped unsent.
    public func eventQueueStatus() async throws(SuperwallError) -> (waiting: Int, dropped: Int) {
        guard session != nil, let queue = tracker.queue else { throw .notConfigured }
        try commitTracked()
        await queue.enforceBound()
        return (await queue.waitingCount, await queue.droppedCount)
    }
}
