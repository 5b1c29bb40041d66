import Foundation
import JSONRPC

/// How long a test waits for what it expects before it fails: `SUPERWALL_TEST_TIMEOUT`
/// seconds, 30 unless set. Long on purpose: every suite runs at once on two cores, so an
/// answer can take seconds to come on a busy machine, and only a test that is failing anyway
/// waits it out. The one knob for every wait of the Swift suites; raise it on a slower machine.
public let expectationTimeout: Duration = {
    let seconds = ProcessInfo.processInfo.environment["SUPERWALL_TEST_TIMEOUT"].flatMap(Double.init) ?? 30
    return .milliseconds(Int(max(seconds, 1) * 1000))
}()

/// The wait for work that moves megabytes (a 16 MiB message, a batch of thousands, a slow
/// rule): four times `expectationTimeout`.
public let slowExpectationTimeout: Duration = expectationTimeout * 4

/// The client end of a JSON-RPC stream in tests: writes raw bytes or messages, and reads
/// framed replies with a timeout, so a test that expects a reply never hangs.
public final class FramedPeer: @unchecked Sendable {
    public private(set) var readDescriptor: Int32
    public private(set) var writeDescriptor: Int32
    public let framing: Framing
    private var decoder: FrameDecoder
    private var queued: [FrameEvent] = []
    private var ended = false

    public init(read: Int32, write: Int32, framing: Framing = .newlineDelimited) {
        readDescriptor = read
        writeDescriptor = write
        self.framing = framing
        decoder = FrameDecoder(maximumMessageSize: .max, framing: framing)
    }

    /// Writes bytes exactly as given.
    public func writeRaw(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(writeDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    public func writeRaw(_ text: String) { writeRaw(Array(text.utf8)) }

    /// Sends one message body in this peer's framing.
    public func send(_ body: String) { writeRaw(framing.frame(Array(body.utf8))) }

    public func send(_ message: JSONValue) { writeRaw(framing.frame(JSONWriter.encode(message))) }

    public func request(_ id: JSONValue, _ method: String, _ params: JSONValue? = nil) {
        var message: JSONObject = ["jsonrpc": "2.0", "id": id, "method": .string(method)]
        if let params { message["params"] = params }
        send(.object(message))
    }

    public func notify(_ method: String, _ params: JSONValue? = nil) {
        var message: JSONObject = ["jsonrpc": "2.0", "method": .string(method)]
        if let params { message["params"] = params }
        send(.object(message))
    }

    /// Closes the writing end: the other side sees end of input.
    public func closeWriting() {
        guard writeDescriptor >= 0 else { return }
        close(writeDescriptor)
        writeDescriptor = -1
    }

    /// Closes the reading end: the other side's writes start to fail.
    public func closeReading() {
        guard readDescriptor >= 0 else { return }
        close(readDescriptor)
        readDescriptor = -1
        ended = true
    }

    /// The next frame body, or nil if none arrives within `timeout` or the stream ended.
    ///
    /// Waits without blocking a thread: tests run on Swift's cooperative pool, which the
    /// in-process server's tasks share and which has only as many threads as cores.
    public func nextBody(timeout: Duration = expectationTimeout) async -> [UInt8]? {
        let deadline = ContinuousClock.now + timeout
        while true {
            while !queued.isEmpty {
                let event = queued.removeFirst()
                if case .message(let body) = event { return body }
            }
            if ended { return nil }
            guard ContinuousClock.now < deadline else { return nil }
            var descriptor = pollfd(fd: readDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 0) > 0 else {
                await waitUntilReadable(until: deadline)
                continue
            }
            readAvailable()
        }
    }

    /// The next message that is a reply, waiting on the calling thread: for a thread of the
    /// test's own while the cooperative pool is kept busy on purpose (`PoolSaturation`).
    public func nextReplyBlockingThisThread(timeout: Duration) -> JSONValue? {
        let deadline = ContinuousClock.now + timeout
        while true {
            while !queued.isEmpty {
                if case .message(let body) = queued.removeFirst(),
                    let message = try? JSONDecoding.decode(body), message["method"] == nil
                {
                    return message
                }
            }
            let remaining = deadline - ContinuousClock.now
            guard !ended, remaining > .zero else { return nil }
            var descriptor = pollfd(fd: readDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32(remaining / .milliseconds(1)) + 1) > 0 else { continue }
            readAvailable()
        }
    }

    private func readAvailable() {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let count = buffer.withUnsafeMutableBytes { read(readDescriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { return }
        if count <= 0 {
            ended = true
            queued.append(contentsOf: decoder.finish())
        } else {
            queued.append(contentsOf: decoder.consume(buffer[..<count]))
        }
    }

    /// Returns when the read end is readable (data or end of stream) or at `deadline`.
    ///
    /// Dispatch watches the descriptor on its own threads. Polling in a sleep loop instead
    /// kept hundreds of parallel tests waking every few hundred microseconds, which starved
    /// the servers they waited for on a loaded machine.
    ///
    /// The wait ends only once the source's cancellation has finished: Dispatch forgets the
    /// descriptor then, not at `cancel()`. A peer that closed its descriptor before that
    /// left a number that the next test's pipe reused, and that test's source never fired
    /// (its first reply waited out the whole timeout, and every later call got the reply
    /// before its own).
    private func waitUntilReadable(until deadline: ContinuousClock.Instant) async {
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else { return }
        let (seconds, attoseconds) = remaining.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        let queue = DispatchQueue(label: "framed-peer.readable")
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let watch = ReadableWatch(DispatchSource.makeReadSource(fileDescriptor: readDescriptor, queue: queue))
            watch.source.setEventHandler { watch.source.cancel() }
            watch.source.setCancelHandler { continuation.resume() }
            queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { watch.source.cancel() }
            watch.source.resume()
        }
    }

    /// The next message, parsed; nil on timeout or end of stream.
    public func next(timeout: Duration = expectationTimeout) async -> JSONValue? {
        guard let body = await nextBody(timeout: timeout) else { return nil }
        return try? JSONDecoding.decode(body)
    }

    /// The next message that is a reply, skipping the notifications and requests the other
    /// side sends (collected in `skipped`).
    public func nextReply(timeout: Duration = expectationTimeout, skipped: inout [JSONValue]) async -> JSONValue? {
        while let message = await next(timeout: timeout) {
            if message["method"] == nil { return message }
            skipped.append(message)
        }
        return nil
    }

    public func nextReply(timeout: Duration = expectationTimeout) async -> JSONValue? {
        var skipped: [JSONValue] = []
        return await nextReply(timeout: timeout, skipped: &skipped)
    }

    deinit {
        closeWriting()
        closeReading()
    }
}

/// A read source, touched only on its own serial queue (and cancelled at most twice, which
/// Dispatch allows): its cancel handler ends the wait, exactly once.
private final class ReadableWatch: @unchecked Sendable {
    let source: any DispatchSourceRead

    init(_ source: any DispatchSourceRead) {
        self.source = source
    }
}

/// A pipe's two descriptors, both close-on-exec: tests spawn bridges concurrently, and a
/// child that inherited another test's write end would keep that test's bridge from ever
/// seeing end of input. (`posix_spawn`'s dup2 onto 0 and 1 clears the flag where wanted.)
public struct Pipe2: Sendable {
    public let read: Int32
    public let write: Int32

    public init() {
        var descriptors: [Int32] = [0, 0]
        precondition(Self.pipe2(&descriptors, O_CLOEXEC) == 0, "pipe2() failed")
        read = descriptors[0]
        write = descriptors[1]
    }

    /// glibc's `pipe2`, which Swift's Glibc module does not declare (it is a GNU extension);
    /// setting the flag after `pipe()` would leave a window for a concurrent spawn.
    private static let pipe2: @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32 = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "pipe2") else { fatalError("glibc has no pipe2") }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self)
    }()
}
