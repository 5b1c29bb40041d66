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

    /// Tracks an event: the tracker makes and records it (see `EventTracker.record`), and the
    /// events that may present a paywall are then offered to the implicit triggers.
    @discardableResult
    func track(
        _ name: String,
        _ superwallParameters: consuming [String: JSON] = [:],
        custom: [String: JSON] = [:],
        isSuperwallEvent: Bool = true,
        subject: EventSubject = .none
    ) -> TrackedEvent {
        record(
            tracker.makeEvent(
                name,
                superwallParameters,
                custom: custom,
                isSuperwallEvent: isSuperwallEvent,
                subject: subject
            )
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

    func persisting<Result>(_ body: () throws -> Result) throws(SuperwallError) -> Result {
        do {
            return try body()
        } catch {
            throw .storage(from: error)
        }
    }
}
