import Foundation
import Synchronization
import Testing

@testable import SuperwallCore

/// `StoppableClock`: the system's time until stopped, then only what advances give it.
@Suite struct StoppableClockTests {
    @Test func aStoppedClockStandsStillAndMovesByExactlyWhatItIsAdvanced() async throws {
        let clock = StoppableClock()
        #expect(clock.advance(by: 10) == nil, "a running clock is not advanced")
        clock.stop()
        let stopped = clock.now()
        try await Task.sleep(for: .milliseconds(20))
        #expect(clock.now() == stopped)
        #expect(clock.advance(by: 3601) == stopped.addingTimeInterval(3601))
        #expect(clock.now() == stopped.addingTimeInterval(3601))
    }

    @Test func aSleepOnAStoppedClockEndsWhenAnAdvanceReachesItsDeadline() async throws {
        let clock = StoppableClock()
        clock.stop()
        let woke = Mutex(false)
        let sleeper = Task {
            try await clock.sleep(for: .seconds(60))
            woke.withLock { $0 = true }
        }
        try await eventually { clock.parkedSleeps == 1 }
        clock.advance(by: 59)
        #expect(clock.parkedSleeps == 1, "an advance short of the deadline ends no sleep")
        #expect(!woke.withLock { $0 })
        clock.advance(by: 1)
        try await sleeper.value
        #expect(woke.withLock { $0 })
    }

    @Test func aSleepOnAStoppedClockEndsOnCancellation() async throws {
        let clock = StoppableClock()
        clock.stop()
        let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }
}
