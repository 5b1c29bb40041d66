import NIOCore
import NIOPosix

/// Runs tasks on threads of its own (a `NIOThreadPool`), outside Swift's cooperative pool.
///
/// Two kinds of work go here: heavy work that must not hold the thread reading the input
/// (adopting a config of thousands of campaigns, an expensive rule), and the bridge's own
/// background tasks and what a deadline resumes. None of it then waits for the cooperative
/// pool, which a long computation, other work in the process (a host that embeds the bridge,
/// a test runner) or a burst of tasks can fill. Not Dispatch's worker threads either: on
/// Linux a serial queue's work waited for them as long as the pool was full.
public final class OffloadExecutor: TaskExecutor {
    public static let shared = OffloadExecutor(threads: max(4, System.coreCount))

    private let pool: NIOThreadPool

    private init(threads: Int) {
        pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        take(UnownedJob(job))
    }

    /// Runs a job that another executor had queued and hands on, having stopped running jobs.
    public func take(_ job: UnownedJob) {
        pool.submit { _ in job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
