import DequeModule
import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Hands each outgoing message, whole and in order, to a host's callback, on threads the
/// connection owns: the reader's, for what the reader itself produced (an answer then costs
/// no thread hop), and a delivery thread of its own for what other threads produce.
///
/// A slow callback is back-pressure, as a client slow to read a pipe is: on the reader it
/// holds up reading, and past `maximumQueuedBytes` waiting for the delivery thread the reader
/// stops reading until half of them are out.
final class CallbackOutput: MessageOutput, @unchecked Sendable {
    /// Receives a message's bytes; a NUL follows them in memory, not counted.
    typealias Deliver = @Sendable (UnsafeBufferPointer<UInt8>) -> Void

    let maximumQueuedBytes: Int
    private let deliver: Deliver
    private let state = Mutex(State())
    private let work = DispatchSemaphore(value: 0)
    private let room = OutputRoom()
    /// The reader's thread, once it has started: it delivers what it produces itself.
    private let reader = Mutex<pthread_t?>(nil)
    /// Set in `init` only.
    private var deliveryThread: pthread_t?
    /// Signalled by the delivery thread as it ends.
    private let deliveryEnded = DispatchSemaphore(value: 0)
    /// Calls of the callback that have returned.
    private let returned = Atomic<Int>(0)

    var deliveries: Int { returned.load(ordering: .relaxed) }
    var progressStep: Int { 1 }

    private struct State: ~Copyable {
        var pending = Deque<[UInt8]>()
        /// Someone, the reader or the delivery thread, is delivering: only it may until done.
        var delivering = false
        var corked = false
        var held: [[UInt8]] = []
        /// The bytes of `pending` and `held`, and of a message being delivered, against the bound.
        var backlog = OutputBacklog()
        /// `finish()` was called: nothing more reaches the callback.
        var finished = false
    }

    init(maximumQueuedBytes: Int, deliver: @escaping Deliver) {
        self.maximumQueuedBytes = maximumQueuedBytes
        self.deliver = deliver
        startDeliveryThread()
    }

    var isFramed: Bool { false }
    var isBroken: Bool { false }

    /// The calling thread reads the input: what it enqueues it delivers itself.
    func readerStarted() {
        reader.withLock { $0 = pthread_self() }
    }

    private var onReader: Bool {
        guard let reader = reader.withLock({ $0 }) else { return false }
        return pthread_equal(reader, pthread_self()) != 0
    }

    func enqueue(_ message: consuming [UInt8]) {
        var message = message
        message.append(0)
        let size = message.count
        // Without a delivery thread (it could not start), every thread delivers its own.
        let deliversHere = onReader || deliveryThread == nil
        enum Turn { case held, queued, signal, deliverHere, dropped }
        let turn = state.withLock { state -> Turn in
            if state.finished { return .dropped }
            state.backlog.queuedBytes += size
            if state.corked {
                state.held.append(message)
                return .held
            }
            if state.delivering {
                state.pending.append(message)
                return .queued
            }
            state.delivering = true
            if deliversHere { return .deliverHere }
            state.pending.append(message)
            return .signal
        }
        switch turn {
        case .held, .queued, .dropped: return
        case .signal: work.signal()
        case .deliverHere:
            send(message)
            delivered(size)
            deliverPending()
        }
    }

    func cork() {
        state.withLock { $0.corked = true }
    }

    func uncork() {
        let onReader = onReader
        let (held, deliverHere, signal) = state.withLock { state -> ([[UInt8]], Bool, Bool) in
            state.corked = false
            guard !state.held.isEmpty else { return ([], false, false) }
            var held: [[UInt8]] = []
            swap(&held, &state.held)
            if state.delivering || !onReader {
                state.pending.append(contentsOf: held)
                let start = !state.delivering
                state.delivering = true
                return ([], false, start)
            }
            state.delivering = true
            return (held, true, false)
        }
        if signal { work.signal() }
        guard deliverHere else { return }
        for message in held {
            send(message)
            delivered(message.count)
        }
        deliverPending()
    }

    /// A message delivered outside the queue is out of the backlog; a reader waiting for room
    /// may go on.
    private func delivered(_ size: Int) {
        if state.withLock({ $0.backlog.sent(size, bound: maximumQueuedBytes) }) { room.signal() }
    }

    private func send(_ message: [UInt8]) {
        // Messages a deliverer took before `finish()` are dropped too.
        guard !state.withLock({ $0.finished }) else { return }
        message.withUnsafeBufferPointer { bytes in
            deliver(UnsafeBufferPointer(rebasing: bytes[..<(bytes.count - 1)]))
        }
        returned.add(1, ordering: .relaxed)
    }

    /// Delivers what others queued meanwhile, then gives up the turn.
    private func deliverPending() {
        while let message = nextPending() { send(message) }
    }

    private func nextPending() -> [UInt8]? {
        let (next, wakeReader) = state.withLock { state -> ([UInt8]?, Bool) in
            guard !state.finished, let message = state.pending.popFirst() else {
                state.delivering = false
                return (nil, false)
            }
            return (message, state.backlog.sent(message.count, bound: maximumQueuedBytes))
        }
        if wakeReader { room.signal() }
        return next
    }

    func waitForRoom(orStopWhen shouldStop: () -> Bool) {
        room.wait(
            whileOver: { state.withLock { $0.backlog.isOver(maximumQueuedBytes) } },
            orStopWhen: shouldStop
        )
    }

    func wakeReader() {
        room.signal()
    }

    /// A call of the callback that has not returned within this long is stuck.
    static let stuckCallbackLimit: Duration = .seconds(10)

    /// Waits `timeout` or `stuckCallbackLimit`, whichever is longer: a call that has not
    /// returned within that is stuck. The connection waits again while calls return.
    @discardableResult
    func flush(timeout: Duration) -> Bool {
        OutputRoom.wait(
            until: { !state.withLock({ $0.delivering || !$0.held.isEmpty }) },
            within: max(timeout, Self.stuckCallbackLimit)
        )
    }

    /// Ends the delivery thread, after `flush`: from now on nothing reaches the callback, which
    /// the host may free once its bridge is closed. A callback that has not returned by then
    /// (past the flush's deadline) is waited for a second more, then left to its thread.
    func finish() {
        let first = state.withLock { state in
            defer { state.finished = true }
            return !state.finished
        }
        guard first else { return }
        work.signal()
        guard let deliveryThread else { return }
        if deliveryEnded.wait(timeout: .now() + .seconds(1)) == .success {
            pthread_join(deliveryThread, nil)
        } else {
            pthread_detach(deliveryThread)
        }
    }

    private func startDeliveryThread() {
        let box = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(
            &thread,
            nil,
            { argument in
                let output = Unmanaged<CallbackOutput>.fromOpaque(argument!).takeRetainedValue()
                BridgeThread.marking(for: output) { output.deliveryLoop() }
                output.deliveryEnded.signal()
                return nil
            },
            box
        )
        if started == 0 {
            deliveryThread = thread
        } else {
            Unmanaged<CallbackOutput>.fromOpaque(box).release()
        }
    }

    /// Each signal but `finish()`'s hands this thread the turn, with messages pending.
    private func deliveryLoop() {
        while true {
            work.wait()
            if state.withLock({ $0.finished }) { return }
            deliverPending()
        }
    }
}
