import JSONText

/// A JSON value as the core keeps it: user attributes, placement params, event parameters.
///
/// The core knows nothing of the wire; `BridgeServer` maps this to and from the protocol's
/// JSON. Objects are unordered here, as attribute dictionaries are in SuperwallKit.
public enum JSON: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    public subscript(key: String) -> JSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var objectValue: [String: JSON]? {
        if case .object(let value) = self { return value }
        return nil
    }
}

extension JSON: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSON].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSON {
    /// The value as compact JSON text (object keys in no particular order). Written by hand
    /// because Foundation's encoder costs more than the rest of tracking an event together;
    /// non-finite doubles, which JSON cannot carry, are written as null.
    public var jsonText: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        write(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The value as compact JSON text, every object's members in key order: the same value
    /// always reads the same way, from one run to the next.
    public var sortedJSONText: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        write(into: &bytes, sortingKeys: true)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes the value; with `sortingKeys`, every object's members in key order.
    fileprivate func write(into bytes: inout [UInt8], sortingKeys: Bool = false) {
        switch self {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let flag): bytes.append(contentsOf: (flag ? "true" : "false").utf8)
        case .int(let number): bytes.append(contentsOf: String(number).utf8)
        case .double(let number): bytes.append(contentsOf: (number.isFinite ? "\(number)" : "null").utf8)
        case .string(let text): Self.writeString(text, into: &bytes)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                element.write(into: &bytes, sortingKeys: sortingKeys)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            var first = true
            for (key, value) in sortingKeys ? members.sorted(by: { $0.key < $1.key }) : Array(members) {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                Self.writeString(key, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                value.write(into: &bytes, sortingKeys: sortingKeys)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// An object of `members` as JSON text, keys in order at every level: the same members
    /// always read the same way.
    public static func sortedObjectText(_ members: [(key: String, value: JSON)]) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        bytes.reserveCapacity(64 * members.count)
        for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            writeString(member.key, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
            member.value.write(into: &bytes, sortingKeys: true)
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// `"key":value`, one member of an object as `sortedObjectText` writes it.
    static func sortedMemberText(_ key: String, _ value: JSON) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(key.utf8.count + 16)
        writeString(key, into: &bytes)
        bytes.append(UInt8(ascii: ":"))
        value.write(into: &bytes, sortingKeys: true)
        return bytes
    }

    fileprivate static func writeString(_ text: String, prefix: UInt8? = nil, into bytes: inout [UInt8]) {
        JSONStringWriting.appendQuoted(text, prefix: prefix, to: &bytes)
    }
}

/// Writes one JSON object member by member, straight to bytes: for an object assembled from
/// several dictionaries, which would otherwise be merged into a new one only to be written.
struct JSONObjectWriter {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]

    init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
    }

    /// Adds `key` (after `prefix`, e.g. `$`) and `value`; the caller keeps keys unique.
    mutating func add(_ key: String, prefix: UInt8? = nil, _ value: JSON) {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        JSON.writeString(key, prefix: prefix, into: &bytes)
        bytes.append(UInt8(ascii: ":"))
        value.write(into: &bytes)
    }

    /// Adds a member already written as `"key":value`.
    mutating func add(written member: [UInt8]) {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        bytes.append(contentsOf: member)
    }

    consuming func finish() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }
}
