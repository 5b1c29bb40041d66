import Executors
import Testing

@testable import SuperwallCore

/// A wait parked in an actor on a lane, as `Superwall`'s waits for its config are.
@Suite struct ParkedContinuationsTests {
    @Test func aWakeUpThatComesWhileTheWaitIsEnteringItIsNotLost() async {
        let gate = Gate()
        let woke = OneShot<Bool>()
        // Started on the offload executor, as the SDK's background tasks are: its job on the
        // lane runs with no task executor, so entering the wait suspends it behind the opening.
        let waiter = Task(executorPreference: OffloadExecutor.shared) {
            await gate.waitUntilOpen()
            woke.resolve(true)
        }
        let timer = DeadlineTimer(after: .seconds(20)) { woke.resolve(false) }
        #expect(await woke.value, "the wait was not woken")
        timer.cancel()
        waiter.cancel()
    }

    @Test func aWaitWhoseStateHoldsAlreadyDoesNotPark() async {
        let gate = Gate()
        await gate.openAll()
        await gate.waitUntilOpen()
        #expect(await gate.parked == 0)
    }
}

private actor Gate {
    private nonisolated let lane = SerialLane()
    nonisolated var unownedExecutor: UnownedSerialExecutor { lane.asUnownedSerialExecutor() }
    private let waiters = ParkedContinuations<Void>()
    private var open = false
    private(set) var parked = 0

    /// Waits until open, opening meanwhile: the opening is queued on the lane before the wait
    /// is entered.
    func waitUntilOpen() async {
        guard !open else { return }
        Task { self.openAll() }
        await waiters.wait {
            if open { return false }
            parked += 1
            return true
        }
    }

    func openAll() {
        open = true
        waiters.resumeAll(())
    }
}
