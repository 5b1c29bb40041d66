import OrderedCollections

/// A JSON-RPC error object: `{code, message, data}`.
///
/// Every error this layer produces carries `data.kind`, a stable camelCase name that clients
/// can switch on without parsing the message.
public struct RPCError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: Int
    public var message: String
    public var data: JSONValue?

    public init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = Self.bounded(message)
        self.data = data
    }

    /// The longest message sent, in UTF-8 bytes: a message quoting a client's input (or a
    /// library's error) must not grow with it.
    public static let maximumMessageBytes = 1_024

    static func bounded(_ message: String) -> String {
        guard message.utf8.count > maximumMessageBytes else { return message }
        var kept = ""
        for character in message {
            guard kept.utf8.count + character.utf8.count <= maximumMessageBytes - 4 else { break }
            kept.append(character)
        }
        return kept + " …"
    }

    /// An error whose `data` is `{"kind": kind, ...details}`.
    public init(code: Int, message: String, kind: String, details: JSONObject = [:]) {
        var data: JSONObject = ["kind": .string(kind)]
        data.merge(details, uniquingKeysWith: { _, detail in detail })
        self.init(code: code, message: message, data: .object(data))
    }

    /// `data.kind`, when the error has one.
    public var kind: String? { data?["kind"]?.stringValue }

    public var description: String { "\(message) (\(code)\(kind.map { ", \($0)" } ?? ""))" }

    public var jsonValue: JSONValue {
        var object: JSONObject = ["code": .int(Int64(code)), "message": .string(message)]
        if let data { object["data"] = data }
        return .object(object)
    }
}

extension RPCError {
    public static func parseError(_ detail: String) -> RPCError {
        RPCError(code: -32700, message: "Parse error: \(detail)", kind: "parseError")
    }

    public static func invalidRequest(_ detail: String, kind: String = "invalidRequest") -> RPCError {
        RPCError(code: -32600, message: "Invalid request: \(detail)", kind: kind)
    }

    public static func methodNotFound(_ method: String) -> RPCError {
        RPCError(
            code: -32601,
            message: "Method not found: \(method)",
            kind: "methodNotFound",
            details: ["method": .string(method)]
        )
    }

    public static func invalidParams(_ detail: String, details: JSONObject = [:]) -> RPCError {
        RPCError(code: -32602, message: "Invalid params: \(detail)", kind: "invalidParams", details: details)
    }

    public static func internalError(_ detail: String) -> RPCError {
        RPCError(code: -32603, message: "Internal error: \(detail)", kind: "internalError")
    }

    /// An unexpected error in its own words, never its debug description (type names, Swift
    /// internals): an error without a description of its own is "an unexpected error".
    public static func internalError(describing error: any Error) -> RPCError {
        internalError((error as? any CustomStringConvertible)?.description ?? "an unexpected error")
    }

    public static let notInitialized = RPCError(
        code: -32002,
        message: "Server not initialized: send initialize first.",
        kind: "notInitialized"
    )

    public static let requestCancelled = RPCError(code: -32800, message: "Request cancelled.", kind: "requestCancelled")

    /// A request to the client that could not complete because the client went away.
    public static let connectionClosed = RPCError(
        code: -32800,
        message: "Request cancelled: the connection closed before a reply came.",
        kind: "connectionClosed"
    )

    /// A request to the client that could not complete because the client asked for shutdown.
    public static let shutDown = RPCError(
        code: -32800,
        message: "Request cancelled: the server is shutting down.",
        kind: "shutDown"
    )

    public static func requestTimeout(method: String, after timeout: Duration) -> RPCError {
        RPCError(
            code: -32003,
            message: "Request timed out: no reply to \(method) within \(timeout.milliseconds) ms.",
            kind: "requestTimeout",
            details: ["method": .string(method), "timeoutMs": .int(timeout.milliseconds)]
        )
    }

    /// A reply from the client that is not a valid JSON-RPC response.
    public static func malformedResponse(_ detail: String) -> RPCError {
        RPCError(code: -32603, message: "Malformed response: \(detail)", kind: "malformedResponse")
    }
}

extension Duration {
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
