import CScheduling
import DequeModule
import Executors
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the requests' work on the thread that reads the input, between reads.
///
/// Requests start with this as their task executor preference, and the thread hosts the
/// SDK's actors' lanes (`SerialLane`), so an actor idle when a request calls it runs here too.
/// A request answered without waiting on anyone then never leaves the reader thread: no other
/// thread is woken and no context switch happens between reading a request and writing its
/// answer, which on a loaded core is most of a round trip. Work that waits (on the client, on
/// a timer) frees the thread; whatever resumes it from another thread wakes the reader's
/// `poll` through a pipe.
///
/// Once the reader stops, jobs go to the `OffloadExecutor` instead, so requests still running
/// can finish while the connection drains, even while the cooperative pool is busy.
final class ReaderExecutor: TaskExecutor, LaneHost, @unchecked Sendable {
    private enum Work {
        case job(UnownedJob)
        case closure(@Sendable () -> Void)
    }

    private struct State {
        var jobs = Deque<Work>()
        /// The reader is in `poll` and must be woken for a new job.
        var sleeping = false
        var forwarding = false
    }

    private let state = Mutex(State())
    /// A pipe whose read end the reader polls beside its input; a byte written wakes it.
    private let wakeReader: Int32
    private let wakeWriter: Int32

    init?() {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        (wakeReader, wakeWriter) = (ends[0], ends[1])
    }

    deinit {
        close(wakeReader)
        close(wakeWriter)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        queue(.job(UnownedJob(job)))
    }

    func run(_ work: @escaping @Sendable () -> Void) {
        queue(.closure(work))
    }

    private func queue(_ work: Work) {
        enum Next { case forward, wake, nothing }
        let next = state.withLock { state -> Next in
            if state.forwarding { return .forward }
            state.jobs.append(work)
            return state.sleeping ? .wake : .nothing
        }
        switch next {
        case .forward: forward(work)
        case .wake: signal()
        case .nothing: break
        }
    }

    private func forward(_ work: Work) {
        switch work {
        case .job(let job): OffloadExecutor.shared.take(job)
        case .closure(let closure): OffloadExecutor.shared.submit(closure)
        }
    }

    /// Runs the jobs queued so far and those they queue, until none is left.
    func runPending() {
        while let work = state.withLock({ $0.jobs.popFirst() }) {
            switch work {
            case .job(let job): job.runSynchronously(on: asUnownedTaskExecutor())
            case .closure(let closure): closure()
            }
        }
    }

    /// Waits until `input` is readable (or closed), or `hasInput` holds, running jobs that
    /// arrive meanwhile; `whenIdle` runs each time there is nothing left to run, before the
    /// thread sleeps. `hasInput` is asked last before each sleep: input that arrives after it
    /// answered must `wake()` the reader. Without a descriptor, only `wake()` ends a sleep.
    /// Returns early once `shouldStop` holds (checked whenever `wake()` is called).
    ///
    /// With `spin`, before it sleeps the thread watches for `inputArrived` or a job for that
    /// long, yielding the core meanwhile: in-process, where input arrives without a system
    /// call, a client that answers at once then costs no wake-up.
    func waitForInput(
        _ input: Int32?,
        whenIdle: () -> Void,
        shouldStop: () -> Bool,
        hasInput: () -> Bool,
        spin: (duration: Duration, inputArrived: () -> Bool)? = nil
    ) {
        while !shouldStop() {
            runPending()
            let idle = state.withLock { state -> Bool in
                guard state.jobs.isEmpty else { return false }
                state.sleeping = true
                return true
            }
            guard idle else { continue }
            whenIdle()
            if let spin, let seen = watch(for: spin.duration, until: spin.inputArrived) {
                state.withLock { $0.sleeping = false }
                if seen == .input { return }
                continue
            }
            if hasInput() {
                state.withLock { $0.sleeping = false }
                return
            }
            var descriptors = [
                pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0),
                pollfd(fd: input ?? -1, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, 2, -1)
            state.withLock { $0.sleeping = false }
            if descriptors[0].revents != 0 { drainWakeups() }
            if ready < 0, errno != EINTR { return }
            if descriptors[1].revents != 0 { return }
        }
    }

    private enum Arrival { case input, job }

    /// What arrived first within `duration`, input or a job; nil for neither. Input is looked
    /// for between `pause`s, which see a sender's write within tens of nanoseconds; every
    /// `relaxedChecks` of them the thread also looks for jobs and yields its core, so a client
    /// on the same core gets to run.
    private func watch(for duration: Duration, until inputArrived: () -> Bool) -> Arrival? {
        let deadline = ContinuousClock.now + duration
        repeat {
            for _ in 0..<Self.relaxedChecks {
                if inputArrived() { return .input }
                scheduling_relax()
            }
            if state.withLock({ !$0.jobs.isEmpty }) { return .job }
            sched_yield()
        } while ContinuousClock.now < deadline
        return nil
    }

    /// About a microsecond of `pause`s between two yields.
    private static let relaxedChecks = 32

    /// From now on jobs run on the `OffloadExecutor`; those queued are sent there.
    func stop() {
        let queued = state.withLock { state -> Deque<Work> in
            state.forwarding = true
            defer { state.jobs.removeAll() }
            return state.jobs
        }
        for work in queued { forward(work) }
    }

    /// Wakes the reader from its `poll`.
    func wake() { signal() }

    private func signal() {
        var byte: UInt8 = 1
        _ = write(wakeWriter, &byte, 1)
    }

    private func drainWakeups() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(wakeReader, &bytes, bytes.count) == bytes.count {}
    }
}
