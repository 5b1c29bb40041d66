/// The comprehension macros `all`, `exists`, `exists_one`, `map` and `filter`, over a list's
/// elements or a map's keys, the keys in one order in every process (`ValueMap.keysInOrder`).
/// Each iteration spends one step of the frame's budget.
final class Comprehension: Node {
    enum Kind: String {
        case all, exists, exists_one, map, filter
    }

    let kind: Kind
    let range: any Node
    let slot: Int
    let body: any Node
    /// `map(x, predicate, transform)`: the three-argument form filters before it maps.
    let transform: (any Node)?

    init(kind: Kind, range: any Node, slot: Int, body: any Node, transform: (any Node)?) {
        self.kind = kind
        self.range = range
        self.slot = slot
        self.body = body
        self.transform = transform
    }

    func evaluate(_ frame: inout Frame) throws(EvaluationError) -> Value {
        let items: [Value]
        switch try range.evaluate(&frame) {
        case .list(let elements): items = elements
        case .map(let map):
            try frame.charge(map.count)
            items = map.keysInOrder.map(\.value)
        case let other:
            throw EvaluationError(.unsupportedOperation, "\(kind.rawValue)() cannot iterate over \(other.kindName)")
        }
        let saved = frame.locals[slot]
        defer { frame.locals[slot] = saved }
        var matched = 0
        var produced: [Value] = []
        /// `all` and `exists` are CEL's logical and / or over the elements: a false (a
        /// true) decides whatever the others raised, so an error counts only when no element
        /// decides, and the result never depends on the order of a map's keys.
        var deferredError: EvaluationError?
        for item in items {
            try frame.spend()
            frame.locals[slot] = item
            let verdict: Value
            do {
                verdict = try body.evaluate(&frame)
            } catch  where (kind == .all || kind == .exists) && error.kind != .budgetExceeded {
                if deferredError == nil { deferredError = error }
                continue
            }
            switch kind {
            case .all:
                if !verdict.isTruthy { return .bool(false) }
            case .exists:
                if verdict.isTruthy { return .bool(true) }
            case .exists_one:
                if verdict.isTruthy { matched += 1 }
            case .map:
                if let transform {
                    if verdict.isTruthy { produced.append(try transform.evaluate(&frame)) }
                } else {
                    produced.append(verdict)
                }
            case .filter:
                if verdict.isTruthy { produced.append(item) }
            }
        }
        if let deferredError { throw deferredError }
        switch kind {
        case .all: return .bool(true)
        case .exists: return .bool(false)
        case .exists_one: return .bool(matched == 1)
        case .map, .filter: return .list(produced)
        }
    }
}

/// Superscript's `x.maybe(a, b)`: `a`, or `b` when `a` is an error.
final class Maybe: Node {
    let receiver: any Node
    let preferred: any Node
    let fallback: any Node

    init(receiver: any Node, preferred: any Node, fallback: any Node) {
        self.receiver = receiver
        self.preferred = preferred
        self.fallback = fallback
    }

    func evaluate(_ frame: inout Frame) throws(EvaluationError) -> Value {
        _ = try receiver.evaluate(&frame)
        do {
            return try preferred.evaluate(&frame)
        } catch {
            return try fallback.evaluate(&frame)
        }
    }
}

final class BuiltinCall: Node {
    let builtin: Builtin
    /// The receiver, if any, then the arguments.
    let arguments: [any Node]
    /// A receiver evaluated (its errors count) but not passed: cel-interpreter's `size`
    /// reads only its explicit argument, so `"abc".size()` has none.
    let ignoredReceiver: (any Node)?

    init(builtin: Builtin, arguments: [any Node], ignoredReceiver: (any Node)? = nil) {
        self.builtin = builtin
        self.arguments = arguments
        self.ignoredReceiver = ignoredReceiver
    }

    func evaluate(_ frame: inout Frame) throws(EvaluationError) -> Value {
        if let ignoredReceiver { _ = try ignoredReceiver.evaluate(&frame) }
        if builtin == .matches, arguments.count == 2 {
            // The pattern is compiled here, and the match spends from the evaluation's budget.
            let text = try arguments[0].evaluate(&frame)
            guard case (.string(let text), .string(let pattern)) = (text, try arguments[1].evaluate(&frame)) else {
                throw .invalidArgument("matches", "expects a string and a pattern")
            }
            return .bool(try frame.match(text, against: try RegularExpression(pattern)))
        }
        // A function reads its arguments and makes its value: both are charged (`size` reads
        // no more than a count).
        let result: Value
        switch arguments.count {
        case 1:
            let only = try arguments[0].evaluate(&frame)
            if builtin != .size { try frame.charge(reading: only) }
            result = try builtin.apply(.one(only), frame: frame)
        case 2:
            let first = try arguments[0].evaluate(&frame)
            let second = try arguments[1].evaluate(&frame)
            try frame.charge(reading: first, second)
            result = try builtin.apply(.two(first, second), frame: frame)
        default:
            var values: [Value] = []
            values.reserveCapacity(arguments.count)
            for argument in arguments { values.append(try argument.evaluate(&frame)) }
            try frame.charge(values.reduce(0) { $0 + $1.workSize })
            result = try builtin.apply(.many(values), frame: frame)
        }
        try frame.charge(reading: result)
        return result
    }
}

/// `text.matches("literal pattern")`, with the pattern compiled once with the program.
final class MatchesConstantPattern: Node {
    let text: any Node
    let pattern: RegularExpression

    init(text: any Node, pattern: RegularExpression) {
        self.text = text
        self.pattern = pattern
    }

    func evaluate(_ frame: inout Frame) throws(EvaluationError) -> Value {
        guard case .string(let value) = try text.evaluate(&frame) else {
            throw .invalidArgument("matches", "expects a string and a pattern")
        }
        return .bool(try frame.match(value, against: pattern))
    }
}
