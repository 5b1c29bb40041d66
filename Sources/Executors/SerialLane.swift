import DequeModule
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A thread that runs an actor's jobs itself when it is the one asking for them: the thread
/// that reads a connection's input, whose requests are then answered without a thread hop.
public protocol LaneHost: TaskExecutor {
    /// Runs `work` on the host's thread, after what it already has queued.
    func run(_ work: @escaping @Sendable () -> Void)
}

/// An actor's serial executor that never waits for Swift's cooperative pool.
///
/// A default actor with work left after a job ends schedules itself on the cooperative pool.
/// With every thread of the pool busy (a host's own tasks, a test runner, a burst of work)
/// the actor's next job waited for one, and with it every request that needed the actor,
/// however short its deadline. A lane runs its jobs one at a time on the thread that hosts
/// lanes (see `hostingLanes`) when the first of them is asked for from there, and otherwise
/// on the `OffloadExecutor`.
public final class SerialLane: SerialExecutor {
    private struct State {
        var jobs = Deque<UnownedJob>()
        /// A drain is queued or running; jobs that arrive meanwhile are run by it.
        var draining = false
        /// The thread that last asked for a job from its own lanes: the tasks calling this
        /// actor prefer it as their task executor.
        var host: (any LaneHost)?
    }

    private let state = Mutex(State())

    public init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let hostHere = Self.hostOfThisThread
        let startsDrain = state.withLock { state -> Bool in
            if let hostHere { state.host = hostHere }
            state.jobs.append(job)
            guard !state.draining else { return false }
            state.draining = true
            return true
        }
        guard startsDrain else { return }
        if let hostHere {
            hostHere.run { self.drain() }
        } else {
            OffloadExecutor.shared.submit { self.drain() }
        }
    }

    /// Runs the jobs as the host's task executor, which the tasks calling the actor prefer,
    /// on whichever thread drains them. Run with none, a job of such a task was switched away
    /// at its next call inside the actor, its continuation queued behind every job that came
    /// after it: two pipelined calls then ran out of order (a later override reached the actor
    /// before an earlier decision read it), and each such call cost an enqueue.
    private func drain() {
        while let (job, host) = state.withLock({ state -> (UnownedJob, (any LaneHost)?)? in
            if let job = state.jobs.popFirst() { return (job, state.host) }
            state.draining = false
            return nil
        }) {
            if let host {
                job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: host.asUnownedTaskExecutor())
            } else {
                job.runSynchronously(on: asUnownedSerialExecutor())
            }
        }
    }

    /// Runs `body` with this thread hosting lanes: a lane idle when this thread asks for one of
    /// its jobs runs it on `host`.
    public static func hostingLanes<Result>(on host: some LaneHost, _ body: () throws -> Result) rethrows -> Result {
        let hosting = Hosting(host)
        let previous = pthread_getspecific(hostKey)
        pthread_setspecific(hostKey, Unmanaged.passUnretained(hosting).toOpaque())
        defer { pthread_setspecific(hostKey, previous) }
        return try withExtendedLifetime(hosting) { try body() }
    }

    private static var hostOfThisThread: (any LaneHost)? {
        guard let pointer = pthread_getspecific(hostKey) else { return nil }
        return Unmanaged<Hosting>.fromOpaque(pointer).takeUnretainedValue().host
    }

    /// The host a thread-specific pointer names (a class, so no dynamic cast reads it back).
    private final class Hosting {
        let host: any LaneHost
        init(_ host: any LaneHost) { self.host = host }
    }

    private static let hostKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
}
