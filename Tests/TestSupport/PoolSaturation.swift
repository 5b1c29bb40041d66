import Deadlines
import Foundation
import Synchronization

/// Every thread of Swift's cooperative pool held by a job that blocks until `release()`, to
/// show what still works when the pool is busy.
///
/// Start it from a thread that is not the pool's (`onAThreadOfItsOwn`): the thread that
/// started it must go on running. `probeRan` tells afterwards whether the pool ran anything
/// else meanwhile, which proves the pool really was full.
public final class PoolSaturation: Sendable {
    private let release = DispatchSemaphore(value: 0)
    private let started = Atomic<Int>(0)
    private let probe = Atomic<Bool>(false)
    private let blockers: Int

    /// Queues more blocking jobs than the pool has threads and waits (at most `timeout`) until
    /// as many have started as there are processors, then queues the probe behind them.
    public init(timeout: Duration = .seconds(20)) {
        let threads = ProcessInfo.processInfo.activeProcessorCount
        blockers = threads * 4 + 4
        for _ in 0..<blockers {
            Task.detached { [self] in
                started.add(1, ordering: .relaxed)
                release.wait()
            }
        }
        let deadline = ContinuousClock.now + timeout
        while started.load(ordering: .relaxed) < threads, ContinuousClock.now < deadline { usleep(1_000) }
        Task.detached { [self] in probe.store(true, ordering: .relaxed) }
    }

    /// Whether a job queued after the pool filled up has run.
    public var probeRan: Bool { probe.load(ordering: .relaxed) }

    /// Lets every blocking job end.
    public func finish() {
        for _ in 0..<blockers { release.signal() }
    }
}

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
public func measuredOffThePool<Result: Sendable>(_ body: () async throws -> Result) async rethrows -> (result: Result, elapsed: Duration) {
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
