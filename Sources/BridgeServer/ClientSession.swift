import JSONRPC

/// Who the client said it is at `initialize`, and what it can do.
public struct ClientSession: Sendable, Equatable {
    public struct Capabilities: Sendable, Equatable {
        /// The client performs purchases and restores (`purchaseController/*` requests).
        public var purchaseController = false
        /// The client renders paywalls (`paywall/present`, `paywall/dismiss`).
        public var paywallPresenter = false
        /// The client answers `handler/onCustomCallback`.
        public var customCallbacks = false
        /// The client wants `delegate/*` notifications.
        public var delegate = false

        public init() {}
    }

    public var protocolVersion: String
    public var clientName: String
    public var clientVersion: String?
    public var capabilities: Capabilities

    init(initializeParams params: Params) throws(RPCError) {
        protocolVersion = try params.string("protocolVersion")
        let client = try params.optionalObject("client")
        clientName = try client?.optionalString("name") ?? "unknown"
        clientVersion = try client?.optionalString("version")
        capabilities = Capabilities()
        if let declared = try params.optionalObject("capabilities") {
            capabilities.purchaseController = try declared.optionalBool("purchaseController") ?? false
            capabilities.paywallPresenter = try declared.optionalBool("paywallPresenter") ?? false
            capabilities.customCallbacks = try declared.optionalBool("customCallbacks") ?? false
            capabilities.delegate = try declared.optionalBool("delegate") ?? false
        }
    }
}
