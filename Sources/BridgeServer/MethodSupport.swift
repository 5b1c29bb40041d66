import Deadlines
import JSONRPC
import Logging
import Rules
import SuperwallCore

/// The answer of the calls that answer attributes.
func attributes(_ values: [String: JSON]) -> JSONValue {
    ["attributes": .object(JSONValue.sortedObject(values))]
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

/// `register`'s params, read apart from the call: inlined into it, every value the reading
/// builds had a place in the call's frame, which the task allocates (a heap slab of its own).
struct RegisterCall {
    let placement: String
    let params: [String: JSON]
    let hasFeature: Bool
    let handler: ClientPresentationHandler

    @inline(never)
    init(_ request: IncomingRequest, host: ClientHost) throws(RPCError) {
        let params = try Params(request)
        placement = try ClientLimits.placementName(params)
        self.params = [String: JSON](try params.optionalJSONObject("params") ?? [:])
        hasFeature = try params.optionalBool("hasFeature") ?? false
        handler = ClientPresentationHandler(host: host, registerId: request.id.value)
    }

    func run(on superwall: Superwall) async throws(RPCError) -> JSONValue {
        try await core {
            try await superwall.register(placement: placement, params: params, hasFeature: hasFeature, handler: handler)
        }.wireValue
    }
}

/// `params.attributes`, within `ClientLimits`.
func checkedAttributes(_ params: Params) throws(RPCError) -> JSONObject {
    let attributes = try params.jsonObject("attributes")
    try ClientLimits.checkAttributes(attributes, at: params.path(of: "attributes"))
    return attributes
}
