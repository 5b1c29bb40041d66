import Synchronization

/// Where the answer to one request goes: straight out, or into its batch's reply.
enum Responder: Sendable {
    case single
    case batch(BatchReply, slot: Int)

    func respond(id: RequestID?, outcome: Result<JSONValue, RPCError>, on connection: Connection) {
        switch self {
        case .single:
            connection.send(OutgoingMessage.response(id: id, outcome: outcome))
        case .batch(let reply, let slot):
            reply.fill(slot, with: OutgoingMessage.response(id: id, outcome: outcome))
        }
    }
}

/// Collects the answers to one batch and sends them as one array once the last is in.
///
/// Slots are reserved as the batch's requests are routed, and the count is known once the
/// batch is sealed: a large batch is routed an element at a time, before its end is read. The
/// answers' texts wait in one buffer, each slot naming its span, so a batch of a million small
/// requests keeps about its answers' bytes and 16 more each, not an array per answer.
final class BatchReply: Sendable {
    private struct Answers {
        /// The answers' texts. While every answer has come in slot order (the usual case: a
        /// batch's requests answered as they are routed), the text is the reply itself, but
        /// for its closing bracket, and is sent without a copy.
        var text: [UInt8] = [UInt8(ascii: "[")]
        var inOrder = true
        var starts: [Int] = []
        /// -1 while the slot waits for its answer.
        var counts: [Int32] = []
        var filled = 0
        var sealed = false

        var isComplete: Bool { sealed && filled == counts.count }

        mutating func fill(_ slot: Int, with response: [UInt8]) {
            inOrder = inOrder && slot == filled
            if inOrder, slot > 0 { text.append(UInt8(ascii: ",")) }
            starts[slot] = text.count
            counts[slot] = Int32(clamping: response.count)
            text.append(contentsOf: response)
            filled += 1
        }

        /// The array of the answers in slot order; the buffer goes.
        mutating func take() -> [UInt8] {
            defer { self = Answers() }
            guard !inOrder else {
                text.append(UInt8(ascii: "]"))
                return text
            }
            var reply: [UInt8] = []
            reply.reserveCapacity(text.count + counts.count + 2)
            reply.append(UInt8(ascii: "["))
            for slot in counts.indices {
                if slot > 0 { reply.append(UInt8(ascii: ",")) }
                reply.append(contentsOf: text[starts[slot]..<(starts[slot] + Int(counts[slot]))])
            }
            reply.append(UInt8(ascii: "]"))
            return reply
        }
    }

    private let answers = Mutex(Answers())
    private let connection: Connection

    /// `expectedBytes`: room to reserve for the answers' text. Reserved pages cost no memory
    /// until written, and a reply that grows by doubling holds its old and new buffers at once.
    init(connection: Connection, expectedBytes: Int = 0) {
        self.connection = connection
        if expectedBytes > 0 { answers.withLock { $0.text.reserveCapacity(expectedBytes) } }
    }

    /// A slot for the next request of the batch that is answered.
    func reserveSlot() -> Int {
        answers.withLock { answers in
            answers.starts.append(0)
            answers.counts.append(-1)
            return answers.counts.count - 1
        }
    }

    /// Every slot is reserved: the reply goes once they are all filled. A batch of
    /// notifications and replies alone is answered with nothing, as JSON-RPC says.
    func seal() {
        let complete = answers.withLock { answers -> [UInt8]? in
            answers.sealed = true
            return answers.isComplete && !answers.counts.isEmpty ? answers.take() : nil
        }
        if let complete { connection.send(complete) }
    }

    func fill(_ slot: Int, with response: [UInt8]) {
        let complete = answers.withLock { answers -> [UInt8]? in
            guard answers.counts[slot] < 0 else { return nil }
            answers.fill(slot, with: response)
            return answers.isComplete ? answers.take() : nil
        }
        guard let complete else { return }
        connection.send(complete)
    }
}
