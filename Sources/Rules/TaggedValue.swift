/// Values in Superscript's tagged JSON form, `{"type": T, "value": V}`, as the conformance
/// data, `superwall-bridge eval` and `debug/evaluateExpression` use them.
///
/// `T` is `int`, `uint`, `float`, `bool`, `string`, `bytes` (an array of octets), `list`,
/// `map` (string keys), `timestamp` (epoch seconds; a plain int inside the engine, as in
/// Superscript), `function` (`[name, argument]`, the argument a tagged value or null) or `Null`. Results encode durations as `Null`
/// (Superscript does) and timestamps as epoch seconds; non-string map keys are written as text.
extension Value: Codable {
    private enum CodingKeys: String, CodingKey {
        case type, value
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "Null", "null": self = .null
        case "bool": self = .bool(try container.decode(Bool.self, forKey: .value))
        case "int", "timestamp": self = .int(try container.decode(Int64.self, forKey: .value))
        case "uint": self = .uint(try container.decode(UInt64.self, forKey: .value))
        case "float": self = .double(try container.decode(Double.self, forKey: .value))
        case "string": self = .string(try container.decode(String.self, forKey: .value))
        case "bytes": self = .bytes(try container.decode([UInt8].self, forKey: .value))
        case "list": self = .list(try container.decode([Value].self, forKey: .value))
        case "map": self = .map(ValueMap(try container.decode([String: Value].self, forKey: .value)))
        case "function":
            var pair = try container.nestedUnkeyedContainer(forKey: .value)
            let name = try pair.decode(String.self)
            let argument = pair.isAtEnd ? nil : try pair.decodeNil() ? nil : try pair.decode(Value.self)
            self = .function(name, argument: argument)
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type,
                in: container,
                debugDescription: "Unknown value type '\(type)'"
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .null, .duration:
            try container.encode("Null", forKey: .type)
        case .bool(let value):
            try container.encode("bool", forKey: .type)
            try container.encode(value, forKey: .value)
        case .int(let value):
            try container.encode("int", forKey: .type)
            try container.encode(value, forKey: .value)
        case .uint(let value):
            try container.encode("uint", forKey: .type)
            try container.encode(value, forKey: .value)
        case .double(let value):
            try container.encode("float", forKey: .type)
            try container.encode(value, forKey: .value)
        case .string(let value):
            try container.encode("string", forKey: .type)
            try container.encode(value, forKey: .value)
        case .bytes(let value):
            try container.encode("bytes", forKey: .type)
            try container.encode(value, forKey: .value)
        case .list(let value):
            try container.encode("list", forKey: .type)
            try container.encode(value, forKey: .value)
        case .map(let map):
            try container.encode("map", forKey: .type)
            var entries: [String: Value] = [:]
            for (key, value) in map.entries { entries[Printing.keyDescription(key)] = value }
            try container.encode(entries, forKey: .value)
        case .timestamp(let timestamp):
            try container.encode("timestamp", forKey: .type)
            try container.encode(timestamp.seconds, forKey: .value)
        case .function(let name, let argument):
            try container.encode("function", forKey: .type)
            var pair = container.nestedUnkeyedContainer(forKey: .value)
            try pair.encode(name)
            if let argument { try pair.encode(argument) } else { try pair.encodeNil() }
        }
    }
}

extension Value: Equatable {
    /// Structural equality for tests and tools: same kind, same contents (NaN equals NaN).
    /// The language's own `==` is `Operators.equals`, which compares numbers across kinds.
    public static func == (left: Value, right: Value) -> Bool {
        switch (left, right) {
        case (.null, .null): true
        case (.bool(let l), .bool(let r)): l == r
        case (.int(let l), .int(let r)): l == r
        case (.uint(let l), .uint(let r)): l == r
        case (.double(let l), .double(let r)): l == r || (l.isNaN && r.isNaN)
        case (.string(let l), .string(let r)): l == r
        case (.bytes(let l), .bytes(let r)): l == r
        case (.list(let l), .list(let r)): l == r
        case (.map(let l), .map(let r)): l.entries == r.entries
        case (.timestamp(let l), .timestamp(let r)): l == r
        case (.duration(let l), .duration(let r)): l == r
        case (.function(let l, let lArgument), .function(let r, let rArgument)): l == r && lArgument == rArgument
        default: false
        }
    }
}
