import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The reader's side of an output queue's bound (back-pressure), for both outputs: the reader
/// waits while the queue is over its bound, and whoever takes from the queue signals once it
/// is down to half.
final class OutputRoom: Sendable {
    private let room = DispatchSemaphore(value: 0)

    /// Returns once `isOver` no longer holds (it marks the reader as waiting when it does), or
    /// `shouldStop` holds; both are checked at least every 100 ms.
    func wait(whileOver isOver: () -> Bool, orStopWhen shouldStop: () -> Bool) {
        while !shouldStop(), isOver() {
            _ = room.wait(timeout: .now() + .milliseconds(100))
        }
    }

    /// Wakes a waiting reader: there is room, or it should look whether to stop.
    func signal() {
        room.signal()
    }

    /// Waits until `done` holds or `timeout` passes (looking every half millisecond); whether
    /// it holds.
    static func wait(until done: () -> Bool, within timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !done() {
            guard ContinuousClock.now < deadline else { return false }
            usleep(500)
        }
        return true
    }
}

/// How much waits to go out, against an output's bound, and whether the reader waits for room.
struct OutputBacklog {
    var queuedBytes = 0
    private var readerWaiting = false

    /// Whether more than `bound` bytes wait; if so, the reader is now waiting for room.
    mutating func isOver(_ bound: Int) -> Bool {
        guard queuedBytes > bound else { return false }
        readerWaiting = true
        return true
    }

    /// `count` bytes went out; whether the waiting reader should now be woken (half the bound
    /// or less waits).
    mutating func sent(_ count: Int, bound: Int) -> Bool {
        queuedBytes -= count
        let wake = readerWaiting && queuedBytes <= bound / 2
        if wake { readerWaiting = false }
        return wake
    }
}
