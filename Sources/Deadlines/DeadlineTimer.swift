import Dispatch
import Synchronization

/// A one-shot timer whose handler runs on a Dispatch queue of its own.
///
/// A deadline written as `Task.sleep` needs a free thread of Swift's cooperative pool twice:
/// to fire, and to run what follows. When every thread of the pool is busy (a long rule
/// evaluation, another suite's work, a host's own tasks in the same process), such a deadline
/// fires when a thread frees up, seconds late. This timer fires on Dispatch's threads, which
/// are not the pool's; what its handler resumes runs on the waiting task's own executor.
public final class DeadlineTimer: Sendable {
    /// Dispatch's sources are thread-safe but not declared `Sendable`; the lock says so.
    private let source: Mutex<any DispatchSourceTimer>

    /// Calls `handler` once `delay` has passed, unless `cancel()` comes first.
    public init(after delay: Duration, _ handler: @escaping @Sendable () -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: Self.queue)
        timer.setEventHandler(handler: handler)
        timer.schedule(deadline: .now() + Self.dispatchInterval(delay))
        timer.resume()
        source = Mutex(timer)
    }

    /// Stops the timer; a handler already running finishes.
    public func cancel() {
        source.withLock { $0.cancel() }
    }

    deinit {
        cancel()
    }

    /// Suspends the caller for `delay`, throwing `CancellationError` at once if its task is
    /// cancelled. Resuming needs no thread of the cooperative pool.
    public static func sleep(for delay: Duration) async throws(CancellationError) {
        let wake = Wake()
        let timer = DeadlineTimer(after: delay) { wake.resume(.success(())) }
        defer { timer.cancel() }
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                wake.park(continuation)
                if Task.isCancelled { wake.resume(.failure(CancellationError())) }
            }
        } onCancel: {
            wake.resume(.failure(CancellationError()))
        }
        try outcome.get()
    }

    /// Timers fire here: a serial queue of their own, so a handler never waits for the
    /// global concurrent queue either.
    private static let queue = DispatchQueue(label: "deadlines.timers")

    static func dispatchInterval(_ delay: Duration) -> DispatchTimeInterval {
        let nanoseconds = delay / .nanoseconds(1)
        return .nanoseconds(Int(min(max(nanoseconds, 0), Double(Int.max / 2))))
    }
}

/// A continuation resumed by whichever comes first, the timer or a cancellation; the other
/// is ignored, and so is one that comes before the continuation is parked (it is kept and
/// delivered at `park`).
private final class Wake: Sendable {
    private enum State {
        case empty
        case parked(CheckedContinuation<Result<Void, CancellationError>, Never>)
        case early(Result<Void, CancellationError>)
        case done
    }

    private let state = Mutex(State.empty)

    func park(_ continuation: CheckedContinuation<Result<Void, CancellationError>, Never>) {
        let early = state.withLock { state -> Result<Void, CancellationError>? in
            guard case .early(let outcome) = state else {
                state = .parked(continuation)
                return nil
            }
            state = .done
            return outcome
        }
        if let early { continuation.resume(returning: early) }
    }

    func resume(_ outcome: Result<Void, CancellationError>) {
        let parked = state.withLock { state -> CheckedContinuation<Result<Void, CancellationError>, Never>? in
            switch state {
            case .empty:
                state = .early(outcome)
                return nil
            case .parked(let continuation):
                state = .done
                return continuation
            case .early, .done:
                return nil
            }
        }
        parked?.resume(returning: outcome)
    }
}
