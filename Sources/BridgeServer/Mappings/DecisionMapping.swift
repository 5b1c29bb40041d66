import JSONRPC
import SuperwallCore

/// A presentation's decision record (protocol/README.md, "Why a placement did what it did").
extension PresentationDecision {
    var jsonValue: JSONValue {
        var object: JSONObject = [
            "sequence": .int(Int64(sequence)),
            "placement": .string(placement),
            "call": .string(call),
            "at": .string(ISO8601.string(from: at)),
            "gates": .array(gates.map(\.jsonValue)),
            "outcome": .string(outcome),
            "reason": .optional(reason),
        ]
        if let audiences { object["audiences"] = .array(audiences.map(\.jsonValue)) }
        return .object(object)
    }
}

extension PresentationDecision.Gate {
    var jsonValue: JSONValue {
        var object: JSONObject = [
            "gate": .string(name.rawValue),
            "passed": .bool(passed),
            "detail": .string(detail),
            "read": .object(JSONValue.sortedObject(read)),
        ]
        if let waited { object["waitedMs"] = .double(Self.milliseconds(waited)) }
        return .object(object)
    }

    /// To the microsecond.
    private static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return (Double(seconds) * 1_000_000 + Double(attoseconds / 1_000_000_000_000)).rounded() / 1_000
    }
}

/// An answer with the decision record its call asked for, as its `decision` member. It keeps
/// the receiver, a reference, not the record: the handler's async frame holds the answer, and
/// a record's worth of words there made every call allocate a slab of the task's stack.
struct DecidedAnswer<Answer: WireAnswer & Sendable>: WireAnswer, Sendable {
    let answer: Answer
    let receiver: DecisionReceiver?

    var wireValue: JSONValue {
        guard let decision = receiver?.decision, case .object(var object) = answer.wireValue else {
            return answer.wireValue
        }
        object["decision"] = decision.jsonValue
        return .object(object)
    }
}

extension RPCError {
    /// The error with the decision record of the call that failed, as `data.decision`.
    func adding(_ decision: PresentationDecision?) -> RPCError {
        guard let decision else { return self }
        var error = self
        var data: JSONObject
        if case .object(let members) = error.data { data = members } else { data = [:] }
        data["decision"] = decision.jsonValue
        error.data = .object(data)
        return error
    }
}
