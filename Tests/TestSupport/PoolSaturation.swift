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
