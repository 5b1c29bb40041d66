import DequeModule
import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The output of a bridge opened without a callback: each message the bridge sends waits here
/// until the host takes it with `superwall_bridge_receive`, on a thread of the host's own.
/// For hosts that cannot be entered from another thread (LuaJIT, Dart) or pay to be (a GIL).
///
/// Like a pipe, it holds a bounded amount: past `maximumQueuedBytes` the bridge's thread that
/// delivers waits for the host to receive, as it would for a slow callback. `discard()` (at
/// close) drops what is queued and lets that thread go.
final class OutputMailbox: @unchecked Sendable {
    enum Received {
        /// The next message, with a NUL after it (not counted); valid until the same thread's
        /// next receive, or until the mailbox goes (the bridge's close).
        case message(UnsafeBufferPointer<CChar>)
        case timedOut
        /// The bridge has finished and everything it sent was received, or was discarded.
        case ended
    }

    /// A message's bytes with a NUL after them, owned by the mailbox until freed.
    private struct Message: @unchecked Sendable {
        let bytes: UnsafeMutableBufferPointer<CChar>
        var length: Int { bytes.count - 1 }
        func free() { bytes.deallocate() }
    }

    private struct State: ~Copyable {
        var messages = Deque<Message>()
        var queuedBytes = 0
        /// The message each receiving thread received last, freed at that thread's next
        /// receive: a message another thread received stays valid while its thread reads it
        /// (one freed at any thread's next receive was read after it was freed).
        var lent: [UInt: Message] = [:]
        var ended = false
        var discarding = false
        var deliverersWaiting = 0
    }

    let maximumQueuedBytes: Int
    private let state = Mutex(State())
    /// Messages queued, and whether the bridge has ended: read without the lock by a receiver
    /// watching for them.
    private let queued = Atomic<Int>(0)
    private let finished = Atomic<Bool>(false)
    /// A receiver is about to sleep, or sleeping: with `queued`, the same handshake as the
    /// inbox's (the receiver sets this, then reads `queued`; a deliverer adds to `queued`,
    /// then clears this), so a message never arrives unseen.
    private let receiverSleeping = Atomic<Bool>(false)
    private let arrivals = DispatchSemaphore(value: 0)
    private let room = DispatchSemaphore(value: 0)
    /// Set while a receive runs: a second receiver at once is refused (`busy`), so that the
    /// messages go out in order, one receive at a time.
    private let receiving = Atomic<Bool>(false)

    init(maximumQueuedBytes: Int) {
        self.maximumQueuedBytes = maximumQueuedBytes
    }

    deinit {
        state.withLock { state in
            for message in state.lent.values { message.free() }
            for message in state.messages { message.free() }
        }
    }

    /// Queues a copy of `message` (NUL-terminated). Waits while the queue is over its bound,
    /// until the host receives or `discard()` is called.
    func deliver(_ message: UnsafeBufferPointer<UInt8>) {
        let copy = Message(bytes: .allocate(capacity: message.count + 1))
        message.withMemoryRebound(to: CChar.self) { _ = copy.bytes.initialize(fromContentsOf: $0) }
        copy.bytes[message.count] = 0
        while true {
            enum Step { case drop, wait, queued }
            let step = state.withLock { state -> Step in
                if state.discarding || state.ended { return .drop }
                if state.queuedBytes > 0, state.queuedBytes + message.count > maximumQueuedBytes {
                    state.deliverersWaiting += 1
                    return .wait
                }
                state.queuedBytes += message.count
                state.messages.append(copy)
                queued.add(1, ordering: .sequentiallyConsistent)
                return .queued
            }
            switch step {
            case .drop:
                copy.free()
                return
            case .wait:
                room.wait()
            case .queued:
                if receiverSleeping.exchange(false, ordering: .sequentiallyConsistent) { arrivals.signal() }
                return
            }
        }
    }

    /// The bridge has finished: a receiver gets what is queued, then `ended`.
    func end() {
        state.withLock { $0.ended = true }
        finished.store(true, ordering: .sequentiallyConsistent)
        arrivals.signal()
    }

    /// Drops what is queued and everything delivered from now on, and lets a waiting
    /// deliverer go: the host has stopped receiving (it is closing the bridge).
    func discard() {
        let (dropped, waiting) = state.withLock { state -> ([Message], Int) in
            state.discarding = true
            let dropped = Array(state.messages)
            state.messages.removeAll()
            queued.subtract(dropped.count, ordering: .sequentiallyConsistent)
            state.queuedBytes = 0
            defer { state.deliverersWaiting = 0 }
            return (dropped, state.deliverersWaiting)
        }
        for message in dropped { message.free() }
        for _ in 0..<waiting { room.signal() }
        finished.store(true, ordering: .sequentiallyConsistent)
        arrivals.signal()
    }

    /// The calling thread, as the key of the message it was lent.
    private static var callingThread: UInt { UInt(pthread_self()) }

    /// Whether another receive is running on this mailbox (one thread receives at a time).
    struct Busy: Error {}

    /// The next message, waiting up to `timeout`: it sleeps until a message, the end, or the
    /// deadline.
    func receive(timeout: Duration) throws(Busy) -> Received {
        guard receiving.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            throw Busy()
        }
        defer { receiving.store(false, ordering: .releasing) }
        let receiver = Self.callingThread
        state.withLock { state in state.lent.removeValue(forKey: receiver)?.free() }
        let deadline = ContinuousClock.now + timeout
        if let received = take() { return received }
        while true {
            receiverSleeping.store(true, ordering: .sequentiallyConsistent)
            if let received = take() {
                receiverSleeping.store(false, ordering: .sequentiallyConsistent)
                return received
            }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else {
                receiverSleeping.store(false, ordering: .sequentiallyConsistent)
                return .timedOut
            }
            let nanoseconds =
                remaining.components.seconds * 1_000_000_000 + remaining.components.attoseconds / 1_000_000_000
            _ = arrivals.wait(timeout: .now() + .nanoseconds(Int(min(nanoseconds, Int64(Int32.max)))))
        }
    }

    /// The next message, lent to the calling thread until its next receive; `ended` once the bridge has finished
    /// and nothing is queued; nil when there is nothing yet.
    private func take() -> Received? {
        let receiver = Self.callingThread
        let (next, waiting) = state.withLock { state -> (Received?, Int) in
            guard let message = state.messages.popFirst() else {
                return (state.ended || state.discarding ? .ended : nil, 0)
            }
            queued.subtract(1, ordering: .sequentiallyConsistent)
            state.queuedBytes -= message.length
            state.lent[receiver] = message
            let waiting = state.deliverersWaiting
            state.deliverersWaiting = 0
            return (.message(UnsafeBufferPointer(rebasing: message.bytes[..<message.length])), waiting)
        }
        for _ in 0..<waiting { room.signal() }
        return next
    }
}
