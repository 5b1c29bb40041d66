import Foundation
@testable import SuperwallCore
import Testing

/// The scheduling policy and, where the kernel reports it, the time slice of one of this
/// process's threads.
private func scheduling(of thread: Int32) -> (policy: Int32, slice: Int?) {
    let policy = sched_getscheduler(thread)
    let lines = (try? String(contentsOfFile: "/proc/self/task/\(thread)/sched", encoding: .utf8))?.split(separator: "\n") ?? []
    let slice = lines.first { $0.hasPrefix("se.slice") }.flatMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") }
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

    @Test func aPromotedRunGoesAtNormalPriorityWithAShortSliceAndTheNextIdlesAgain() async throws {
        let running = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let worker = IdleWorker(name: "test", delay: .milliseconds(1)) {
            running.signal()
            release.wait()
            return false
        }
        defer { worker.stop() }
        worker.signal()
        running.wait()
        let thread = worker.threadID
        #expect(thread != 0)
        #expect(scheduling(of: thread).policy == Self.idlePolicy)

        worker.promote()
        let promoted = scheduling(of: thread)
        #expect(promoted.policy == SCHED_OTHER)
        if kernelTakesCustomSlices, let slice = promoted.slice {
            #expect(slice == 100_000)
        }

        release.signal()
        let deadline = ContinuousClock.now + .seconds(5)
        while scheduling(of: thread).policy != Self.idlePolicy, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(scheduling(of: thread).policy == Self.idlePolicy, "back to idle priority once the run ends")
    }
}
