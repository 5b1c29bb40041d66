import JSONRPC

/// The client-to-bridge methods, and which of them are built.
public enum MethodTable {
    /// Every method of the protocol contract (PROTOCOL.md) apart from the lifecycle ones the
    /// connection answers itself. A method listed here but not in `implemented` answers -32601
    /// with `data.kind: "notImplemented"`, never a made-up success.
    public static let contract: [String] = [
        "configure", "setDelegate", "identify", "reset", "getUserId",
        "setUserAttributes", "getUserAttributes", "setIntegrationAttributes", "getIntegrationAttributes",
        "getDeviceAttributes", "getConfigurationStatus", "register", "getPresentationResult", "getPaywall",
        "paywall/action", "dismiss", "preloadAllPaywalls", "preloadPaywalls", "confirmAllAssignments",
        "getAssignments", "setSubscriptionStatus", "getSubscriptionStatus", "getEntitlements",
        "getEntitlementsByProductIds", "getCustomerInfo", "getProducts", "purchase", "restorePurchases",
        "handleDeepLink", "refreshConfiguration", "setLogLevel", "setLocaleIdentifier", "setInterfaceStyle",
        "debug/evaluateExpression",
    ]

    typealias Method = @Sendable (IncomingRequest, Connection) async throws -> JSONValue

    /// The methods that are built, with their implementations.
    static let implemented: [String: Method] = [
        "$/ping": { _, _ in [:] },
        // Answers its params unchanged: the payload benchmark and framing tests use it.
        "debug/echo": { request, _ in request.params ?? .null },
    ]

    /// Names reported by `initialize`, including the lifecycle methods.
    public static var advertised: [String] {
        (["initialize", "shutdown"] + implemented.keys).sorted()
    }

    static func notImplemented(_ method: String) -> RPCError {
        RPCError(
            code: -32601, message: "Method not implemented yet: \(method) is part of the protocol but this build does not provide it.",
            kind: "notImplemented", details: ["method": .string(method)])
    }
}
