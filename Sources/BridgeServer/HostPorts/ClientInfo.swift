import JSONRPC
import SuperwallCore

/// Who the client said it is at `initialize`, and what it can do.
public struct ClientInfo: Sendable, Equatable {
    public struct Capabilities: Sendable, Equatable {
        /// The client performs purchases and restores (`purchaseController/*` requests).
        public var purchaseController = false
        /// The client renders paywalls (`paywall/present`, `paywall/dismiss`).
        public var paywallPresenter = false
        /// The client answers `handler/onCustomCallback`.
        public var customCallbacks = false
        /// The client wants `delegate/*` notifications.
        public var delegate = false
        /// The client warms web views for paywalls before they show (`paywall/preload`).
        public var paywallPreloader = false
        /// The client lets the person testing choose test mode's outcomes (`testMode/*`).
        public var testModeUI = false

        public init() {}
    }

    public var protocolVersion: String
    public var clientName: String
    public var clientVersion: String?
    public var capabilities: Capabilities
    /// Capabilities the client declared that this bridge does not know: a misspelt one would
    /// otherwise leave the capability off without a word.
    var warnings: [ConfigureKeys.Warning] = []

    init(initializeParams params: Params) throws(RPCError) {
        protocolVersion = try params.string("protocolVersion")
        guard Self.speaks(protocolVersion) else {
            throw RPCError(
                code: -32602,
                message:
                    "This bridge speaks protocol \(BridgeServer.protocolVersion) (any 1.x client works with it), not \(protocolVersion).",
                kind: "unsupportedProtocolVersion",
                details: ["path": "params.protocolVersion", "supported": .string(BridgeServer.protocolVersion)]
            )
        }
        let client = try params.optionalObject("client")
        clientName = try client?.optionalString("name") ?? "unknown"
        clientVersion = try client?.optionalString("version")
        capabilities = Capabilities()
        if let declared = try params.optionalObject("capabilities") {
            capabilities.purchaseController = try declared.optionalBool("purchaseController") ?? false
            capabilities.paywallPresenter = try declared.optionalBool("paywallPresenter") ?? false
            capabilities.customCallbacks = try declared.optionalBool("customCallbacks") ?? false
            capabilities.delegate = try declared.optionalBool("delegate") ?? false
            capabilities.paywallPreloader = try declared.optionalBool("paywallPreloader") ?? false
            capabilities.testModeUI = try declared.optionalBool("testModeUI") ?? false
            for name in declared.members.keys.sorted() where !Self.capabilityNames.contains(name) {
                let path = "params.capabilities.\(name.prefix(64))"
                let suggestion =
                    NearestName.among(Self.capabilityNames, to: name).map { " Did you mean \($0)?" } ?? ""
                warnings.append(
                    ConfigureKeys.Warning(
                        path: path,
                        message: "\(path) is not a capability this bridge knows; it was ignored.\(suggestion)"
                    )
                )
            }
        }
    }

    static let capabilityNames = [
        "purchaseController", "paywallPresenter", "customCallbacks", "delegate", "paywallPreloader", "testModeUI",
    ]

    /// A client of the same major version: minor versions only add methods, fields and
    /// notifications, which a client ignores when it does not know them.
    static func speaks(_ version: String) -> Bool {
        version.split(separator: ".", omittingEmptySubsequences: false).first
            == BridgeServer.protocolVersion.split(separator: ".").first
    }
}
