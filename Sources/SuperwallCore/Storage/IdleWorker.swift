import CScheduling
import Foundation
import Synchronization

/// A thread of its own that does deferred work when nothing else wants the CPU (Linux's
/// `SCHED_IDLE`): the store's transfer of journaled rows into SQLite, which would otherwise
/// take turns on the CPU with the calls it was deferred from, a WAL checkpoint at a time.
///
/// `signal()` asks for a run; the run starts `delay` later, so that a burst of signals is one
/// run, and calls `work` until it says nothing is left (each call a bounded step, so that a
/// call waiting on what a step holds waits little). A CPU that is never idle (a sustained
/// load) would starve the work, so `promote()` puts the thread at normal priority until its
/// run ends, with the shortest time slice the kernel grants: at the default slice (1.4 ms on
/// these two-CPU machines) a call that woke behind it waited that long. `stop()` ends the
/// thread after its current step.
final class IdleWorker: Sendable {
    private let wakeUp = DispatchSemaphore(value: 0)
    private let stopped = Atomic(false)
    private let promoted = Atomic(false)
    /// The thread's kernel id, once it runs.
    private let thread = Atomic<Int32>(0)
    /// The least the kernel's EEVDF scheduler takes as a thread's slice.
    private static let promotedSlice: UInt64 = 100_000

    init(name: String, delay: DispatchTimeInterval, work: @escaping @Sendable () -> Bool) {
        // The thread keeps the worker until `stop()`.
        let worker = Thread { [self] in
            thread.store(scheduling_current_thread(), ordering: .releasing)
            setPolicy(idleSchedulingPolicy, of: pthread_self())
            while true {
                wakeUp.wait()
                guard !isStopped else { return }
                _ = wakeUp.wait(timeout: .now() + delay)
                while !isStopped, work() {}
                guard !isStopped else { return }
                if promoted.exchange(false, ordering: .acquiringAndReleasing) {
                    setPolicy(idleSchedulingPolicy, of: pthread_self())
                }
            }
        }
        worker.name = name
        worker.start()
    }

    private var isStopped: Bool { stopped.load(ordering: .acquiring) }

    /// The thread's kernel id; 0 until it runs.
    var threadID: Int32 { thread.load(ordering: .acquiring) }

    func signal() {
        wakeUp.signal()
    }

    /// Runs the thread at normal priority until its current run ends.
    func promote() {
        let id = threadID
        guard id != 0, !promoted.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = scheduling_set_normal_with_slice(id, Self.promotedSlice)
    }

    func stop() {
        stopped.store(true, ordering: .releasing)
        wakeUp.signal()
    }
}

private func setPolicy(_ policy: Int32, of thread: pthread_t) {
    var parameters = sched_param(sched_priority: 0)
    _ = pthread_setschedparam(thread, policy, &parameters)
}

/// `SCHED_IDLE`, which glibc's headers declare only under `_GNU_SOURCE`.
private let idleSchedulingPolicy: Int32 = 5
