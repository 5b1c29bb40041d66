import Executors
import Foundation
import Synchronization

/// A wall clock that follows the system's until it is stopped, and from then moves only when
/// advanced: integration tests use it (`configure.options.clock: "manual"`,
/// `debug/advanceClock`) to reach an occurrence window's end or an entitlement's expiry
/// without waiting for it.
///
/// Sleeps on a stopped clock end when an advance reaches their deadline, or on cancellation.
public final class StoppableClock: WallClock, Sendable {
    private struct Sleeper {
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var stoppedAt: Date?
        var sleepers: [UInt64: Sleeper] = [:]
        /// Sleeps cancelled before they were parked.
        var cancelled: Set<UInt64> = []
        var nextSleeper: UInt64 = 0
    }

    private let state = Mutex(State())

    public init() {}

    public func now() -> Date {
        state.withLock { $0.stoppedAt } ?? Date()
    }

    public var isStopped: Bool { state.withLock { $0.stoppedAt != nil } }

    /// How many sleeps wait for an advance now: a test advances once the sleep it means is parked.
    var parkedSleeps: Int { state.withLock { $0.sleepers.count } }

    /// Stops the clock at the present time; a stopped clock stays where it is.
    public func stop() {
        state.withLock { state in
            if state.stoppedAt == nil { state.stoppedAt = Date() }
        }
    }

    /// Moves a stopped clock on by `seconds` and ends the sleeps that reach their deadline.
    /// Answers the new time, or nil when the clock is not stopped.
    @discardableResult
    public func advance(by seconds: TimeInterval) -> Date? {
        let (now, due) = state.withLock { state -> (Date?, [CheckedContinuation<Void, any Error>]) in
            guard let stoppedAt = state.stoppedAt else { return (nil, []) }
            let now = stoppedAt.addingTimeInterval(seconds)
            state.stoppedAt = now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for key in due.keys { state.sleepers[key] = nil }
            return (now, due.values.map(\.continuation))
        }
        for continuation in due { continuation.resume() }
        return now
    }

    public func sleep(for duration: Duration) async throws {
        guard let stoppedAt = state.withLock({ $0.stoppedAt }) else {
            try await DeadlineTimer.sleep(for: duration)
            return
        }
        let deadline = stoppedAt.addingTimeInterval(
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        )
        let ticket = state.withLock { state in
            state.nextSleeper += 1
            return state.nextSleeper
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if state.cancelled.remove(ticket) != nil { return .failure(CancellationError()) }
                    if let now = state.stoppedAt, deadline <= now { return .success(()) }
                    state.sleepers[ticket] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let parked = state.withLock { state -> Sleeper? in
                guard let sleeper = state.sleepers.removeValue(forKey: ticket) else {
                    state.cancelled.insert(ticket)
                    return nil
                }
                return sleeper
            }
            parked?.continuation.resume(throwing: CancellationError())
        }
    }
}
