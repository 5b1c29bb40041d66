import Executors
import Foundation
import Logging

/// Makes, records and repeats the SDK's events, and keeps what that needs between them: the
/// app session, how much to track, where the events go, and the last events of the kinds
/// tracked again as they were (`RepeatedEvent`).
///
/// Owned by the `Superwall` actor, which is the only one to touch it. `Superwall.track` is a
/// thin call on it that also offers the event to the implicit triggers.
final class EventTracker {
    /// SuperwallKit's app session: every event carries its id (`$app_session_id`); a new one
    /// starts at `configure` and when the app comes back after `app_session_timeout_ms`.
    private(set) var appSessionId = ""
    /// When the host last said the app went to the background; nil while it is active.
    private var lastAppClose: Date?
    private(set) var behavior = EventTrackingBehavior.all
    /// `disable_verbose_events` in a build that is not a sandbox one.
    private(set) var suppressesVerboseEvents = false
    /// `enable_expression_params`: `paywallPresentationRequest` carries the placement's params.
    private(set) var sendsExpressionParams = false
    /// Sends the tracked events out.
    private(set) var queue: EventQueue?
    /// The last skip's `trigger_fire`, the last `paywallPresentationRequest` and the last
    /// registered placement, to be tracked again as they are.
    private var lastUnmatchedTriggerFire: RepeatedEvent<UnmatchedPlacement>?
    private var lastPresentationRequest: RepeatedEvent<[String]>?
    private var lastRegisteredPlacement: RepeatedEvent<RegisteredPlacement>?

    private let clock: any WallClock
    /// Where event ids come from: the SDK's random source (a seeded one from `configure` on).
    private var ids: any RandomSource
    private let host: HostPorts
    /// The session's store, whose placement log records every event.
    private var store: Store?

    init(clock: any WallClock, ids: any RandomSource, host: HostPorts) {
        self.clock = clock
        self.ids = ids
        self.host = host
    }

    /// SuperwallKit's verbose events, kept off the network when the config says
    /// `disable_verbose_events` (`TrackingLogic.isNotDisabledVerbosePlacement`).
    static let verboseEventNames: Set<String> = [
        "paywallPresentationRequest", "paywallResponseLoad_start", "paywallResponseLoad_complete", "shimmerView_start",
        "shimmerView_complete", "paywallProductsLoad_start", "paywallProductsLoad_complete", "paywallWebviewLoad_start",
        "paywallWebviewLoad_complete",
    ]

    /// A session begins: its store, its ids, how much it tracks, and its queue, which sends
    /// to `collector` (Superwall's, for the `http` source) or else to the data directory's
    /// `events.jsonl`, and flushes every `options.eventFlushInterval` on the offload executor.
    func begin(
        store: Store,
        directory: String,
        ids: any RandomSource,
        collector: HTTPConfigSource?,
        request: @escaping @Sendable () async -> ConfigRequest,
        options: Superwall.ConfigureOptions
    ) {
        let sink: any EventSink
        if let collector {
            sink = CollectorEventSink(source: collector, request: request)
        } else {
            sink = JSONLinesEventSink(
                path: URL(fileURLWithPath: directory).appendingPathComponent(DataDirectory.eventsFile).path
            )
        }
        let queue = EventQueue(store: store, sink: sink, bound: options.eventQueueBound)
        self.store = store
        self.ids = ids
        self.queue = queue
        self.behavior = options.eventTrackingBehavior
        // What a config says is said again by the session's first one.
        (suppressesVerboseEvents, sendsExpressionParams) = (false, false)
        let (interval, clock) = (options.eventFlushInterval, clock)
        // Detached and weak, as every task that reaches the queue: none may keep the session's
        // store open after the session is gone.
        Task.detached(executorPreference: OffloadExecutor.shared) { [weak queue] in
            await queue?.start(every: interval, on: clock)
        }
    }

    /// Sends the queued events now, waiting at most `limit`; what is not sent by then stays
    /// queued on disk, and the log says how many.
    func flush(within limit: Duration, isolation: isolated (any Actor)? = #isolation) async {
        guard let queue else { return }
        // The wait is bounded, not the flush: the queue's own task goes on, and a batch still
        // on its way stays on disk for next time.
        let finished = await withDeadline(limit, fallback: false) { [weak queue] in
            await queue?.flush()
            return true
        }
        if !finished {
            let waiting = await queue.waitingCount
            Superwall.logger.warning(
                "the event flush did not finish within \(limit): \(waiting) events wait on disk and go out in the next session"
            )
        }
    }

    /// The session ended: nothing more is recorded in its store. Answers its queue, to stop.
    func end() -> EventQueue? {
        store = nil
        defer { queue = nil }
        return queue
    }

    /// The app changed which events go out (SuperwallKit's `eventTrackingBehavior` setter), from
    /// now on; anything but `all` drops what waits too (the user took back their consent to it,
    /// and SuperwallKit empties its queue). Answers whether the behaviour changed.
    func changeBehavior(to new: EventTrackingBehavior, isolation: isolated (any Actor)? = #isolation) async -> Bool {
        guard new != behavior else { return false }
        behavior = new
        if new != .all { await queue?.dropWaiting() }
        return true
    }

    /// A config is in use: it may keep verbose events off the network, which a sandbox build
    /// (or test mode) sends all the same.
    func configDidChange(_ config: Config, isSandbox: Bool) {
        suppressesVerboseEvents = config.featureFlags.disableVerboseEvents && !isSandbox
        sendsExpressionParams = config.featureFlags.enableExpressionParams
    }

    func startAppSession(_ id: String) {
        appSessionId = id
    }

    func appWentToBackground(at time: Date) {
        lastAppClose = time
    }

    /// Whether the app, active again at `time`, was away for longer than `timeout` (seconds):
    /// SuperwallKit then starts a new app session. An activation without a background before
    /// it starts none.
    func appCameBack(at time: Date, startsAnAppSessionAfter timeout: Double) -> Bool {
        guard let closedAt = lastAppClose else { return false }
        lastAppClose = nil
        return time.timeIntervalSince(closedAt) > timeout
    }

    // MARK: Making and recording

    /// An event of this app session, now. The parameters are consumed: the caller's dictionary
    /// gains `app_session_id` in place rather than being copied whole (twenty-odd entries for a
    /// `trigger_fire`). `stamped`: they carry this app session's id already (a repeat's).
    func makeEvent(
        _ name: String,
        _ superwallParameters: consuming [String: JSON] = [:],
        custom: [String: JSON] = [:],
        isSuperwallEvent: Bool = true,
        subject: EventSubject = .none,
        stamped: Bool = false
    ) -> TrackedEvent {
        var parameters = superwallParameters
        // Only when it differs: parameters shared with a memo are then not copied.
        if !stamped, !appSessionId.isEmpty, parameters["app_session_id"]?.stringValue != appSessionId {
            parameters["app_session_id"] = .string(appSessionId)
        }
        var event = TrackedEvent(
            id: ids.uniqueId(),
            name: name,
            isSuperwallEvent: isSuperwallEvent,
            superwallParameters: parameters,
            customParameters: custom,
            createdAt: clock.now()
        )
        event.subject = subject
        return event
    }

    /// Records `event` in the placement log, queues it to go out when it does (`sends`), and
    /// hands a Superwall event (not the app's own placements) to the delegate.
    /// `audienceJSON` is the event's `audienceParametersJSON`, when the caller has it already.
    func record(_ event: TrackedEvent, audienceJSON: [UInt8]? = nil) {
        let queued = sends(event)
        store?.logPlacement(
            event.name,
            at: event.createdAt,
            paramsJSON: audienceJSON ?? event.audienceParametersJSON,
            eventId: event.id,
            queued: queued
        )
        if queued { queue?.noteArrival() }
        if event.isSuperwallEvent { host.delegate?.handleSuperwallEvent(event) }
    }

    /// Whether an event goes out, by the tracking behaviour and verbose suppression; every
    /// event still reaches the placement log and the delegate.
    func sends(_ event: TrackedEvent) -> Bool {
        switch behavior {
        case .none: return false
        case .superwallOnly
        where !event.isSuperwallEvent || event.name == "trigger_fire" || event.name == "user_attributes": return false
        default: break
        }
        return !(suppressesVerboseEvents && Self.verboseEventNames.contains(event.name))
    }

    // MARK: Repeating

    /// Records a placement the app registered, as it was recorded last when nothing that
    /// decides its params changed, and answers it with its params as the pipeline reads them.
    func recordRegistered(_ key: RegisteredPlacement) -> (event: TrackedEvent, audienceParameters: [String: JSON]) {
        let (event, initialMemo) = recordRepeating(
            key.name,
            key: key,
            remembered: lastRegisteredPlacement,
            custom: key.params,
            isSuperwallEvent: false
        ) { ["is_feature_gatable": .bool(key.hasFeature)] }
        var memo = initialMemo
        let audienceParameters = memo.audienceParameters ?? event.audienceParameters
        memo.audienceParameters = audienceParameters
        lastRegisteredPlacement = memo
        return (event, audienceParameters)
    }

    /// Records a skip's `trigger_fire`, as it was recorded last for the same audiences.
    func recordUnmatchedTriggerFire(
        _ key: UnmatchedPlacement,
        _ parameters: () -> [String: JSON]
    ) -> TrackedEvent {
        let (event, memo) = recordRepeating(
            "trigger_fire",
            key: key,
            remembered: lastUnmatchedTriggerFire,
            parameters
        )
        lastUnmatchedTriggerFire = memo
        return event
    }

    /// Records a `paywallPresentationRequest`, as it was recorded last for the same request.
    func recordPresentationRequest(_ key: [String], _ parameters: () -> [String: JSON]) -> TrackedEvent {
        let (event, memo) = recordRepeating(
            "paywallPresentationRequest",
            key: key,
            remembered: lastPresentationRequest,
            parameters
        )
        lastPresentationRequest = memo
        return event
    }

    /// Records `name` with the params `remembered` has when it matches `key` and the app
    /// session; else with `parameters()`. Answers the event and what to remember for the next
    /// time. `custom` is part of `key`.
    private func recordRepeating<Key: Equatable & Sendable>(
        _ name: String,
        key: Key,
        remembered: RepeatedEvent<Key>?,
        custom: [String: JSON] = [:],
        isSuperwallEvent: Bool = true,
        _ parameters: () -> [String: JSON]
    ) -> (event: TrackedEvent, memo: RepeatedEvent<Key>) {
        if let remembered, remembered.matches(key, appSessionId: appSessionId) {
            var event = makeEvent(
                name,
                remembered.parameters,
                custom: custom,
                isSuperwallEvent: isSuperwallEvent,
                stamped: true
            )
            event.sharedParameters = remembered.shared
            record(event, audienceJSON: remembered.audienceJSON)
            return (event, remembered)
        }
        var event = makeEvent(name, parameters(), custom: custom, isSuperwallEvent: isSuperwallEvent)
        let audienceJSON = event.audienceParametersJSON
        let memo = RepeatedEvent(key: key, parameters: event.superwallParameters, audienceJSON: audienceJSON)
        event.sharedParameters = memo.shared
        record(event, audienceJSON: audienceJSON)
        return (event, memo)
    }
}
