import Testing

@testable import Rules

/// A deterministic generator, so a failure names a seed that reproduces it.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random expressions from the grammar, over the names an SDK context has.
struct ExpressionGenerator {
    var random: SplitMix64

    private mutating func pick<T>(_ options: [T]) -> T {
        options[Int(random.next() % UInt64(options.count))]
    }

    mutating func literal() -> String {
        pick([
            "0", "1", "-1", "42", "3u", "0u", "1.5", "-0.0", "1e300", "9223372036854775807",
            "'a'", "''", "'true'", "'42'", "'1.5'", "\"x y\"", "b'\\xff'", "true", "false", "null",
            "[1, 'a', 2.0]", "[]", "{'k': 1}", "{}", "timestamp('2024-01-01T00:00:00Z')", "duration('1h')",
        ])
    }

    mutating func reference() -> String {
        pick([
            "user.credits", "user.plan", "user.missing", "user.tags", "user.nested.deep", "device.platform",
            "device.activeEntitlements", "device.daysSince('app_open')", "computed.placementsInDay('x')",
            "device.unknownFn('x')", "params.source", "params", "undeclared", "x", "device.appVersion",
        ])
    }

    mutating func expression(depth: Int = 0) -> String {
        if depth > 4 { return random.next() % 2 == 0 ? literal() : reference() }
        let next = depth + 1
        switch random.next() % 14 {
        case 0: return literal()
        case 1: return reference()
        case 2:
            return
                "\(expression(depth: next)) \(pick(["==", "!=", "<", "<=", ">", ">=", "in"])) \(expression(depth: next))"
        case 3: return "\(expression(depth: next)) \(pick(["+", "-", "*", "/", "%"])) \(expression(depth: next))"
        case 4: return "\(expression(depth: next)) \(pick(["&&", "||"])) \(expression(depth: next))"
        case 5: return "\(pick(["!", "-"]))\(expression(depth: next))"
        case 6: return "(\(expression(depth: next)) ? \(expression(depth: next)) : \(expression(depth: next)))"
        case 7:
            return
                "\(pick(["size", "int", "uint", "double", "string", "bytes", "timestamp", "duration", "has", "max", "hasFn"]))(\(expression(depth: next)))"
        case 8:
            return
                "\(expression(depth: next)).\(pick(["contains", "startsWith", "endsWith", "matches", "maybe"]))(\(expression(depth: next)))"
        case 9:
            return
                "\(expression(depth: next)).\(pick(["all", "exists", "exists_one", "map", "filter"]))(x, \(expression(depth: next)))"
        case 10: return "\(expression(depth: next))[\(expression(depth: next))]"
        case 11: return "[\(expression(depth: next)), \(expression(depth: next))]"
        case 12: return "{\(expression(depth: next)): \(expression(depth: next))}"
        default:
            return "\(expression(depth: next)).\(pick(["a", "plan", "credits", "intToString()", "floatToString()"]))"
        }
    }

    /// A valid expression with a few characters deleted, duplicated or replaced.
    mutating func mutated() -> String {
        var scalars = Array(expression().unicodeScalars)
        for _ in 0..<(1 + random.next() % 4) where !scalars.isEmpty {
            let index = Int(random.next() % UInt64(scalars.count))
            switch random.next() % 3 {
            case 0: scalars.remove(at: index)
            case 1: scalars.insert(scalars[index], at: index)
            default: scalars[index] = pick(Array("()[]{}.,'\"\\!-?:0x9u".unicodeScalars))
            }
        }
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        return text
    }
}

/// Two SDK-shaped contexts that differ in every attribute.
let contexts: [EvaluationContext] = [
    EvaluationContext(
        variables: [
            "user": .map(
                ValueMap([
                    "credits": .int(5), "plan": .string("free"), "tags": .list([.string("a")]),
                    "nested": .map(ValueMap(["deep": .double(1.5)])),
                ])
            ),
            "device": .map(
                ValueMap([
                    "platform": .string("iOS"), "appVersion": .string("1.2.3"),
                    "activeEntitlements": .list([.string("pro")]),
                ])
            ),
            "params": .map(ValueMap(["source": .string("settings")])),
        ],
        computed: Set(PlacementFunction.allCases.map(\.rawValue)),
        device: Set(PlacementFunction.allCases.map(\.rawValue)),
        answers: ["daysSince": .int(3), "placementsInDay": .uint(7)]
    ),
    EvaluationContext(
        variables: [
            "user": .map(ValueMap([:])), "device": .map(ValueMap(["platform": .string("Android")])),
            "params": .string(""), "x": .string("true"),
        ]),
]

/// Results compared as values, and errors by message.
func sameOutcome(_ left: Result<Value, EvaluationError>, _ right: Result<Value, EvaluationError>) -> Bool {
    switch (left, right) {
    case (.success(let l), .success(let r)): l == r
    case (.failure(let l), .failure(let r)): l.message == r.message
    default: false
    }
}
