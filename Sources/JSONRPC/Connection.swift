import Dispatch
import Executors
import JSONText
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A JSON-RPC 2.0 peer over a pair of file descriptors, or in-process over a `MessageInbox`
/// and a callback, serving requests and sending its own.
///
/// `run()` reads the input on the calling thread (blocking `read(2)`, or the inbox) and never
/// waits for output: messages go to a `FrameWriter`, or to a `CallbackOutput`. Each request runs in its own task; notifications are
/// applied in order by one task. The connection answers everything the handler never sees:
/// parse errors, invalid requests, batches, `$/cancelRequest`, and the lifecycle gate
/// (`initialize` first, `shutdown`, `exit`).
public final class Connection: Sendable {
    public struct Options: Sendable {
        /// The longest message accepted; longer ones are answered with an error and skipped.
        public var maximumMessageSize = 64 * 1024 * 1024
        /// How many bytes of output may wait for a client that is not reading before the
        /// connection stops reading input (until half of them are out).
        public var maximumQueuedOutput = 64 * 1024 * 1024
        /// Forces a framing; by default it is detected from the first byte the client sends.
        public var framing: Framing?
        /// How long in-flight requests may run on after the input closes.
        public var drainTimeout: Duration = .seconds(5)
        /// How long queued output may take to reach the client after the input closes.
        public var flushTimeout: Duration = .seconds(2)
        public var trace: FrameTrace?
        /// Given each message read, before it is handled (a replay's recorded HTTP answers wait
        /// for the frames they followed).
        public var frameRead: (@Sendable ([UInt8]) -> Void)?

        public init() {}
    }

    let options: Options
    let logger: Logger
    private let input: Input
    /// Runs requests on the reader thread between reads (see `ReaderExecutor`).
    let executor = ReaderExecutor()
    let writer: any MessageOutput
    let handler: any ConnectionHandler
    let state: Mutex<State>
    private let notifications: AsyncStream<QueuedNotification>
    let notificationSink: AsyncStream<QueuedNotification>.Continuation
    let drained = DispatchSemaphore(value: 0)
    /// Set once `run()` has flushed its output: what work still running sends after that is
    /// dropped, trace included. A process exits then; a bridge in-process does not, and its
    /// host has stopped listening.
    private let outputFinished = Atomic<Bool>(false)
    /// Parses and dispatches large messages, and what must follow them in order.
    let largeMessageLane = DispatchQueue(label: "jsonrpc.large-messages")
    let largeMessagesDone = DispatchGroup()

    struct State: ~Copyable {
        var lifecycle = Lifecycle.awaitingInitialize
        var framing: Framing?
        /// Requests being answered, by a token of their own: a client may reuse an id.
        var inFlight: [UInt64: InFlight] = [:]
        var nextToken: UInt64 = 0
        var pending: [String: PendingRequest] = [:]
        var nextOutgoingID: UInt64 = 0
        var inputClosed = false
        /// Why requests to the client can no longer be sent, once they cannot.
        var outgoingRefusal: RPCError?
        var exitRequested = false
        /// `stopReading()` was called: the input is treated as ended.
        var stopRequested = false
        /// Messages waiting in, or running on, the large-message lane.
        var messagesInLane = 0
        /// The input closed and the drain deadline passed with the lane still reading: the
        /// requests it routes from now on are answered `-32800` at once instead of run.
        var cancelsLateRequests = false
        /// Requests taken out of `inFlight` whose answers are not yet handed to the writer: they
        /// still count as unanswered, for `shutdown`'s wait and for the drain before exit.
        var answering: Set<UInt64> = []
        /// Set when `shutdown` arrives, in arrival order, so that an `exit` right behind it
        /// exits 0 even before `shutdown` is answered.
        var shutdownReceived = false
        /// Waits for the answers to sets of requests: `shutdown`'s wait for every request
        /// received before it.
        var answerWatches: [AnswerWatch] = []

        /// `shutdown` arrived: requests after it are refused, the client's requests resolve
        /// at once, and an `exit` from now on exits 0.
        mutating func beginShutdown() {
            lifecycle = .shutDown
            shutdownReceived = true
            outgoingRefusal = .shutDown
        }

        /// Takes a request out of `inFlight` to answer it: whoever takes it answers it, once.
        mutating func takeForAnswer(_ token: UInt64) -> InFlight? {
            guard let entry = inFlight.removeValue(forKey: token) else { return nil }
            answering.insert(token)
            return entry
        }

        /// The request's answer is with the writer; answers the watches this completes.
        mutating func answered(_ token: UInt64) -> [OneShot<Void>] {
            answering.remove(token)
            guard !answerWatches.isEmpty else { return [] }
            for index in answerWatches.indices { answerWatches[index].remaining.remove(token) }
            let completed = answerWatches.filter(\.remaining.isEmpty).map(\.gate)
            answerWatches.removeAll(where: \.remaining.isEmpty)
            return completed
        }

        /// Requests received and not yet answered.
        var unanswered: Set<UInt64> { Set(inFlight.keys).union(answering) }
    }

    struct AnswerWatch {
        var remaining: Set<UInt64>
        let gate = OneShot<Void>()
    }

    enum Lifecycle {
        case awaitingInitialize
        case initializing(OneShot<Bool>)
        case running
        case shutDown
    }

    struct InFlight {
        let id: RequestID
        var task: Task<Void, Never>?
        let responder: Responder
        let whenAnswered: (@Sendable (_ succeeded: Bool) -> Void)?

        func answer(with outcome: Result<JSONValue, RPCError>, on connection: Connection) {
            responder.respond(id: id, outcome: outcome, on: connection)
            if case .success = outcome { whenAnswered?(true) } else { whenAnswered?(false) }
        }
    }

    /// Where messages come from.
    private enum Input: Sendable {
        /// A byte stream, framed.
        case descriptor(Int32)
        /// Whole messages a host hands over in-process.
        case inbox(MessageInbox)
    }

    struct QueuedNotification: Sendable {
        let notification: IncomingNotification
        let gate: OneShot<Bool>?
    }

    /// Creates a connection reading `input` and writing `output`. The descriptors stay open.
    public convenience init(
        input: Int32,
        output: Int32,
        handler: any ConnectionHandler,
        options: Options = Options(),
        logger: Logger
    ) {
        self.init(
            input: .descriptor(input),
            writer: FrameWriter(descriptor: output, maximumQueuedBytes: options.maximumQueuedOutput),
            handler: handler,
            options: options,
            logger: logger
        )
        // A client that goes away must show up as a failed write (EPIPE), not kill the process.
        signal(SIGPIPE, SIG_IGN)
    }

    /// Creates a connection served in-process: it reads the messages `inbox` is given, and
    /// hands each message it sends, whole, to `deliver`, in order, on a thread of its own
    /// (see `CallbackOutput`). Nothing is framed.
    public convenience init(
        inbox: MessageInbox,
        deliver: @escaping @Sendable (UnsafeBufferPointer<UInt8>) -> Void,
        handler: any ConnectionHandler,
        options: Options = Options(),
        logger: Logger
    ) {
        self.init(
            input: .inbox(inbox),
            writer: CallbackOutput(maximumQueuedBytes: options.maximumQueuedOutput, deliver: deliver),
            handler: handler,
            options: options,
            logger: logger
        )
    }

    private init(
        input: Input,
        writer: any MessageOutput,
        handler: any ConnectionHandler,
        options: Options,
        logger: Logger
    ) {
        self.input = input
        self.writer = writer
        self.handler = handler
        self.options = options
        self.logger = logger
        var state = State()
        state.framing = options.framing
        self.state = Mutex(state)
        (notifications, notificationSink) = AsyncStream.makeStream(of: QueuedNotification.self)
    }

    /// Serves until the input ends or `exit` arrives, then finishes in-flight work (bounded),
    /// resolves every request still waiting on the client as cancelled, flushes, and returns
    /// the exit status: 0, or 1 for an `exit` that was not preceded by `shutdown`.
    public func run() -> Int32 {
        BridgeThread.marking(for: writer) {
            guard let executor else { return serve() }
            return SerialLane.hostingLanes(on: executor) { serve() }
        }
    }

    private func serve() -> Int32 {
        let notificationLoop = Task(executorPreference: OffloadExecutor.shared) { [self] in
            for await queued in notifications {
                if let gate = queued.gate, await !gate.value { continue }
                await handler.handle(queued.notification, connection: self)
            }
        }
        var decoder = FrameDecoder(maximumMessageSize: options.maximumMessageSize, framing: options.framing)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        writer.readerStarted()
        if case .inbox(let inbox) = input, let executor {
            inbox.readerWakes(with: { [weak executor] in executor?.wake() })
        }
        readLoop: while true {
            // What the work of the last read wrote goes out now, in one write.
            waitForInput()
            if readingShouldStop { break }
            writer.waitForRoom(orStopWhen: { readingShouldStop })
            if readingShouldStop { break }
            let events: [FrameEvent]
            let ended: Bool
            switch input {
            case .descriptor(let descriptor):
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 {
                    if errno == EINTR { continue }
                    logger.error("reading input failed: \(String(cString: strerror(errno)))")
                    break readLoop
                }
                events = count == 0 ? decoder.finish() : decoder.consume(chunk[..<count])
                ended = count == 0
                if let framing = decoder.framing {
                    state.withLock { state in
                        if state.framing == nil { state.framing = framing }
                    }
                }
            case .inbox(let inbox):
                let taken = inbox.takeAll()
                events = taken.messages.map { message in
                    message.count > options.maximumMessageSize
                        ? .tooLarge(size: message.count, limit: options.maximumMessageSize) : .message(message)
                }
                ended = taken.ended
            }
            writer.cork()
            for event in events {
                handle(event)
                if state.withLock({ $0.exitRequested }) { break readLoop }
            }
            if ended { break }
        }
        if case .inbox(let inbox) = input { inbox.close() }
        executor?.stop()
        writer.uncork()
        return finish(notificationLoop: notificationLoop)
    }

    /// Waits for input, running the requests' work meanwhile; what that work wrote goes out
    /// before the thread sleeps, and then the handler's idle work runs.
    private func waitForInput() {
        let whenIdle = { [writer, handler] in
            writer.uncork()
            handler.connectionIsIdle()
        }
        switch input {
        case .descriptor(let descriptor):
            guard let executor else { return writer.uncork() }
            executor.waitForInput(
                descriptor,
                whenIdle: whenIdle,
                shouldStop: { readingShouldStop },
                hasInput: { false }
            )
        case .inbox(let inbox):
            guard let executor else {
                writer.uncork()
                return inbox.waitForArrival()
            }
            executor.waitForInput(
                nil,
                whenIdle: whenIdle,
                shouldStop: { readingShouldStop },
                hasInput: { !inbox.prepareToSleep() },
                spin: (Self.inProcessSpin, { inbox.hasInput })
            )
            inbox.readerWoke()
        }
    }

    /// How long an in-process reader watches for the next message before it sleeps: longer
    /// than a client takes to wake on an answer and send again.
    static let inProcessSpin: Duration = .microseconds(100)

    /// Whether the calling thread is one of the connection's own: its reader, or the thread
    /// that hands its output to a host's callback. Host code runs there only inside that
    /// callback, which must not wait for the connection to end.
    public var ownsTheCallingThread: Bool { BridgeThread.isOwned(by: writer) }

    /// How much output has gone out so far: messages to a host's callback, bytes to a pipe.
    public var outputDeliveries: Int { writer.deliveries }

    /// `exit` arrived, or `stopReading()` was called.
    private var readingShouldStop: Bool {
        state.withLock { $0.stopRequested || $0.exitRequested }
    }

    /// Ends the session as end of input would (a signal asked the process to stop): reading
    /// stops, what was read is answered within the same bounds, output is flushed, and
    /// `run()` returns 0.
    public func stopReading() {
        state.withLock { $0.stopRequested = true }
        executor?.wake()
        writer.wakeReader()
    }

    /// Nothing more reaches the host's output callback, from now on: for a host that stops
    /// waiting for a connection whose callback does not return (in-process only).
    public func abandonOutput() {
        outputFinished.store(true, ordering: .relaxed)
        writer.finish()
    }

    private func finish(notificationLoop: Task<Void, Never>) -> Int32 {
        // What the lane holds was read before the input ended: it is delivered first, and
        // every request in it answered, if only as cancelled.
        if largeMessagesDone.wait(timeout: .now() + .milliseconds(Int(options.drainTimeout.milliseconds))) == .timedOut
        {
            logger.warning(
                "large messages still being read \(options.drainTimeout) after the input closed; the requests they hold are answered as cancelled"
            )
            state.withLock { $0.cancelsLateRequests = true }
            // Reading what is left, answering each request at once, is bounded by the message
            // size limit: seconds for the largest.
            if largeMessagesDone.wait(timeout: .now() + .seconds(Self.lateLaneLimitSeconds)) == .timedOut {
                logger.error(
                    "large messages still being read \(Self.lateLaneLimitSeconds) s later; the requests they hold go unanswered"
                )
            }
        }
        let (waitForRequests, exitStatus, shuttingDown) = state.withLock { state -> (Bool, Int32, Bool) in
            state.inputClosed = true
            state.outgoingRefusal = state.outgoingRefusal ?? .connectionClosed
            let status: Int32 = (state.exitRequested && !state.shutdownReceived) ? 1 : 0
            return (!state.inFlight.isEmpty || !state.answering.isEmpty, status, state.shutdownReceived)
        }
        failPendingRequests(with: .connectionClosed)
        notificationSink.finish()
        awaitHandler("let go of the closed input") { [handler] in await handler.inputDidClose(connection: self) }
        // A `shutdown` in flight waits up to the drain timeout for the requests before it,
        // then flushes: it gets that long again to answer.
        let drainLimit = shuttingDown ? options.drainTimeout + options.flushTimeout : options.drainTimeout
        if waitForRequests, drained.wait(timeout: .now() + .milliseconds(Int(drainLimit.milliseconds))) == .timedOut {
            logger.warning("requests still running \(drainLimit) after the input closed; answering them as cancelled")
            cancel(state.withLock { Array($0.inFlight.keys) })
        }
        let notificationsDone = DispatchSemaphore(value: 0)
        Task(executorPreference: OffloadExecutor.shared) {
            await notificationLoop.value
            notificationsDone.signal()
        }
        _ = notificationsDone.wait(timeout: .now() + .milliseconds(Int(options.drainTimeout.milliseconds)))
        awaitHandler("end the session") { [handler] in await handler.connectionDidEnd(connection: self) }
        if !flushWhileTheClientReads() {
            logger.warning("the client stopped reading; \(options.flushTimeout) passed with output still queued")
        }
        outputFinished.store(true, ordering: .relaxed)
        writer.finish()
        options.trace?.flush()
        return exitStatus
    }

    /// Flushes the output for as long as the client keeps taking it: each flush deadline that
    /// passes with `progressStep` more gone out (64 KiB over a pipe, one message to a callback)
    /// earns another, so that a large answer (a batch's reply of tens of megabytes) reaches a
    /// slow reader whole after the input closed.
    private func flushWhileTheClientReads() -> Bool {
        var seen = writer.deliveries
        while !writer.flush(timeout: options.flushTimeout) {
            let now = writer.deliveries
            guard now - seen >= writer.progressStep, !writer.isBroken else { return false }
            seen = now
        }
        return true
    }

    /// How long the lane may take, past the drain deadline, to answer what it holds.
    static let lateLaneLimitSeconds = 60

    /// Runs one of the handler's end-of-connection steps, waiting for it at most the drain
    /// timeout: the reader's thread must not hang on a handler that does not return.
    private func awaitHandler(_ step: String, _ work: @escaping @Sendable () async -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: OffloadExecutor.shared) {
            await work()
            done.signal()
        }
        if done.wait(timeout: .now() + .milliseconds(Int(options.drainTimeout.milliseconds))) == .timedOut {
            logger.warning("the handler took longer than \(options.drainTimeout) to \(step)")
        }
    }

    // MARK: Output

    /// The framing replies use: the client's, once known.
    var framing: Framing {
        state.withLock { $0.framing } ?? .newlineDelimited
    }

    func send(_ body: consuming [UInt8]) {
        guard !outputFinished.load(ordering: .relaxed) else { return }
        options.trace?.record(.outgoing, body)
        if writer.isFramed {
            writer.enqueue(framing.frame(body))
        } else {
            writer.enqueue(body)
        }
    }

    /// Sends a notification to the client. Dropped once the connection has closed.
    public func notify(_ method: String, params: JSONValue? = nil) {
        guard !writer.isBroken else { return }
        send(OutgoingMessage.notification(method: method, params: params))
    }

    /// Sends a notification whose params are already JSON text: an object, which the caller
    /// wrote (events a delegate hears are written straight from their dictionaries).
    public func notify(_ method: String, encodedParams: [UInt8]) {
        guard !writer.isBroken else { return }
        send(OutgoingMessage.notification(method: method, encodedParams: encodedParams))
    }
}
