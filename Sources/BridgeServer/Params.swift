import JSONRPC

/// Typed access to a request's `params`, failing with -32602 errors that name the field.
public struct Params: Sendable {
    private let fields: JSONObject
    private let path: String

    /// Params must be an object (or absent, which reads as empty).
    public init(_ request: IncomingRequest) throws(RPCError) {
        switch request.params {
        case nil:
            self.init(fields: [:], path: "params")
        case .object(let fields)?:
            self.init(fields: fields, path: "params")
        case let other?:
            throw RPCError.invalidParams("\(request.method) takes named params (an object), not \(other.typeName).")
        }
    }

    private init(fields: JSONObject, path: String) {
        self.fields = fields
        self.path = path
    }

    public func string(_ key: String) throws(RPCError) -> String {
        guard let value = try optionalString(key) else { throw missing(key, "a string") }
        return value
    }

    public func optionalString(_ key: String) throws(RPCError) -> String? {
        switch fields[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        case let other?: throw wrongType(key, "a string", other)
        }
    }

    public func optionalBool(_ key: String) throws(RPCError) -> Bool? {
        switch fields[key] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        case let other?: throw wrongType(key, "a boolean", other)
        }
    }

    public func optionalInt(_ key: String) throws(RPCError) -> Int? {
        switch fields[key] {
        case nil, .null?: return nil
        case let value?:
            guard let number = value.int64Value, let int = Int(exactly: number) else { throw wrongType(key, "an integer", value) }
            return int
        }
    }

    public func optionalObject(_ key: String) throws(RPCError) -> Params? {
        switch fields[key] {
        case nil, .null?: return nil
        case .object(let value)?: return Params(fields: value, path: "\(path).\(key)")
        case let other?: throw wrongType(key, "an object", other)
        }
    }

    public func optionalArray(_ key: String) throws(RPCError) -> [JSONValue]? {
        switch fields[key] {
        case nil, .null?: return nil
        case .array(let value)?: return value
        case let other?: throw wrongType(key, "an array", other)
        }
    }

    /// An object member as raw JSON, for free-form maps (attributes, device facts).
    public func optionalJSONObject(_ key: String) throws(RPCError) -> JSONObject? {
        switch fields[key] {
        case nil, .null?: return nil
        case .object(let value)?: return value
        case let other?: throw wrongType(key, "an object", other)
        }
    }

    public func jsonObject(_ key: String) throws(RPCError) -> JSONObject {
        guard let value = try optionalJSONObject(key) else { throw missing(key, "an object") }
        return value
    }

    /// The path of a member, for errors raised by the caller about its value.
    public func path(of key: String) -> String { "\(path).\(key)" }

    /// All members, as given.
    public var members: JSONObject { fields }

    private func missing(_ key: String, _ expected: String) -> RPCError {
        .invalidParams("\(path).\(key) is required and must be \(expected).", details: ["path": .string("\(path).\(key)")])
    }

    private func wrongType(_ key: String, _ expected: String, _ value: JSONValue) -> RPCError {
        .invalidParams("\(path).\(key) must be \(expected), not \(value.typeName).", details: ["path": .string("\(path).\(key)")])
    }
}
