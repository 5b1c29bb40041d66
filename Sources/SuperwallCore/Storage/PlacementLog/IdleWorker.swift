import CScheduling
import Foundation
import Synchronization

/// A thread of its own that does deferred work when nothing else wants the CPU: the store's
/// transfer of journaled rows into SQLite, which would otherwise take turns on the CPU with
/// the calls it was deferred from, a WAL checkpoint at a time.
///
/// `signal()` asks for a run; the run starts `delay` later, so that a burst of signals is one
/// run, and calls `work` until it says nothing is left, each call a bounded step. The thread
/// waits for the CPU at idle priority (Linux's `SCHED_IDLE`), so a step starts only when the
/// CPU is free; the step itself runs at normal priority, because it holds the database: a
/// call that waits on it must not wait on a thread that runs only when nothing else does. The
/// step asks for a long time slice (`stepSlice`). Between steps the thread goes back to idle
/// priority, so that it competes for a busy CPU only when asked to: `hurry()` (the store's
/// WAL hook, when the WAL runs far past its mark) runs it at normal priority until a step ends
/// with no new request. `stop()` ends the thread after its current step.
///
/// Before each step that was not hurried it asks `isDue`, still at idle priority. A step that
/// is not due is not taken: the run ends (`isDue` may signal for a later one), and the next
/// run waits twice the last one's delay, up to `longestPostponement` times `delay`, until a
/// step is taken. Under a steady load the worker otherwise woke every delay to find the same,
/// and each wakeup took the CPU from a call.
final class IdleWorker: Sendable {
    private let wakeUp = DispatchSemaphore(value: 0)
    private let stopped = Atomic(false)
    /// Set by `hurry()`: the next run starts without the delay and stays at normal priority.
    private let urgent = Atomic(false)
    /// The thread's kernel id, once it runs.
    private let thread = Atomic<Int32>(0)
    /// The slice a step asks of the kernel's EEVDF scheduler, longer than a call's default:
    /// at a wakeup, a thread with a shorter slice may preempt one with a longer one, so the
    /// calls preempt a step rather than the step the calls, and when the step has its turn it
    /// runs on, delaying one call rather than many by a slice each (Benchmarks/README, B9).
    private static let stepSlice: UInt64 = 3_000_000
    /// The most a run's start is put off, as a multiple of the delay (a power of two).
    static let longestPostponement = 64

    init(
        name: String,
        delay: DispatchTimeInterval,
        isDue: @escaping @Sendable () -> Bool = { true },
        work: @escaping @Sendable () -> Bool
    ) {
        // The thread keeps the worker until `stop()`.
        let worker = Thread { [self] in
            let id = scheduling_current_thread()
            thread.store(id, ordering: .releasing)
            waitAtIdlePriority()
            var postponement = 1
            while true {
                wakeUp.wait()
                // Signals that came while it ran or waited for the CPU ask for this same run;
                // left counted, they would cut the delay short. A hurry is kept in `urgent`.
                while wakeUp.wait(timeout: .now()) == .success {}
                guard !isStopped else { return }
                if !urgent.load(ordering: .acquiring) {
                    _ = wakeUp.wait(timeout: .now() + delay.scaled(by: postponement))
                }
                var atNormalPriority = false
                while !isStopped {
                    guard atNormalPriority || urgent.load(ordering: .acquiring) || isDue() else {
                        postponement = min(postponement * 2, Self.longestPostponement)
                        break
                    }
                    postponement = 1
                    urgent.store(false, ordering: .releasing)
                    if !atNormalPriority { _ = scheduling_set_normal_with_slice(id, Self.stepSlice) }
                    let more = work()
                    atNormalPriority = urgent.load(ordering: .acquiring)
                    if atNormalPriority { continue }
                    waitAtIdlePriority()
                    guard more else { break }
                }
                guard !isStopped else { return }
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

    /// Asks for a run now, at normal priority from the start: work that cannot wait for the
    /// CPU to be idle.
    func hurry() {
        guard !urgent.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let id = threadID
        if id != 0 { _ = scheduling_set_normal_with_slice(id, Self.stepSlice) }
        wakeUp.signal()
    }

    func stop() {
        stopped.store(true, ordering: .releasing)
        wakeUp.signal()
    }
}

/// Puts the calling thread at `SCHED_IDLE` (which glibc's headers declare only under
/// `_GNU_SOURCE`) and gives up the CPU: the kernel does not reschedule a running thread whose
/// policy alone changed, so without the yield it would go on to its next step at once.
private func waitAtIdlePriority() {
    var parameters = sched_param(sched_priority: 0)
    _ = pthread_setschedparam(pthread_self(), 5, &parameters)
    sched_yield()
}

extension DispatchTimeInterval {
    /// The interval `factor` times as long; `never` stays `never`.
    fileprivate func scaled(by factor: Int) -> DispatchTimeInterval {
        switch self {
        case .seconds(let count): .seconds(count * factor)
        case .milliseconds(let count): .milliseconds(count * factor)
        case .microseconds(let count): .microseconds(count * factor)
        case .nanoseconds(let count): .nanoseconds(count * factor)
        case .never: .never
        @unknown default: self
        }
    }
}
