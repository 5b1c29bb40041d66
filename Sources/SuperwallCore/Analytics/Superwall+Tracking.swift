import Executors
import Foundation
import Logging
import Synchronization

extension Superwall {
    /// "Accepted means answered": what a public call tracked is durable before the call
    /// returns, so a host that answers with its result never reports an event a crash could
    /// lose. When the rows cannot be made durable (a full disk), the call throws why, and they
    /// wait in memory for the next commit. A call that fails commits what it tracked before it
    /// failed, and throws its own error.
    func answering<Result>(
        _ call: () async throws(SuperwallError) -> Result
    ) async throws(SuperwallError) -> Result {
        let result: Result
        do {
            result = try await call()
        } catch {
            commitTrackedAfterFailure()
            throw error
        }
        try commitTracked()
        return result
    }

    /// `answering` for a call that does not suspend.
    func answeringWithoutSuspending<Result>(
        _ call: () throws(SuperwallError) -> Result
    ) throws(SuperwallError) -> Result {
        let result: Result
        do {
            result = try call()
        } catch {
            commitTrackedAfterFailure()
            throw error
        }
        try commitTracked()
        return result
    }

    /// Commits the events tracked so far to the placement log.
    func commitTracked() throws(SuperwallError) {
        do {
            try store?.commitPendingWrites()
        } catch {
            throw .storage(from: error)
        }
    }

    /// The call's own error is the one to throw; the commit's is said in the log.
    private func commitTrackedAfterFailure() {
        do {
            try commitTracked()
        } catch {
            Store.logger.error("could not commit tracked events: \(error)", metadata: ["error": "\(error)"])
        }
    }

    /// Tracks an event: the tracker makes and records it (see `EventTracker.record`), and the
    /// events that may present a paywall are then offered to the implicit triggers.
    @discardableResult
    func track(
        _ name: String,
        _ superwallParameters: consuming [String: JSON] = [:],
        custom: [String: JSON] = [:],
        isSuperwallEvent: Bool = true,
        subject: EventSubject = .none,
        offeringImplicitTrigger: Bool = true
    ) -> TrackedEvent {
        record(
            tracker.makeEvent(
                name,
                superwallParameters,
                custom: custom,
                isSuperwallEvent: isSuperwallEvent,
                subject: subject
            ),
            offeringImplicitTrigger: offeringImplicitTrigger
        )
    }

    /// Records an event made by the tracker, then `recorded`.
    /// `offeringImplicitTrigger` is false for events whose trigger the caller offers itself
    /// (custom placements, named by the paywall rather than by kind).
    @discardableResult
    func record(_ event: TrackedEvent, offeringImplicitTrigger: Bool = true) -> TrackedEvent {
        tracker.record(event)
        return recorded(event, offeringImplicitTrigger: offeringImplicitTrigger)
    }

    /// What follows the recording of any event: a paywall opening changes the template's
    /// inputs, and a Superwall event may fire an implicit trigger.
    @discardableResult
    func recorded(_ event: TrackedEvent, offeringImplicitTrigger: Bool = true) -> TrackedEvent {
        if event.name == "paywall_open" { device.templateInputsChanged() }
        if event.isSuperwallEvent, offeringImplicitTrigger, let trigger = ImplicitTrigger(eventName: event.name) {
            offerImplicitTrigger(trigger, event: event)
        }
        return event
    }

    /// Starts `work` on this actor in a task of its own, on the `OffloadExecutor`.
    ///
    /// Never a bare `Task {}`: a task without an executor preference schedules this actor on
    /// the cooperative pool, and while the pool is busy every request that needs the actor
    /// (and every deadline that resumes on it) would wait for a free thread of the pool.
    ///
    /// The task holds the actor weakly until it starts: waiting for a thread, it does not keep a
    /// session that is ending (and its data directory) open.
    @discardableResult
    nonisolated func startTask(_ work: @escaping @Sendable (isolated Superwall) async -> Void) -> Task<Void, Never> {
        Task(executorPreference: offload) { [weak self] in
            guard let self else { return }
            await work(self)
        }
    }

    /// Runs heavy work (reading, decoding and storing a config of many megabytes) on the
    /// offload executor, whatever executor the calling task prefers: a host may run its calls
    /// on a thread with other duties, and heavy work must not hold it.
    nonisolated func offloaded<Value: Sendable>(
        _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await Task.detached(executorPreference: offload, operation: work).value
    }

    /// `config_attributes`: the options in effect, as SuperwallKit dumps them.
    func trackConfigAttributes(_ options: ConfigureOptions) {
        track("config_attributes", SuperwallOptionsDump.configAttributes(options, hasDelegate: host.delegate != nil))
    }

    /// SuperwallKit's `eventTrackingBehavior` setter, for a consent flow after `configure`:
    /// which events go out from now on; anything but `all` drops what waits to be sent. The page
    /// on screen is told, and, unless nothing goes out any more, `config_attributes` says the
    /// options now in effect.
    /// The call answers once what waited is dropped.
    public func setEventTrackingBehavior(_ behavior: EventTrackingBehavior) async throws(SuperwallError) {
        try await answering { () async throws(SuperwallError) -> Void in
            guard let session else { throw .notConfigured }
            guard await tracker.changeBehavior(to: behavior) else { return }
            Self.logger.notice("event tracking behavior is \(behavior.rawValue) from now on")
            if let open = paywalls.open, open.page.paywalljsVersion != nil {
                host.presenter?.passToPage(PageEvents.trackingBehavior(behavior), sessionId: open.id)
            }
            guard behavior != .none else { return }
            var options = session.options
            options.eventTrackingBehavior = behavior
            trackConfigAttributes(options)
        }
    }

    /// The event tracking behaviour in effect.
    public var eventTrackingBehavior: EventTrackingBehavior { tracker.behavior }

    // MARK: The event queue

    func eventRequest() -> ConfigRequest {
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
        await tracker.flush(within: limit)
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

    // MARK: The app's foreground and background (SuperwallKit's `AppSessionManager`, listening
    // to UIKit's notifications of the same names)

    /// The app came to the foreground: `app_open`, the web entitlements when they are due, and a new session (`session_start`, whose
    /// campaign may present, then `device_attributes`, `user_attributes` and, under `enable_config_refresh_v2`, a config refresh)
    /// when it was away longer than the config's `app_session_timeout_ms`.
    ///
    /// The session `configure` started is the first one, so an activation the host reports
    /// without a background before it starts nothing new (SuperwallKit would see its launch
    /// activation here).
    public func appDidBecomeActive() throws(SuperwallError) {
        try answeringWithoutSuspending { () throws(SuperwallError) -> Void in
            guard let session else { return }
            track("app_open")
            pollWebEntitlements(force: false)
            let timeout = Double(session.config?.appSessionTimeoutMs ?? 3_600_000) / 1000
            guard tracker.appCameBack(at: clock.now(), startsAnAppSessionAfter: timeout) else { return }
            tracker.startAppSession(random.uuid().uuidString)
            track("session_start")
            trackDeviceAttributes()
            track(
                "user_attributes",
                ["application_installed_at": .string(ISO8601.string(from: users.appInstalledAt))],
                custom: users.attributes
            )
            // SuperwallKit refreshes on a new app session only under the config's
            // `enable_config_refresh_v2`.
            if session.config?.featureFlags.enableConfigRefreshV2 == true, configLoading.backend != nil {
                configLoading.runsInBackground(
                    startTask { superwall in
                        _ = try? await superwall.refreshConfiguration()
                    }
                )
            }
        }
    }

    /// The app went to the background: `app_close`; its time decides whether the next
    /// activation starts a new session.
    public func appWillResignActive() throws(SuperwallError) {
        try answeringWithoutSuspending { () throws(SuperwallError) -> Void in
            guard session != nil else { return }
            track("app_close")
            tracker.appWentToBackground(at: clock.now())
        }
    }
}
