/// The functions every evaluation has: cel-interpreter's defaults and Superscript's additions.
/// Each takes its receiver as the first argument, so `s.startsWith(p)` and
/// `startsWith(s, p)` are the same call.
enum Builtin: String, Sendable {
    case size, contains, startsWith, endsWith, matches, max
    case int, uint, double, string, bytes, timestamp, duration
    case intToString, uintToString, floatToString, boolToString
    case hasFn
    /// Superscript registers these two as stubs that answer null without looking at their arguments.
    case unknownFunction, test_custom_func

    func apply(_ arguments: Arguments, frame: Frame) throws(EvaluationError) -> Value {
        switch self {
        case .size:
            switch try single(arguments) {
            case .list(let elements): return .int(Int64(elements.count))
            case .map(let map): return .int(Int64(map.count))
            case .string(let text): return .int(Int64(text.utf8.count))
            case .bytes(let bytes): return .int(Int64(bytes.count))
            case let other: throw .invalidArgument("size", "cannot take the size of \(other.kindName)")
            }
        case .contains:
            let (container, element) = try pair(arguments)
            switch (container, element) {
            case (.list, _), (.map, _), (.string, .string): return .bool(try Operators.contains(container, element))
            case (.bytes(let haystack), .bytes(let needle)): return .bool(haystack.contains(subsequence: needle))
            default: throw .invalidArgument("contains", "cannot look for \(element.kindName) in \(container.kindName)")
            }
        case .startsWith, .endsWith:
            guard case (.string(let text), .string(let affix)) = try pair(arguments) else {
                throw .invalidArgument(rawValue, "expects two strings")
            }
            return .bool(
                self == .startsWith
                    ? text.utf8.starts(with: affix.utf8) : text.utf8.reversed().starts(with: affix.utf8.reversed())
            )
        case .matches:
            guard case (.string(let text), .string(let pattern)) = try pair(arguments) else {
                throw .invalidArgument("matches", "expects a string and a pattern")
            }
            return .bool(try RegularExpression(pattern).matches(text))
        case .max:
            return try maximum(arguments.values)
        case .int: return try Conversions.int(try single(arguments))
        case .uint: return try Conversions.uint(try single(arguments))
        case .double: return try Conversions.double(try single(arguments))
        case .string: return .string(try Printing.string(try single(arguments)))
        case .bytes:
            switch try single(arguments) {
            case .string(let text): return .bytes(Array(text.utf8))
            case .bytes(let bytes): return .bytes(bytes)
            case let other: throw .invalidArgument("bytes", "cannot convert \(other.kindName) to bytes")
            }
        case .timestamp:
            switch try single(arguments) {
            case .string(let text): return .timestamp(try Chronology.parseTimestamp(text))
            case .timestamp(let timestamp): return .timestamp(timestamp)
            case let other: throw .invalidArgument("timestamp", "cannot convert \(other.kindName) to a timestamp")
            }
        case .duration:
            switch try single(arguments) {
            case .string(let text): return .duration(try Chronology.parseDuration(text))
            case .duration(let span): return .duration(span)
            case let other: throw .invalidArgument("duration", "cannot convert \(other.kindName) to a duration")
            }
        case .intToString:
            guard case .int(let number) = try single(arguments) else {
                throw .invalidArgument(rawValue, "expects an int")
            }
            return .string(String(number))
        case .uintToString:
            guard case .uint(let number) = try single(arguments) else {
                throw .invalidArgument(rawValue, "expects a uint")
            }
            return .string(String(number))
        case .floatToString:
            guard case .double(let number) = try single(arguments) else {
                throw .invalidArgument(rawValue, "expects a float")
            }
            return .string(NumberFormatting.rustDisplay(number))
        case .boolToString:
            guard case .bool(let flag) = try single(arguments) else {
                throw .invalidArgument(rawValue, "expects a bool")
            }
            return .string(String(flag))
        case .hasFn:
            guard case .string(let path) = try single(arguments) else {
                throw .invalidArgument(rawValue, "expects a string")
            }
            let name = path.split(separator: ".").last.map(String.init) ?? path
            return .bool(frame.hostFunctions?.declares(name) == true)
        case .unknownFunction, .test_custom_func:
            return .null
        }
    }

    private func single(_ arguments: Arguments) throws(EvaluationError) -> Value {
        guard case .one(let value) = arguments else {
            throw .argumentCount(rawValue, expected: 1, got: arguments.values.count)
        }
        return value
    }

    private func pair(_ arguments: Arguments) throws(EvaluationError) -> (Value, Value) {
        guard case .two(let first, let second) = arguments else {
            throw .argumentCount(rawValue, expected: 2, got: arguments.values.count)
        }
        return (first, second)
    }

    /// cel-interpreter's `max`: over a single list argument, or over the arguments; null when empty.
    private func maximum(_ arguments: [Value]) throws(EvaluationError) -> Value {
        var items = arguments
        if arguments.count == 1 {
            guard case .list(let elements) = arguments[0] else { return arguments[0] }
            items = elements
        }
        guard var best = items.first else { return .null }
        for item in items.dropFirst() where try Operators.compare(best, item) < 0 { best = item }
        return best
    }
}

/// A call's arguments (receiver first); one and two are held without an array, as most calls
/// have one or two.
enum Arguments {
    case one(Value)
    case two(Value, Value)
    case many([Value])

    var values: [Value] {
        switch self {
        case .one(let value): [value]
        case .two(let first, let second): [first, second]
        case .many(let values): values
        }
    }
}

enum Conversions {
    static func int(_ value: Value) throws(EvaluationError) -> Value {
        switch value {
        case .int: return value
        case .uint(let number):
            guard number <= UInt64(Int64.max) else { throw range("int", value) }
            return .int(Int64(number))
        case .double(let number):
            guard number.isFinite, number > -9.223372036854775808e18, number < 9.223372036854775808e18 else {
                throw range("int", value)
            }
            return .int(Int64(number))
        case .string(let text):
            guard let number = Int64(text) else { throw .invalidArgument("int", "'\(text)' is not an integer") }
            return .int(number)
        default:
            throw .invalidArgument("int", "cannot convert \(value.kindName) to an int")
        }
    }

    static func uint(_ value: Value) throws(EvaluationError) -> Value {
        switch value {
        case .uint: return value
        case .int(let number):
            guard number >= 0 else { throw range("uint", value) }
            return .uint(UInt64(number))
        case .double(let number):
            guard number.isFinite, number > -1, number < 1.8446744073709552e19 else { throw range("uint", value) }
            return .uint(UInt64(number))
        case .string(let text):
            guard let number = UInt64(text) else {
                throw .invalidArgument("uint", "'\(text)' is not an unsigned integer")
            }
            return .uint(number)
        default:
            throw .invalidArgument("uint", "cannot convert \(value.kindName) to a uint")
        }
    }

    static func double(_ value: Value) throws(EvaluationError) -> Value {
        switch value {
        case .double: return value
        case .int(let number): return .double(Double(number))
        case .uint(let number): return .double(Double(number))
        case .string(let text):
            guard let number = rustDouble(text) else { throw .invalidArgument("double", "'\(text)' is not a number") }
            return .double(number)
        default:
            throw .invalidArgument("double", "cannot convert \(value.kindName) to a double")
        }
    }

    /// Rust's `str::parse::<f64>()`: no surrounding space, no hexadecimal, no separators.
    static func rustDouble(_ text: String) -> Double? {
        guard !text.isEmpty, !text.contains(where: { "xXpP_ \t\n\r".contains($0) }) else { return nil }
        return Double(text)
    }

    private static func range(_ function: String, _ value: Value) -> EvaluationError {
        EvaluationError(.overflow, "\(function): \(value.debugDescription) is out of range")
    }
}

extension Array where Element: Equatable {
    func contains(subsequence needle: [Element]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard needle.count <= count else { return false }
        for start in 0...(count - needle.count) where self[start..<(start + needle.count)].elementsEqual(needle) {
            return true
        }
        return false
    }
}
