import Dispatch

/// Runs tasks on Dispatch threads, outside Swift's cooperative pool.
///
/// Two kinds of work go here: heavy work that must not hold the thread reading the input
/// (adopting a config of thousands of campaigns, an expensive rule), and what a deadline
/// resumes when the waiting task has no executor of its own. Each job is queued on a serial
/// queue of its own, and Dispatch gives such queues a new thread when its threads are busy:
/// a deadline's work starts at once even while every thread of the cooperative pool, and
/// every other job here, is busy computing. Jobs are few (a request's hops, not its steps),
/// so a queue per job costs little.
public final class OffloadExecutor: TaskExecutor {
    public static let shared = OffloadExecutor()

    private init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        take(UnownedJob(job))
    }

    /// Runs a job another executor had queued and hands on (one that stopped running jobs).
    public func take(_ job: UnownedJob) {
        DispatchQueue(label: "deadlines.offload").async {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
