import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SuperwallCore

/// The scheduling policy and, where the kernel reports it, the time slice of one of this
/// process's threads.
private func scheduling(of thread: Int32) -> (policy: Int32, slice: Int?) {
    let policy = sched_getscheduler(thread)
    let lines =
        (try? String(contentsOfFile: "/proc/self/task/\(thread)/sched", encoding: .utf8))?.split(separator: "\n") ?? []
    let slice = lines.first { $0.hasPrefix("se.slice") }.flatMap {
        Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "")
    }
    return (policy, slice)
}

/// Whether the kernel takes a thread's own slice (EEVDF's custom slices, Linux 6.12).
private var kernelTakesCustomSlices: Bool {
    var name = utsname()
    uname(&name)
    let release = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    let numbers = release.split(whereSeparator: { !$0.isNumber }).prefix(2).compactMap { Int($0) }
    return numbers.count == 2 && (numbers[0], numbers[1]) >= (6, 12)
}

@Suite struct IdleWorkerTests {
    private static let idlePolicy: Int32 = 5

    @Test func aStepRunsAtNormalPriorityWithALongSliceAndTheThreadWaitsAtIdlePriority() async throws {
        let running = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let worker = IdleWorker(name: "test", delay: .milliseconds(1)) {
            running.signal()
            release.wait()
            return false
        }
        defer { worker.stop() }
        let start = ContinuousClock.now
        while worker.threadID == 0, ContinuousClock.now < start + .seconds(5) {
            try await Task.sleep(for: .milliseconds(1))
        }
        let thread = worker.threadID
        #expect(thread != 0)
        #expect(scheduling(of: thread).policy == Self.idlePolicy, "waits for work at idle priority")

        worker.signal()
        #expect(await running.waitOffThePool() == .success)
        let stepping = scheduling(of: thread)
        #expect(stepping.policy == SCHED_OTHER, "a step holds the database, so it runs at normal priority")
        if kernelTakesCustomSlices, let slice = stepping.slice {
            #expect(slice == 3_000_000, "longer than a call's, so the calls preempt a step and not the step the calls")
        }

        release.signal()
        let deadline = ContinuousClock.now + .seconds(5)
        while scheduling(of: thread).policy != Self.idlePolicy, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(scheduling(of: thread).policy == Self.idlePolicy, "back to idle priority once the step ends")
    }

    @Test func everyStepOfARunRunsAtNormalPriority() async throws {
        let steps = Mutex<[Int32]>([])
        let done = DispatchSemaphore(value: 0)
        let worker = IdleWorker(name: "test", delay: .milliseconds(1)) {
            let count = steps.withLock { policies in
                policies.append(sched_getscheduler(0))
                return policies.count
            }
            if count == 3 { done.signal() }
            return count < 3
        }
        defer { worker.stop() }
        worker.signal()
        #expect(await done.waitOffThePool() == .success)
        #expect(steps.withLock { $0 } == [SCHED_OTHER, SCHED_OTHER, SCHED_OTHER])
    }

    /// Whether a step is due is asked at idle priority, so a busy CPU is not taken to find that
    /// nothing should run; a run whose step is not due takes none and waits for the next signal.
    @Test func aStepThatIsNotDueIsNotTakenAndIsAskedAtIdlePriority() async throws {
        let events = Mutex<[String]>([])
        let stepped = DispatchSemaphore(value: 0)
        let worker = IdleWorker(
            name: "test",
            delay: .milliseconds(1),
            isDue: {
                events.withLock { events in
                    let due = !events.isEmpty
                    events.append("due \(due) at \(sched_getscheduler(0))")
                    return due
                }
            },
            work: {
                events.withLock { $0.append("step at \(sched_getscheduler(0))") }
                stepped.signal()
                return false
            }
        )
        defer { worker.stop() }
        worker.signal()
        let deadline = ContinuousClock.now + expectationTimeout
        while events.withLock({ $0.isEmpty }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        worker.signal()
        #expect(await stepped.waitOffThePool() == .success)
        #expect(
            events.withLock { $0 } == [
                "due false at \(Self.idlePolicy)", "due true at \(Self.idlePolicy)", "step at \(SCHED_OTHER)",
            ]
        )
    }

    /// A timed wait never ends early unsignalled, so the lower bounds hold on a loaded machine.
    @Test func eachRunInARowWhoseStepIsNotDueWaitsTwiceAsLongBeforeItStarts() async throws {
        let asked = Mutex<[ContinuousClock.Instant]>([])
        let delay = 50
        let worker = IdleWorker(
            name: "test",
            delay: .milliseconds(delay),
            isDue: {
                asked.withLock { $0.append(.now) }
                return false
            },
            work: { false }
        )
        defer { worker.stop() }
        var signalled: [ContinuousClock.Instant] = []
        for run in 1...3 {
            signalled.append(.now)
            worker.signal()
            let deadline = ContinuousClock.now + expectationTimeout
            while asked.withLock({ $0.count }) < run, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        let times = asked.withLock { $0 }
        try #require(times.count == 3)
        for (run, factor) in [1, 2, 4].enumerated() {
            #expect(times[run] - signalled[run] >= .milliseconds(delay * factor))
        }
    }

    @Test func aHurriedRunStartsWithoutTheDelayAndAtNormalPriority() async throws {
        let ran = DispatchSemaphore(value: 0)
        let policy = Mutex<Int32>(-1)
        // A delay no test waits out: only `hurry()` starts this worker in time.
        let worker = IdleWorker(name: "test", delay: .seconds(600)) {
            policy.withLock { $0 = sched_getscheduler(0) }
            ran.signal()
            return false
        }
        defer { worker.stop() }
        let start = ContinuousClock.now
        while worker.threadID == 0, ContinuousClock.now < start + .seconds(5) {
            try await Task.sleep(for: .milliseconds(1))
        }

        worker.hurry()
        #expect(await ran.waitOffThePool() == .success)
        #expect(policy.withLock { $0 } == SCHED_OTHER)
    }
}
