import OrderedCollections

/// A JSON value with exact numbers.
///
/// Integers keep their exact value: `int` holds anything that fits in `Int64`, `uint` holds
/// integers above `Int64.max` that fit in `UInt64`, and `double` holds everything else
/// (fractions, exponents, and integers too large for either). Objects keep their key order so
/// that what goes out reads the way it was built.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
    /// A value the bridge has already written as JSON text, sent as it is: a large value the
    /// core keeps written (the user's attributes) is copied into a message, not written again.
    /// Reading it (`objectValue`, `typeName`, ...) parses it; two values are equal only in the
    /// same case, so compare what was sent, not what was built.
    case encoded(EncodedJSON)
}

public typealias JSONObject = OrderedDictionary<String, JSONValue>

/// One complete JSON value as UTF-8 text, written by the bridge itself.
public struct EncodedJSON: Sendable, Hashable {
    public let bytes: [UInt8]

    /// `bytes` must be one complete, compact JSON value: nothing checks it on the way out.
    public init(unchecked bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The value the text holds; null if it is not JSON, which the bridge never writes.
    public var decoded: JSONValue {
        (try? JSONDecoding.decode(bytes)) ?? .null
    }
}

extension JSONValue {
    public var isNull: Bool {
        if case .null = self { return true }
        if case .encoded(let text) = self { return text.decoded.isNull }
        return false
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        if case .encoded(let text) = self { return text.decoded.stringValue }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        if case .encoded(let text) = self { return text.decoded.boolValue }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        if case .encoded(let text) = self { return text.decoded.objectValue }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        if case .encoded(let text) = self { return text.decoded.arrayValue }
        return nil
    }

    /// The value as an `Int64` when it is an integer that fits, or a double with no fraction
    /// that fits (`1.0` is accepted as `1`, as JSON makes no difference between them).
    public var int64Value: Int64? {
        switch self {
        case .int(let value):
            return value
        case .uint(let value):
            return Int64(exactly: value)
        case .double(let value):
            return Int64(exactly: value)
        case .encoded(let text):
            return text.decoded.int64Value
        default:
            return nil
        }
    }

    /// The value as a `Double` when it is any number.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .uint(let value): return Double(value)
        case .double(let value): return value
        case .encoded(let text): return text.decoded.doubleValue
        default: return nil
        }
    }

    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// The name of the JSON type, as used in error messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .int, .uint, .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        case .encoded(let text): return text.decoded.typeName
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self = .int(value) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension JSONValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text of the value.
    public var description: String {
        String(decoding: JSONWriter.encode(self), as: UTF8.self)
    }
}
