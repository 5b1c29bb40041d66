/// A request id, as the client wrote it.
///
/// Equality and hashing use the id's value (so `1` and `"1"` are different ids, as the spec
/// requires); `verbatim` keeps the exact bytes for the echo in the reply.
public struct RequestID: Sendable, Hashable, CustomStringConvertible {
    /// A string, a number, or null.
    public let value: JSONValue
    public let verbatim: [UInt8]

    public init(_ value: JSONValue) {
        self.value = value
        self.verbatim = JSONWriter.encode(value)
    }

    init(_ value: JSONValue, verbatim: [UInt8]) {
        self.value = value
        self.verbatim = verbatim
    }

    public static func == (lhs: RequestID, rhs: RequestID) -> Bool { lhs.value == rhs.value }
    public func hash(into hasher: inout Hasher) { hasher.combine(value) }

    public var description: String { String(decoding: verbatim, as: UTF8.self) }

    /// Whether a JSON value can be a request id at all.
    static func isValid(_ value: JSONValue) -> Bool {
        switch value {
        case .string, .int, .uint, .double, .null: return true
        default: return false
        }
    }
}

/// A request from the peer, which must be answered.
public struct IncomingRequest: Sendable {
    public let id: RequestID
    public let method: String
    /// An object or an array, or nil when the request had no `params`.
    public let params: JSONValue?
}

/// A notification from the peer, which is never answered.
public struct IncomingNotification: Sendable {
    public let method: String
    public let params: JSONValue?
}

/// One decoded JSON-RPC message, classified.
enum IncomingMessage: Sendable {
    case request(IncomingRequest)
    case notification(IncomingNotification)
    /// A reply to one of our own requests; a reply that is not a valid response still names
    /// its id when it can, so the waiting caller is resolved rather than left hanging.
    case response(id: RequestID, outcome: Result<JSONValue, RPCError>)
    /// Not a valid message; answered with `error` and the id when one could be read.
    case invalid(id: RequestID?, error: RPCError)

    init(_ message: JSONValue, verbatimID: ArraySlice<UInt8>?) {
        guard case .object(let members) = message else {
            self = .invalid(
                id: nil,
                error: .invalidRequest("a message must be a JSON object, not \(message.typeName).")
            )
            return
        }
        var id: RequestID?
        if let rawID = members["id"] {
            guard RequestID.isValid(rawID) else {
                self = .invalid(
                    id: nil,
                    error: .invalidRequest("id must be a string, a number or null, not \(rawID.typeName).")
                )
                return
            }
            // An id is echoed as the client wrote it, so its text must be JSON: a control
            // byte (a NUL the parser passed over) would put invalid JSON on the wire.
            if let verbatimID, verbatimID.contains(where: { $0 < 0x20 }) {
                self = .invalid(
                    id: nil,
                    error: .invalidRequest("the id is not valid JSON text: it holds a control character.")
                )
                return
            }
            id = Self.requestID(rawID, verbatim: verbatimID)
        }
        guard members["jsonrpc"] == .string("2.0") else {
            self = .invalid(id: id, error: .invalidRequest("\"jsonrpc\" must be exactly \"2.0\"."))
            return
        }
        if let method = members["method"] {
            guard case .string(let name) = method else {
                self = .invalid(id: id, error: .invalidRequest("method must be a string, not \(method.typeName)."))
                return
            }
            // `params: null` reads as absent: the specification forbids it, but pygls and other
            // clients send it for a method without parameters, and most servers take it.
            // (`JSONValue` is `ExpressibleByNilLiteral`: a bare `nil` here would be `.null`.)
            var params = members["params"]
            if params?.isNull == true { params = Optional.none }
            if let params {
                switch params {
                case .object, .array: break
                default:
                    self = .invalid(
                        id: id,
                        error: .invalidRequest("params must be an object or an array, not \(params.typeName).")
                    )
                    return
                }
            }
            if let id {
                self = .request(IncomingRequest(id: id, method: name, params: params))
            } else {
                self = .notification(IncomingNotification(method: name, params: params))
            }
            return
        }
        let result = members["result"]
        let error = members["error"]
        guard result != nil || error != nil else {
            self = .invalid(id: id, error: .invalidRequest("a message needs a method, or a result or an error."))
            return
        }
        guard let id else {
            self = .invalid(id: nil, error: .invalidRequest("a response needs an id."))
            return
        }
        self = .response(id: id, outcome: Self.outcome(result: result, error: error))
    }

    private static func requestID(_ value: JSONValue, verbatim: ArraySlice<UInt8>?) -> RequestID {
        let canonical = RequestID(value)
        guard let verbatim, !verbatim.elementsEqual(canonical.verbatim) else { return canonical }
        // The scanner takes the first "id" member and jansson the last; only trust the text
        // when it reads back as the same value.
        guard (try? JSONDecoding.decode(Array(verbatim))) == value else { return canonical }
        return RequestID(value, verbatim: Array(verbatim))
    }

    private static func outcome(result: JSONValue?, error: JSONValue?) -> Result<JSONValue, RPCError> {
        switch (result, error) {
        case (let result?, nil):
            return .success(result)
        case (nil, let error?):
            guard case .object(let fields) = error,
                let code = fields["code"]?.int64Value, let codeValue = Int(exactly: code),
                case .string(let message)? = fields["message"]
            else {
                return .failure(
                    .malformedResponse("error must be an object with an integer code and a string message.")
                )
            }
            return .failure(RPCError(code: codeValue, message: message, data: fields["data"]))
        default:
            return .failure(.malformedResponse("a response must carry exactly one of result and error."))
        }
    }
}

/// Builds the JSON text of outgoing messages.
enum OutgoingMessage {
    static func response(id: RequestID?, outcome: Result<JSONValue, RPCError>) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("jsonrpc", literal: "2.0")
        if let id { writer.member("id", text: id.verbatim) } else { writer.member("id", .null) }
        switch outcome {
        case .success(let result): writer.member("result", result)
        case .failure(let error): writer.member("error", error.jsonValue)
        }
        writer.endObject()
        return writer.bytes
    }

    static func request(id: String, method: String, params: JSONValue?) -> [UInt8] {
        var message: JSONObject = ["jsonrpc": "2.0", "id": .string(id), "method": .string(method)]
        if let params { message["params"] = params }
        return JSONWriter.encode(.object(message))
    }

    /// A notification whose params are already JSON text (an object).
    static func notification(method: String, encodedParams: [UInt8]) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: encodedParams.count + method.utf8.count + 40)
        writer.beginObject()
        writer.member("jsonrpc", literal: "2.0")
        writer.member("method", .string(method))
        writer.member("params", text: encodedParams)
        writer.endObject()
        return writer.bytes
    }

    static func notification(method: String, params: JSONValue?) -> [UInt8] {
        var message: JSONObject = ["jsonrpc": "2.0", "method": .string(method)]
        if let params { message["params"] = params }
        return JSONWriter.encode(.object(message))
    }
}
