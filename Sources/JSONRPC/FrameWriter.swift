import DequeModule
import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Owns the output descriptor: frames go out whole and in order, and no caller ever blocks.
///
/// When the output is a pipe, the writer opens its own non-blocking description of it
/// (through `/proc/self/fd`, so the flag never leaks to a description the parent shares). A
/// caller that finds the writer idle then writes its frame at once on its own thread, which
/// saves a thread hop per reply; whatever would block (the client is slow to read) is queued
/// and finished by a serial queue that waits for the pipe with `poll`. On other outputs
/// (a file, a terminal) every frame goes through the queue with ordinary blocking writes.
final class FrameWriter: Sendable {
    private let descriptor: Int32
    /// Past this many queued bytes the reader stops reading until half of them are out.
    let maximumQueuedBytes: Int
    /// Signalled when the queue falls to half of `maximumQueuedBytes` with the reader waiting.
    private let room = OutputRoom()
    /// Whether `descriptor` is a private non-blocking description, so callers may try writes.
    private let writesDirectly: Bool
    private let queue = DispatchQueue(label: "jsonrpc.writer")
    private let state = Mutex(State())
    /// Set once a write fails (the client closed its end); later frames are dropped.
    private let broken = Atomic<Bool>(false)
    /// Bytes written so far.
    private let written = Atomic<Int>(0)

    var deliveries: Int { written.load(ordering: .relaxed) }

    private struct State: ~Copyable {
        /// Frames (or the unwritten rest of one, first) waiting for the current writer.
        var pending = Deque<[UInt8]>()
        /// Someone, a caller or the queue, is writing: only it may write until it clears this.
        var writing = false
        /// Frames are held back and joined, to go out in one write at `uncork`.
        var corked = false
        var held: [UInt8] = []
        /// The bytes of `pending` and `held`, against the bound.
        var backlog = OutputBacklog()
    }

    private enum Turn { case queued, drainOnQueue, writeHere }

    init(descriptor: Int32, maximumQueuedBytes: Int = 64 * 1024 * 1024) {
        self.maximumQueuedBytes = maximumQueuedBytes
        if let nonBlocking = Self.privateNonBlockingPipe(descriptor) {
            self.descriptor = nonBlocking
            writesDirectly = true
        } else {
            self.descriptor = descriptor
            writesDirectly = false
        }
    }

    deinit {
        if writesDirectly { close(descriptor) }
    }

    var isBroken: Bool { broken.load(ordering: .relaxed) }

    /// The frame is consumed: held or queued as it is, not copied (a first held frame becomes
    /// the held bytes; later ones are appended to it).
    func enqueue(_ frame: consuming [UInt8]) {
        guard !isBroken else { return }
        var frame = frame
        let turn = state.withLock { state -> Turn? in
            if state.corked {
                state.backlog.queuedBytes += frame.count
                if state.held.isEmpty {
                    swap(&state.held, &frame)
                } else {
                    state.held.append(contentsOf: frame)
                }
                return nil
            }
            return admit(frame, &state)
        }
        if let turn { take(turn, frame) }
    }

    /// Holds frames back until `uncork`, which writes them together: the reader corks while
    /// it works through what it read, so an answer and the notifications before it wake the
    /// client once.
    func cork() {
        state.withLock { $0.corked = true }
    }

    func uncork() {
        var frame: [UInt8] = []
        let turn = state.withLock { state -> Turn? in
            state.corked = false
            guard !state.held.isEmpty else { return nil }
            swap(&frame, &state.held)
            state.backlog.queuedBytes -= frame.count
            return admit(frame, &state)
        }
        if let turn, !isBroken { take(turn, frame) }
    }

    /// Whose turn it is to write `frame`, queueing it when someone else is writing.
    private func admit(_ frame: [UInt8], _ state: inout State) -> Turn {
        if state.writing {
            state.pending.append(frame)
            state.backlog.queuedBytes += frame.count
            return .queued
        }
        state.writing = true
        guard writesDirectly else {
            state.pending.append(frame)
            state.backlog.queuedBytes += frame.count
            return .drainOnQueue
        }
        return .writeHere
    }

    private func take(_ turn: Turn, _ frame: [UInt8]) {
        switch turn {
        case .queued:
            return
        case .drainOnQueue:
            queue.async { [self] in drain() }
        case .writeHere:
            // The turn's holder also writes what others queued meanwhile, as long as the pipe
            // takes it: the queue is for a full pipe only. Its thread is Dispatch's, which on
            // Linux waits as long as Swift's cooperative pool is full, and an answer handed to
            // it then went out late.
            var frame = frame
            while true {
                let written = writeWithoutBlocking(frame[...])
                if written < frame.count {
                    state.withLock { state in
                        state.pending.prepend(Array(frame[written...]))
                        state.backlog.queuedBytes += frame.count - written
                    }
                    queue.async { [self] in drain() }
                    return
                }
                guard let queued = nextPending() else { return }
                if isBroken {
                    drain()
                    return
                }
                frame = queued
            }
        }
    }

    /// Writes everything pending, waiting for the pipe as needed, then gives up the turn.
    private func drain() {
        while let frame = nextPending() {
            if !isBroken { writeAll(frame) }
        }
    }

    /// Takes the next pending frame, waking a reader waiting for room once enough is out; with
    /// none left, gives up the turn.
    private func nextPending() -> [UInt8]? {
        let (next, wakeReader) = state.withLock { state -> ([UInt8]?, Bool) in
            guard let frame = state.pending.popFirst() else {
                state.writing = false
                return (nil, false)
            }
            return (frame, state.backlog.sent(frame.count, bound: maximumQueuedBytes))
        }
        if wakeReader { room.signal() }
        return next
    }

    /// Back-pressure: while more than `maximumQueuedBytes` wait to go out (the client is not
    /// reading), returns only once half of them are out, the output breaks, or `shouldStop`
    /// holds (checked at least every 100 ms). So memory stays bounded and nothing is dropped.
    func waitForRoom(orStopWhen shouldStop: () -> Bool) {
        room.wait(
            whileOver: { !isBroken && state.withLock { $0.backlog.isOver(maximumQueuedBytes) } },
            orStopWhen: shouldStop
        )
    }

    /// Wakes a reader waiting for room, so it can see that it should stop.
    func wakeReader() {
        room.signal()
    }

    /// Waits until every frame queued so far is written, or `timeout` passes (a client that
    /// has stopped reading must not hold the process open). Returns whether it drained.
    @discardableResult
    func flush(timeout: Duration) -> Bool {
        OutputRoom.wait(until: { !state.withLock({ $0.writing }) || isBroken }, within: timeout)
    }

    /// Writes as much as the pipe takes now; returns the count written.
    private func writeWithoutBlocking(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written >= 0 {
                    offset += written
                } else if errno == EINTR {
                    continue
                } else {
                    if errno != EAGAIN && errno != EWOULDBLOCK { broken.store(true, ordering: .relaxed) }
                    break
                }
            }
            written.add(offset, ordering: .relaxed)
            return offset
        }
    }

    private func writeAll(_ frame: [UInt8]) {
        var offset = 0
        while offset < frame.count && !isBroken {
            offset += writeWithoutBlocking(frame[offset...])
            if offset < frame.count && !isBroken {
                var pollDescriptor = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&pollDescriptor, 1, -1)
            }
        }
    }

    private static func privateNonBlockingPipe(_ descriptor: Int32) -> Int32? {
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFIFO else { return nil }
        let reopened = open("/proc/self/fd/\(descriptor)", O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        return reopened >= 0 ? reopened : nil
    }
}
