import Executors
import JSONText
import Logging

extension Connection {
    // MARK: Input

    func handle(_ event: FrameEvent) {
        switch event {
        case .message(let body):
            options.trace?.record(.incoming, body)
            options.frameRead?(body)
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
            throughLane { [self] in
                if !routeBatchByElement(body) { deliver(parse(body)) }
            }
        }
    }

    /// Routes a large batch one element at a time, and answers whether it did (false when the
    /// message is not a batch whose every element is valid JSON: it is then parsed whole, and
    /// answered as any other message). The whole text is checked first, each element parsed and
    /// let go, so that a batch that is not JSON is still one parse error and nothing of it runs;
    /// then each element is parsed again and routed as it comes. A tree of the whole batch held
    /// about 30 times its size (a 60 MiB batch of pings, 1.8 GiB); this holds the message, its
    /// answers' text and a few words per element.
    private func routeBatchByElement(_ body: MessageBytes) -> Bool {
        let routed = body.bytes.withUnsafeBytes { bytes -> BatchReply? in
            guard let starts = Self.checkedElementStarts(in: bytes), !starts.isEmpty else { return nil }
            let scanner = JSONTextScanner(bytes: bytes)
            // Answers to small requests are about their size; refusals, about twice it.
            let reply = BatchReply(connection: self, expectedBytes: 3 * bytes.count)
            for start in starts {
                let element = UnsafeRawBufferPointer(rebasing: bytes[start..<scanner.endOfValue(startingAt: start)])
                guard let tree = try? JSONDecoding.parse(element) else { continue }
                let message = IncomingMessage(
                    tree.value(),
                    verbatimID: scanner.memberText(named: "id", inObjectAt: start)
                )
                switch message {
                case .request, .invalid: route(message, responder: .batch(reply, slot: reply.reserveSlot()))
                case .notification, .response: route(message, responder: .single)
                }
            }
            return reply
        }
        guard let routed else { return false }
        body.bytes = []
        routed.seal()
        return true
    }

    /// Where each element of the batch `bytes` holds starts, when the text is an array of at
    /// least one element, each a JSON value, separated as JSON says; nil otherwise.
    static func checkedElementStarts(in bytes: UnsafeRawBufferPointer) -> [Int]? {
        let scanner = JSONTextScanner(bytes: bytes)
        var position = scanner.skippingWhitespace(from: 0)
        guard position < bytes.count, bytes[position] == UInt8(ascii: "[") else { return nil }
        position = scanner.skippingWhitespace(from: position + 1)
        var starts: [Int] = []
        while position < bytes.count {
            let end = scanner.endOfValue(startingAt: position)
            guard end > position, end <= bytes.count,
                (try? JSONDecoding.parse(UnsafeRawBufferPointer(rebasing: bytes[position..<end]))) != nil
            else { return nil }
            starts.append(position)
            position = scanner.skippingWhitespace(from: end)
            guard position < bytes.count else { return nil }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position = scanner.skippingWhitespace(from: position + 1)
            case UInt8(ascii: "]"):
                return scanner.skippingWhitespace(from: position + 1) == bytes.count ? starts : nil
            default:
                return nil
            }
        }
        return nil
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
        let reply = BatchReply(connection: self)
        for message in messages {
            switch message {
            case .request, .invalid:
                route(message, responder: .batch(reply, slot: reply.reserveSlot()))
            case .notification, .response:
                route(message, responder: .single)
            }
        }
        reply.seal()
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
