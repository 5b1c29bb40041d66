import JSONRPC
import SuperwallCore

/// The client-to-bridge methods this build answers, each a `BridgeMethod`, by name.
struct MethodTable: Sendable {
    typealias Handler = @Sendable (IncomingRequest) async throws -> JSONValue

    private(set) var handlers: [String: Handler] = [:]
    /// Keeps calls entering the SDK in the order they were sent.
    let entryOrder: EntryOrder

    /// Names reported by `initialize`, including the lifecycle methods.
    var advertised: [String] {
        (["initialize", "shutdown"] + handlers.keys).sorted()
    }

    init(_ context: MethodContext) {
        entryOrder = context.entryOrder
        registerDebugMethods(context)
        registerConfigurationMethods(context)
        registerIdentityMethods(context)
        registerPresentationMethods(context)
        registerPaywallPageMethods(context)
        registerPurchaseMethods(context)
        registerObserverModeMethods(context)
        registerEventMethods(context)
    }

    subscript(name: String) -> Handler? { handlers[name] }

    /// Generic over the method so that each handler is specialised for its types.
    mutating func register<Method: BridgeMethod>(_: Method.Type, _ context: MethodContext) {
        precondition(handlers[Method.name] == nil, "\(Method.name) is registered twice")
        let method = Method(context)
        handlers[Method.name] = { request in
            try await method.answer(Method.parameters(of: request)).wireValue
        }
    }

    static func notImplemented(_ method: String) -> RPCError {
        RPCError(
            code: -32601,
            message:
                "Method not implemented yet: \(method) is part of the protocol but this build does not provide it.",
            kind: "notImplemented",
            details: ["method": .string(method)]
        )
    }
}
