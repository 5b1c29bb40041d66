import Foundation
import JSONRPC
import SuperwallCore

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

    /// A nested value that must be an object; `path` names it in errors.
    public init(_ value: JSONValue, path: String) throws(RPCError) {
        guard case .object(let fields) = value else {
            throw RPCError.invalidParams(
                "\(path) must be an object, not \(value.typeName).",
                details: ["path": .string(path)]
            )
        }
        self.init(fields: fields, path: path)
    }

    /// Whether `key` is present, `null` included.
    public func has(_ key: String) -> Bool {
        fields[key] != nil
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

    public func bool(_ key: String) throws(RPCError) -> Bool {
        guard let value = try optionalBool(key) else { throw missing(key, "a boolean") }
        return value
    }

    /// A member that must be present, though `null` is one of its values.
    public func requirePresent(_ key: String, _ expected: String) throws(RPCError) {
        guard fields[key] != nil else { throw missing(key, expected) }
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
            guard let number = value.int64Value, let int = Int(exactly: number) else {
                throw wrongType(key, "an integer", value)
            }
            return int
        }
    }

    public func optionalDouble(_ key: String) throws(RPCError) -> Double? {
        switch fields[key] {
        case nil, .null?: return nil
        case let value?:
            guard let number = value.doubleValue else { throw wrongType(key, "a number", value) }
            return number
        }
    }

    /// A date as an ISO-8601 string or milliseconds since 1970.
    public func optionalDate(_ key: String) throws(RPCError) -> Date? {
        switch fields[key] {
        case nil, .null?: return nil
        case .string(let text)?:
            guard let date = ISO8601.date(from: text) else { throw wrongType(key, "an ISO-8601 date", .string(text)) }
            return date
        case let value?:
            guard let milliseconds = value.doubleValue else {
                throw wrongType(key, "an ISO-8601 date or milliseconds since 1970", value)
            }
            return Date(timeIntervalSince1970: milliseconds / 1000)
        }
    }

    /// One of `choices`, by name.
    public func optionalChoice<Choice>(_ key: String, _ choices: [String: Choice]) throws(RPCError) -> Choice? {
        guard let name = try optionalString(key) else { return nil }
        guard let choice = choices[name] else {
            throw RPCError.invalidParams(
                "\(path(of: key)) must be one of \(choices.keys.sorted().joined(separator: ", ")), not \"\(name)\".",
                details: ["path": .string(path(of: key))]
            )
        }
        return choice
    }

    public func optionalStrings(_ key: String) throws(RPCError) -> [String]? {
        guard let elements = try optionalArray(key) else { return nil }
        var strings: [String] = []
        for (index, element) in elements.enumerated() {
            guard case .string(let text) = element else {
                throw RPCError.invalidParams(
                    "\(path(of: key))[\(index)] must be a string, not \(element.typeName).",
                    details: ["path": .string("\(path(of: key))[\(index)]")]
                )
            }
            strings.append(text)
        }
        return strings
    }

    /// An array of objects, each readable with its own path.
    public func optionalObjects(_ key: String) throws(RPCError) -> [Params]? {
        guard let elements = try optionalArray(key) else { return nil }
        var objects: [Params] = []
        for (index, element) in elements.enumerated() {
            objects.append(try Params(element, path: "\(path(of: key))[\(index)]"))
        }
        return objects
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

    /// A member that may be an object or a string holding one (a page's posted message).
    public func objectOrString(_ key: String) throws(RPCError) -> JSONValue {
        switch fields[key] {
        case .object?, .string?: return fields[key]!
        case nil, .null?: throw missing(key, "an object or a string")
        case let other?: throw wrongType(key, "an object or a string", other)
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
        .invalidParams(
            "\(path).\(key) is required and must be \(expected).",
            details: ["path": .string("\(path).\(key)")]
        )
    }

    private func wrongType(_ key: String, _ expected: String, _ value: JSONValue) -> RPCError {
        .invalidParams(
            "\(path).\(key) must be \(expected), not \(value.typeName).",
            details: ["path": .string("\(path).\(key)")]
        )
    }
}
