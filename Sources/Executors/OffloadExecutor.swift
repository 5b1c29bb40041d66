import CForkGuard
import DequeModule

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs tasks on threads of its own, outside Swift's cooperative pool.
///
/// Two kinds of work go here: heavy work that must not hold the thread reading the input
/// (adopting a config of thousands of campaigns, an expensive rule), and the bridge's own
/// background tasks and what a deadline resumes. None of it then waits for the cooperative
/// pool, which a long computation, other work in the process (a host that embeds the bridge,
/// a test runner) or a burst of tasks can fill. Not Dispatch's worker threads either: on
/// Linux a serial queue's work waited for them as long as the pool was full.
///
/// Threads start when work finds none idle, up to the width, and then stay: a process that
/// never offloads starts none. (SwiftNIO's thread pool starts all of its threads, and loads
/// its types' metadata, when it is made: a third of the bridge's startup.)
public final class OffloadExecutor: TaskExecutor, @unchecked Sendable {
    /// Wide, because what runs here may block (SQLite's syncs, a data directory's lock) and the
    /// work behind it must not wait; threads start only when work finds none idle.
    public static let shared = OffloadExecutor(width: 64)

    private let width: Int
    /// Guards the fields below; `workArrived` is signalled with it held.
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let workArrived = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var queued = Deque<@Sendable () -> Void>()
    private var threads = 0
    /// Threads waiting for work, counted by themselves: from before their wait to after it.
    private var waiting = 0
    /// Wakeups signalled and not yet taken (a condition variable may also wake spuriously).
    /// A thread that starts to wait while one is pending takes it, whichever thread it was
    /// signalled for; each taken wakeup is one more look at the queue.
    private var wakeups = 0

    private init(width: Int) {
        self.width = width
        pthread_mutex_init(lock, nil)
        pthread_cond_init(workArrived, nil)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        take(UnownedJob(job))
    }

    /// Runs a job that another executor had queued and hands on, having stopped running jobs.
    public func take(_ job: UnownedJob) {
        submit { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Runs `work` on one of the executor's threads.
    public func submit(_ work: @escaping @Sendable () -> Void) {
        Self.forkHandlers
        pthread_mutex_lock(lock)
        queued.append(work)
        var startsThread = false
        // A waiting thread that no pending wakeup covers takes the work. Counting the idle at
        // submission instead could lose work: a thread that began to wait took a wakeup
        // signalled for another, which then waited uncounted, and once every thread was
        // started, work queued while all of them waited was never run.
        if waiting > wakeups {
            wakeups += 1
            pthread_cond_signal(workArrived)
        } else if threads < width {
            threads += 1
            startsThread = true
        }
        pthread_mutex_unlock(lock)
        if startsThread { startThread() }
    }

    /// Across a `fork()` the lock is held, so the child finds the state whole; the child then
    /// forgets its parent's threads, which it does not have, and the work queued for them (the
    /// parent's bridges', which the child cannot use). Without it a child's first offloaded
    /// work was handed to a thread that did not exist, and its `configure` never answered.
    private static let forkHandlers: Void = {
        pthread_atfork(
            { OffloadExecutor.shared.lockForFork() },
            { OffloadExecutor.shared.unlockAfterFork() },
            { OffloadExecutor.shared.forgetTheParentsThreads() }
        )
    }()

    private func lockForFork() { pthread_mutex_lock(lock) }

    private func unlockAfterFork() { pthread_mutex_unlock(lock) }

    private func forgetTheParentsThreads() {
        queued.removeAll()
        threads = 0
        waiting = 0
        wakeups = 0
        pthread_cond_init(workArrived, nil)
        pthread_mutex_unlock(lock)
    }

    private func startThread() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(
            &thread,
            nil,
            { context in
                let executor = Unmanaged<OffloadExecutor>.fromOpaque(context!).takeRetainedValue()
                executor.serve()
            },
            context
        )
        if started == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<OffloadExecutor>.fromOpaque(context).release()
            pthread_mutex_lock(lock)
            threads -= 1
            pthread_mutex_unlock(lock)
        }
    }

    /// A thread's life: the next queued work, or a wait for some.
    private func serve() -> Never {
        pthread_mutex_lock(lock)
        while true {
            guard let work = queued.popFirst() else {
                waiting += 1
                while wakeups == 0 { pthread_cond_wait(workArrived, lock) }
                wakeups -= 1
                waiting -= 1
                continue
            }
            pthread_mutex_unlock(lock)
            work()
            pthread_mutex_lock(lock)
        }
    }
}
