import DequeModule
import Dispatch
import Synchronization

/// The input of a connection served in-process: whole messages handed over by the host
/// (`send`), read by the connection's reader as it would read a pipe.
///
/// Like a pipe, it holds a bounded amount: past `maximumQueuedBytes`, a sender on a thread of
/// the host's waits until the reader has taken what is queued. Threads of the bridge's own
/// (the reader, and the thread that delivers output, where the host's output callback runs)
/// never wait, so a callback that sends cannot deadlock.
public final class MessageInbox: Sendable {
    public enum Outcome: Sendable, Equatable {
        case taken
        /// The connection has ended (after `exit`, or once the input was closed).
        case ended
    }

    private struct State: ~Copyable {
        var messages = Deque<[UInt8]>()
        var queuedBytes = 0
        /// `endInput()` was called: the reader sees end of input once the queue is empty.
        var inputEnded = false
        /// The connection stopped reading; sends are refused from now on.
        var closed = false
        var sendersWaiting = 0
    }

    let maximumQueuedBytes: Int
    private let state = Mutex(State())
    /// Messages queued, and whether the input has ended: read without the lock by a reader
    /// deciding whether to sleep, so that a sender and the reader seldom meet on the lock.
    private let queued = Atomic<Int>(0)
    private let ended = Atomic<Bool>(false)
    /// The reader is about to wait, or waiting, and must be woken for a message. With
    /// `queued`, a handshake in sequentially consistent order: the reader sets this and then
    /// reads `queued`; a sender adds to `queued` and then clears this. One of them sees the other.
    private let readerSleeping = Atomic<Bool>(false)
    /// Wakes the reader; set by the connection when it starts reading.
    private let wakeReader = Mutex<(@Sendable () -> Void)?>(nil)
    /// Signalled when the reader takes messages, for senders waiting for room.
    private let room = DispatchSemaphore(value: 0)
    /// For a reader without a wake-up pipe: signalled on each message and at end of input.
    private let arrivals = DispatchSemaphore(value: 0)

    public init(maximumQueuedBytes: Int = 64 * 1024 * 1024) {
        self.maximumQueuedBytes = maximumQueuedBytes
    }

    /// Queues one whole message for the reader. Waits while the queue is over its bound,
    /// unless called from one of the bridge's own threads.
    public func send(_ message: consuming [UInt8]) -> Outcome {
        let mayWait = !BridgeThread.isCurrent
        var message = message
        while true {
            enum Step { case refuse, wait, queued }
            let step = state.withLock { state -> Step in
                if state.closed || state.inputEnded { return .refuse }
                if mayWait, state.queuedBytes > 0, state.queuedBytes + message.count > maximumQueuedBytes {
                    state.sendersWaiting += 1
                    return .wait
                }
                state.queuedBytes += message.count
                state.messages.append(message)
                message = []
                queued.add(1, ordering: .sequentiallyConsistent)
                return .queued
            }
            switch step {
            case .refuse:
                return .ended
            case .wait:
                room.wait()
            case .queued:
                if readerSleeping.exchange(false, ordering: .sequentiallyConsistent) { wakeTheReader() }
                return .taken
            }
        }
    }

    /// Ends the input, as end of input on a pipe does: the reader takes what is queued, then
    /// finishes. Later sends are refused.
    public func endInput() {
        state.withLock { $0.inputEnded = true }
        ended.store(true, ordering: .sequentiallyConsistent)
        wakeTheReader()
    }

    /// Whether there is something to read: a message, or the end of input.
    var hasInput: Bool {
        queued.load(ordering: .sequentiallyConsistent) > 0 || ended.load(ordering: .sequentiallyConsistent)
    }

    func readerWakes(with wake: @escaping @Sendable () -> Void) {
        wakeReader.withLock { $0 = wake }
    }

    private func wakeTheReader() {
        arrivals.signal()
        wakeReader.withLock { $0 }?()
    }

    /// Everything queued, and whether the input has ended behind it.
    func takeAll() -> (messages: Deque<[UInt8]>, ended: Bool) {
        let (taken, ended, waiting) = state.withLock { state -> (Deque<[UInt8]>, Bool, Int) in
            var taken = Deque<[UInt8]>()
            swap(&taken, &state.messages)
            state.queuedBytes = 0
            queued.subtract(taken.count, ordering: .sequentiallyConsistent)
            let waiting = state.sendersWaiting
            state.sendersWaiting = 0
            return (taken, state.inputEnded, waiting)
        }
        for _ in 0..<waiting { room.signal() }
        return (taken, ended)
    }

    /// Called by the reader before it sleeps: false when there is input to read already.
    func prepareToSleep() -> Bool {
        readerSleeping.store(true, ordering: .sequentiallyConsistent)
        guard !hasInput else {
            readerSleeping.store(false, ordering: .sequentiallyConsistent)
            return false
        }
        return true
    }

    func readerWoke() {
        readerSleeping.store(false, ordering: .sequentiallyConsistent)
    }

    /// Waits for a message or the end of input, for a reader that cannot poll.
    func waitForArrival() {
        while prepareToSleep() { arrivals.wait() }
        readerWoke()
    }

    /// The connection has stopped reading: what is queued is dropped, and senders, waiting
    /// or not, are told the bridge has ended.
    func close() {
        let waiting = state.withLock { state -> Int in
            state.closed = true
            queued.subtract(state.messages.count, ordering: .sequentiallyConsistent)
            state.messages.removeAll()
            state.queuedBytes = 0
            defer { state.sendersWaiting = 0 }
            return state.sendersWaiting
        }
        for _ in 0..<waiting { room.signal() }
    }
}
