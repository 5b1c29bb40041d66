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
final class BatchReply: Sendable {
    private let answers: Mutex<(slots: [[UInt8]?], remaining: Int)>
    private let connection: Connection

    init(expecting count: Int, connection: Connection) {
        answers = Mutex((Array(repeating: nil, count: count), count))
        self.connection = connection
    }

    func fill(_ slot: Int, with response: [UInt8]) {
        let complete = answers.withLock { answers -> [[UInt8]]? in
            guard answers.slots[slot] == nil else { return nil }
            answers.slots[slot] = response
            answers.remaining -= 1
            return answers.remaining == 0 ? answers.slots.compactMap { $0 } : nil
        }
        guard let complete else { return }
        connection.send(JSONWriter.array(ofTexts: complete))
    }
}
