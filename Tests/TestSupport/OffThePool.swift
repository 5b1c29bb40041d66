import Executors
import Foundation

/// Runs `work` on a new thread and returns its result, without holding a thread of the
/// cooperative pool meanwhile.
public func onAThreadOfItsOwn<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: work()) }
        thread.stackSize = 8 << 20
        thread.start()
    }
}

extension DispatchSemaphore {
    /// `wait(timeout:)` on a thread of its own: a test that blocks a thread of the
    /// cooperative pool holds back every other test's work, and the bridges they run in-process.
    public func waitOffThePool(timeout: Duration = expectationTimeout) async -> DispatchTimeoutResult {
        await onAThreadOfItsOwn { [self] in wait(timeout: .now() + .nanoseconds(Int(timeout / .nanoseconds(1)))) }
    }
}

/// Runs `body` on the `OffloadExecutor` and returns its result with the time it took.
///
/// A test that asserts a bound measures it so. Waiting on the cooperative pool, the test's own
/// resumption would queue behind every other suite's jobs, and the bound would measure the
/// machine's load rather than the bridge.
public func measuredOffThePool<Result: Sendable>(
    _ body: () async throws -> Result
) async rethrows -> (result: Result, elapsed: Duration) {
    try await withTaskExecutorPreference(OffloadExecutor.shared) {
        let started = ContinuousClock.now
        let result = try await body()
        return (result, ContinuousClock.now - started)
    }
}

extension Result where Failure == any Error {
    /// `Result(catching:)` for async work.
    public init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
