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
            Store.logger.error("could not commit tracked events: \(error)")
        }
    }

    /// Records an event in the placement log and hands a Superwall event (not the app's own
    /// placements) to the delegate. The events that may present a paywall are then offered
    /// to the implicit triggers.
    @discardableResult
    func track(
        _ name: String,
        _ superwallParameters: consuming [String: JSON] = [:],
        custom: [String: JSON] = [:],
        isSuperwallEvent: Bool = true,
        subject: EventSubject = .none
    ) -> TrackedEvent {
        record(
            makeEvent(name, superwallParameters, custom: custom, isSuperwallEvent: isSuperwallEvent, subject: subject)
        )
    }

    /// The parameters are consumed: the caller's dictionary gains `app_session_id` in place
    /// rather than being copied whole (twenty-odd entries for a `trigger_fire`).
    /// `stamped`: the parameters carry this app session's id already (a repeat's).
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
        if !stamped, !tracking.appSessionId.isEmpty, parameters["app_session_id"]?.stringValue != tracking.appSessionId
        {
            parameters["app_session_id"] = .string(tracking.appSessionId)
        }
        var event = TrackedEvent(
            id: random.uniqueId(),
            name: name,
            isSuperwallEvent: isSuperwallEvent,
            superwallParameters: parameters,
            customParameters: custom,
            createdAt: clock.now()
        )
        event.subject = subject
        return event
    }

    /// `offeringImplicitTrigger` is false for events whose trigger the caller offers itself
    /// (custom placements, named by the paywall rather than by kind).
    /// Tracks `name` with the params `remembered` has when it matches `key` and the app
    /// session; else with `parameters()`. Answers the event and what to remember for the next
    /// time. `custom` and `isSuperwallEvent` are as for `track`; `custom` is part of `key`.
    @discardableResult
    func trackRepeating<Key: Equatable & Sendable>(
        _ name: String,
        key: Key,
        remembered: RepeatedEvent<Key>?,
        custom: [String: JSON] = [:],
        isSuperwallEvent: Bool = true,
        _ parameters: () -> [String: JSON]
    ) -> (event: TrackedEvent, memo: RepeatedEvent<Key>) {
        if let remembered = tracking.repeats(remembered, for: key) {
            var event = makeEvent(
                name,
                remembered.parameters,
                custom: custom,
                isSuperwallEvent: isSuperwallEvent,
                stamped: true
            )
            event.sharedParameters = remembered.shared
            return (record(event, audienceJSON: remembered.audienceJSON), remembered)
        }
        var event = makeEvent(name, parameters(), custom: custom, isSuperwallEvent: isSuperwallEvent)
        let audienceJSON = event.audienceParametersJSON
        let memo = RepeatedEvent(key: key, parameters: event.superwallParameters, audienceJSON: audienceJSON)
        event.sharedParameters = memo.shared
        record(event, audienceJSON: audienceJSON)
        return (event, memo)
    }

    /// `audienceJSON` is the event's `audienceParametersJSON`, when the caller has it already.
    @discardableResult
    func record(
        _ event: TrackedEvent,
        offeringImplicitTrigger: Bool = true,
        audienceJSON: [UInt8]? = nil
    ) -> TrackedEvent {
        let queued = tracking.sends(event)
        store?.logPlacement(
            event.name,
            at: event.createdAt,
            paramsJSON: audienceJSON ?? event.audienceParametersJSON,
            eventId: event.id,
            queued: queued
        )
        if queued { tracking.queue?.noteArrival() }
        if event.name == "paywall_open" { device.templateInputsChanged() }
        if event.isSuperwallEvent {
            host.delegate?.handleSuperwallEvent(event)
            if offeringImplicitTrigger, let trigger = ImplicitTrigger(eventName: event.name) {
                offerImplicitTrigger(trigger, event: event)
            }
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

    func persisting<Result>(_ body: () throws -> Result) throws(SuperwallError) -> Result {
        do {
            return try body()
        } catch {
            throw .storage(from: error)
        }
    }
}
