import Deadlines
import Dispatch
import JSONText
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A JSON-RPC 2.0 peer over a pair of file descriptors, serving requests and sending its own.
///
/// `run()` reads the input with blocking `read(2)` on the calling thread and never waits for
/// output: frames go to a `FrameWriter`. Each request runs in its own task; notifications are
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

        public init() {}
    }

    let options: Options
    let logger: Logger
    private let input: Int32
    /// Runs requests on the reader thread between reads (see `ReaderExecutor`).
    let executor = ReaderExecutor()
    let writer: FrameWriter
    let handler: any ConnectionHandler
    let state: Mutex<State>
    private let notifications: AsyncStream<QueuedNotification>
    private let notificationSink: AsyncStream<QueuedNotification>.Continuation
    let drained = DispatchSemaphore(value: 0)
    /// Parses and dispatches large messages, and what must follow them in order.
    private let largeMessageLane = DispatchQueue(label: "jsonrpc.large-messages")
    private let largeMessagesDone = DispatchGroup()

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

    struct QueuedNotification: Sendable {
        let notification: IncomingNotification
        let gate: OneShot<Bool>?
    }

    /// Creates a connection reading `input` and writing `output`. The descriptors stay open.
    public init(
        input: Int32,
        output: Int32,
        handler: any ConnectionHandler,
        options: Options = Options(),
        logger: Logger
    ) {
        self.input = input
        self.writer = FrameWriter(descriptor: output, maximumQueuedBytes: options.maximumQueuedOutput)
        self.handler = handler
        self.options = options
        self.logger = logger
        var state = State()
        state.framing = options.framing
        self.state = Mutex(state)
        (notifications, notificationSink) = AsyncStream.makeStream(of: QueuedNotification.self)
        // A client that goes away must show up as a failed write (EPIPE), not kill the process.
        signal(SIGPIPE, SIG_IGN)
    }

    /// Serves until the input ends or `exit` arrives, then finishes in-flight work (bounded),
    /// resolves every request still waiting on the client as cancelled, flushes, and returns
    /// the exit status: 0, or 1 for an `exit` that was not preceded by `shutdown`.
    public func run() -> Int32 {
        guard let executor else { return serve() }
        return SerialLane.hostingLanes(on: executor) { serve() }
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
        readLoop: while true {
            // What the work of the last read wrote goes out now, in one write.
            if let executor {
                executor.waitForInput(input, whenIdle: writer.uncork, shouldStop: { readingShouldStop })
            } else {
                writer.uncork()
            }
            if readingShouldStop { break }
            writer.waitForRoom(orStopWhen: { readingShouldStop })
            if readingShouldStop { break }
            let count = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                logger.error("reading input failed: \(String(cString: strerror(errno)))")
                break
            }
            let events = count == 0 ? decoder.finish() : decoder.consume(chunk[..<count])
            if let framing = decoder.framing {
                state.withLock { state in
                    if state.framing == nil { state.framing = framing }
                }
            }
            writer.cork()
            for event in events {
                handle(event)
                if state.withLock({ $0.exitRequested }) { break readLoop }
            }
            if count == 0 { break }
        }
        executor?.stop()
        writer.uncork()
        return finish(notificationLoop: notificationLoop)
    }

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

    private func finish(notificationLoop: Task<Void, Never>) -> Int32 {
        // What the lane holds was read before the input ended: it is delivered first.
        if largeMessagesDone.wait(timeout: .now() + .milliseconds(Int(options.drainTimeout.milliseconds))) == .timedOut
        {
            logger.warning("large messages still being read \(options.drainTimeout) after the input closed")
        }
        let (waitForRequests, exitStatus, shuttingDown) = state.withLock { state -> (Bool, Int32, Bool) in
            state.inputClosed = true
            state.outgoingRefusal = state.outgoingRefusal ?? .connectionClosed
            let status: Int32 = (state.exitRequested && !state.shutdownReceived) ? 1 : 0
            return (!state.inFlight.isEmpty || !state.answering.isEmpty, status, state.shutdownReceived)
        }
        failPendingRequests(with: .connectionClosed)
        notificationSink.finish()
        let closeHandled = DispatchSemaphore(value: 0)
        Task(executorPreference: OffloadExecutor.shared) { [handler] in
            await handler.inputDidClose(connection: self)
            closeHandled.signal()
        }
        if closeHandled.wait(timeout: .now() + .milliseconds(Int(options.drainTimeout.milliseconds))) == .timedOut {
            logger.warning("the handler took longer than \(options.drainTimeout) to let go of the closed input")
        }
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
        if !writer.flush(timeout: options.flushTimeout) {
            logger.warning("the client stopped reading; \(options.flushTimeout) passed with output still queued")
        }
        options.trace?.flush()
        return exitStatus
    }

    // MARK: Output

    /// The framing replies use: the client's, once known.
    var framing: Framing {
        state.withLock { $0.framing } ?? .newlineDelimited
    }

    func send(_ body: consuming [UInt8]) {
        options.trace?.record(.outgoing, body)
        writer.enqueue(framing.frame(body))
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

    // MARK: Input

    private func handle(_ event: FrameEvent) {
        switch event {
        case .message(let body):
            options.trace?.record(.incoming, body)
            handleMessage(consume body)
        case .tooLarge(let size, let limit):
            logger.warning("skipped a message of \(size) bytes, over the limit of \(limit)")
            let error = RPCError(
                code: -32600,
                message: "Invalid request: the message is \(size) bytes, over the limit of \(limit).",
                kind: "messageTooLarge",
                details: ["size": .int(Int64(size)), "limit": .int(Int64(limit))]
            )
            send(OutgoingMessage.response(id: nil, outcome: .failure(error)))
        case .malformedHeader(let reason):
            logger.warning("malformed header: \(reason)")
            let error = RPCError(code: -32700, message: "Parse error: \(reason)", kind: "invalidHeader")
            send(OutgoingMessage.response(id: nil, outcome: .failure(error)))
        case .truncated(let expected, let received):
            logger.warning("the input ended after \(received) of \(expected) bytes of a message")
        }
    }

    /// What one message body parsed to.
    private enum Parsed: Sendable {
        case single(IncomingMessage)
        case batch([IncomingMessage])
        case unparsable(RPCError)
    }

    /// Parses on the reader, unless the message is large or large ones are still in the lane:
    /// a large message is parsed and dispatched on the lane, so the requests behind it are
    /// not held for its parse; behind it in the lane go, in order, every message that is not
    /// a plain request (notifications, replies, batches, `initialize`, `shutdown`, ...), so
    /// that what must take effect in order still does. Plain requests run concurrently anyway,
    /// so they may overtake it.
    private func handleMessage(_ bytes: consuming [UInt8]) {
        let body = MessageBytes(bytes)
        let laneBusy = state.withLock { $0.messagesInLane > 0 }
        guard body.bytes.count >= Self.largeMessageBytes || laneBusy else {
            deliver(parse(body))
            return
        }
        if body.bytes.count < Self.largeMessageBytes {
            let parsed = parse(body)
            if case .single(.request(let request)) = parsed, !Self.orderedMethods.contains(request.method),
                state.withLock({ if case .running = $0.lifecycle { true } else { false } })
            {
                deliver(parsed)
                return
            }
            throughLane { [self] in deliver(parsed) }
        } else {
            throughLane { [self] in deliver(parse(body)) }
        }
    }

    /// A message's bytes, in one place that parsing empties, so that nothing else keeps them.
    private final class MessageBytes: @unchecked Sendable {
        /// Touched by one thread at a time: the reader, then (for a large message) the lane.
        var bytes: [UInt8]

        init(_ bytes: consuming [UInt8]) {
            self.bytes = bytes
        }
    }

    /// Messages of at least this size are parsed away from the reader (about 10 ms a MiB).
    static let largeMessageBytes = 1 << 20
    /// Requests that take effect in order with the messages around them.
    private static let orderedMethods: Set<String> = ["initialize", "shutdown"]

    private func throughLane(_ work: @escaping @Sendable () -> Void) {
        state.withLock { $0.messagesInLane += 1 }
        largeMessageLane.async(group: largeMessagesDone) { [self] in
            work()
            state.withLock { $0.messagesInLane -= 1 }
            // An `exit` delivered here must reach a reader asleep in `poll`.
            if state.withLock({ $0.exitRequested }) { executor?.wake() }
        }
    }

    /// Parses a message whose bytes `body` holds alone, and lets the bytes go once jansson has
    /// read them and the ids' texts are taken: a large message is then held twice (jansson's
    /// tree and its conversion) at the most, not three times.
    private func parse(_ body: MessageBytes) -> Parsed {
        let read = body.bytes.withUnsafeBytes {
            bytes -> Result<(ParsedJSON, isArray: Bool, ids: [ArraySlice<UInt8>?]), RPCError> in
            let tree: ParsedJSON
            do throws(JSONSyntaxError) {
                tree = try JSONDecoding.parse(bytes)
            } catch {
                var parseError = RPCError.parseError(error.message)
                parseError.data = [
                    "kind": "parseError", "line": .int(Int64(error.line)), "column": .int(Int64(error.column)),
                ]
                return .failure(parseError)
            }
            let scanner = JSONTextScanner(bytes: bytes)
            let start = scanner.skippingWhitespace(from: 0)
            guard start < bytes.count, bytes[start] == UInt8(ascii: "[") else {
                return .success((tree, false, [scanner.memberText(named: "id", inObjectAt: start)]))
            }
            return .success(
                (
                    tree, true,
                    scanner.elementStarts(inArrayAt: start).map { scanner.memberText(named: "id", inObjectAt: $0) }
                )
            )
        }
        body.bytes = []
        switch read {
        case .failure(let error):
            return .unparsable(error)
        case .success(let (tree, isArray, ids)):
            let value = tree.value()
            guard isArray, case .array(let elements) = value else {
                return .single(IncomingMessage(value, verbatimID: ids.first ?? nil))
            }
            return .batch(
                elements.enumerated().map { index, element in
                    IncomingMessage(element, verbatimID: index < ids.count ? ids[index] : nil)
                }
            )
        }
    }

    private func deliver(_ parsed: Parsed) {
        switch parsed {
        case .unparsable(let error): send(OutgoingMessage.response(id: nil, outcome: .failure(error)))
        case .batch(let messages): handleBatch(messages)
        case .single(let message): route(message, responder: .single)
        }
    }

    private func handleBatch(_ messages: [IncomingMessage]) {
        guard !messages.isEmpty else {
            send(OutgoingMessage.response(id: nil, outcome: .failure(.invalidRequest("an empty batch."))))
            return
        }
        let answered = messages.filter {
            switch $0 {
            case .request, .invalid: return true
            case .notification, .response: return false
            }
        }.count
        let reply = BatchReply(expecting: answered, connection: self)
        var slot = 0
        for message in messages {
            switch message {
            case .request, .invalid:
                route(message, responder: .batch(reply, slot: slot))
                slot += 1
            case .notification, .response:
                route(message, responder: .single)
            }
        }
    }

    private func route(_ message: IncomingMessage, responder: Responder) {
        switch message {
        case .request(let request):
            dispatch(request, responder: responder)
        case .notification(let notification):
            receive(notification)
        case .response(let id, let outcome):
            resolveReply(id: id, outcome: outcome)
        case .invalid(let id, let error):
            // A reply to one of our requests that is not a valid response still ends the wait.
            if case .string(let key)? = id?.value,
                resolvePending(key, with: .failure(.malformedResponse(error.message)), cancelAtClient: false)
            {
                return
            }
            responder.respond(id: id, outcome: .failure(error), on: self)
        }
    }

    private func receive(_ notification: IncomingNotification) {
        switch notification.method {
        case "exit":
            state.withLock { $0.exitRequested = true }
        case "$/cancelRequest":
            guard let rawID = notification.params?["id"], RequestID.isValid(rawID) else {
                logger.debug("ignored $/cancelRequest without a usable id")
                return
            }
            cancelIncoming(RequestID(rawID))
        default:
            let gate: OneShot<Bool>?? = state.withLock { state in
                switch state.lifecycle {
                case .awaitingInitialize: return .none
                case .initializing(let gate): return .some(gate)
                case .running, .shutDown: return .some(nil)
                }
            }
            guard let gate else {
                logger.debug("dropped notification \(notification.method) received before initialize")
                return
            }
            notificationSink.yield(QueuedNotification(notification: notification, gate: gate))
        }
    }
}
