import NIOCore
import NIOPosix

/// A one-shot timer whose handler runs on a thread of its own (an event loop of SwiftNIO's).
///
/// A deadline written as `Task.sleep` needs a free thread of Swift's cooperative pool twice:
/// to fire, and to run what follows. When every thread of the pool is busy (a long rule
/// evaluation, another suite's work, a host's own tasks in the same process), such a deadline
/// fires when a thread frees up, seconds late; a Dispatch timer's handler waited as long on
/// Linux. This timer fires on a thread that runs nothing else; what its handler resumes runs
/// on the waiting task's own executor.
public final class DeadlineTimer: Sendable {
    private let scheduled: Scheduled<Void>

    /// Calls `handler` once `delay` has passed, unless `cancel()` comes first.
    public init(after delay: Duration, _ handler: @escaping @Sendable () -> Void) {
        let nanoseconds = min(max(delay / .nanoseconds(1), 0), Double(Int64.max / 2))
        scheduled = Self.loop.value.scheduleTask(in: .nanoseconds(Int64(nanoseconds))) { handler() }
    }

    /// Stops the timer; a handler already running finishes.
    public func cancel() {
        scheduled.cancel()
    }

    deinit {
        cancel()
    }

    /// Suspends the caller for `delay`, throwing `CancellationError` at once if its task is
    /// cancelled. Resuming needs no thread of the cooperative pool.
    public static func sleep(for delay: Duration) async throws(CancellationError) {
        let wake = OneShot<Result<Void, CancellationError>>()
        let timer = DeadlineTimer(after: delay) { wake.resolve(.success(())) }
        defer { timer.cancel() }
        try await withTaskCancellationHandler {
            await wake.value
        } onCancel: {
            wake.resolve(.failure(CancellationError()))
        }.get()
    }

    /// Timers fire here: a loop of their own, which lives as long as the process (a forked
    /// child makes its own).
    private static let loop = PerProcess { _ in MultiThreadedEventLoopGroup(numberOfThreads: 1).next() }
}
