import JSONRPC
import Logging
import SuperwallCore

/// One request of the protocol: its name, its params read into a type, and its answer.
///
/// Modelled on the MCP Swift SDK's `Method`. `MethodTable` registers every one, `initialize`
/// advertises their names, and a test holds those equal to `protocol/openrpc.json`. Params are
/// read by hand through `Params` rather than `Decodable`, so that each refusal names its field
/// the way the protocol documents.
protocol BridgeMethod: Sendable {
    associatedtype Parameters: Sendable = NoParameters
    associatedtype Answer: WireAnswer

    static var name: String { get }

    init(_ context: MethodContext)

    /// Reads and checks the request's params; a refusal answers -32602 naming the field.
    static func parameters(of request: IncomingRequest) throws(RPCError) -> Parameters

    func answer(_ parameters: Parameters) async throws -> Answer
}

/// What a method that takes nothing reads: its params, if any are sent, are ignored.
struct NoParameters: Sendable {}

extension BridgeMethod where Parameters == NoParameters {
    static func parameters(of request: IncomingRequest) -> NoParameters { NoParameters() }
}

/// An answer as the protocol spells it.
protocol WireAnswer {
    var wireValue: JSONValue { get }
}

/// The empty object a method answers when it has nothing to say but that it was done.
struct Done: WireAnswer {
    var wireValue: JSONValue { [:] }
}

/// An answer whose shape is the caller's (`debug/echo`) or a value's (`debug/evaluateExpression`).
extension JSONValue: WireAnswer {
    var wireValue: JSONValue { self }
}

/// `{attributes}`: what the attribute calls answer.
struct AttributesAnswer: WireAnswer {
    let wireValue: JSONValue

    init(attributes: [String: JSON]) {
        wireValue = ["attributes": .object(JSONValue.sortedObject(attributes))]
    }

    /// Attributes the core keeps written (`setUserAttributes`): copied, not written again.
    init(written texts: AttributeTexts) {
        wireValue = ["attributes": .encoded(EncodedJSON(unchecked: texts.objectText))]
    }
}

/// What the methods act on: the SDK, the clock, the client's ports and the process's settings.
struct MethodContext: Sendable {
    let superwall: Superwall
    let clock: StoppableClock
    let delegate: DelegateChannel
    let host: ClientHost
    let logLevel: any LogLevelControl
    let logger: Logger
    let watchConfigFiles: Bool
    let maximumConfigSize: Int
    let httpTransport: any HTTPTransport
    let entryOrder: EntryOrder
    /// The seed of a recorded session's random draws (`ServingSettings.record`), when
    /// `configure` gives none: a replay draws the same.
    let recordSeed: UInt64?
    /// The data directory every `configure` opens, whatever it names
    /// (`ServingSettings.pinnedDataDirectory`).
    let pinnedDataDirectory: String?
}

/// Runs a core call, turning its error into the protocol's.
func core<Result>(_ call: () async throws -> Result) async throws(RPCError) -> Result {
    do {
        return try await call()
    } catch let error as SuperwallError {
        throw error.rpcError
    } catch {
        throw RPCError.internalError(describing: error)
    }
}
