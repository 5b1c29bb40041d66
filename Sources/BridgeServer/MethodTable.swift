import JSONRPC
import Logging
import SuperwallCore

/// The client-to-bridge methods: which the contract names, and the ones this build answers.
public struct MethodTable: Sendable {
    /// Every method of the protocol contract (PROTOCOL.md) apart from the lifecycle ones the
    /// connection answers itself. One listed here but not built answers -32601 with
    /// `data.kind: "notImplemented"`, never a made-up success.
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

    let implemented: [String: Method]

    /// Names reported by `initialize`, including the lifecycle methods.
    public var advertised: [String] {
        (["initialize", "shutdown"] + implemented.keys).sorted()
    }

    init(superwall: Superwall, delegate: DelegateChannel, logLevel: any LogLevelControl) {
        var methods: [String: Method] = [
            "$/ping": { _, _ in [:] },
            // Answers its params unchanged: the payload benchmark and framing tests use it.
            "debug/echo": { request, _ in request.params ?? .null },
            "setDelegate": { request, _ in
                delegate.bind(try Params(request).optionalBool("enabled") ?? true)
                return [:]
            },
            "getConfigurationStatus": { _, _ in ["status": .string(await superwall.configurationStatus.rawValue)] },
        ]
        methods["configure"] = { request, _ in
            let configure = try ConfigureRequest(Params(request))
            let outcome = await superwall.configure(apiKey: configure.apiKey, options: configure.options)
            if let error = outcome.error, case .apiKeyMismatch = error { throw error.rpcError }
            return [
                "configurationStatus": .string(outcome.status.rawValue),
                "userId": outcome.userId.map(JSONValue.string) ?? .null,
                "error": outcome.error?.jsonValue ?? .null,
            ]
        }
        methods["identify"] = { request, _ in
            let params = try Params(request)
            // `restorePaywallAssignments` is accepted; server assignments arrive with the http source.
            _ = try params.optionalObject("options")?.optionalBool("restorePaywallAssignments")
            let userId = try params.string("userId")
            let identity = try await core { try await superwall.identify(userId: userId) }
            return ["userId": .string(identity.userId)]
        }
        methods["reset"] = { _, _ in
            ["userId": .string(try await core { try await superwall.reset() }.userId)]
        }
        methods["getUserId"] = { _, _ in
            let identity = try await core { try await superwall.identity() }
            return [
                "userId": .string(identity.userId), "aliasId": .string(identity.aliasId),
                "appUserId": identity.appUserId.map(JSONValue.string) ?? .null,
                "isLoggedIn": .bool(identity.isLoggedIn), "seed": .int(Int64(identity.seed)),
            ]
        }
        methods["setUserAttributes"] = { request, _ in
            let changes = attributeChanges(try Params(request).jsonObject("attributes"))
            return attributes(try await core { try await superwall.setUserAttributes(changes) })
        }
        methods["getUserAttributes"] = { _, _ in attributes(try await core { try await superwall.userAttributes() }) }
        methods["setIntegrationAttributes"] = { request, _ in
            let changes = attributeChanges(try Params(request).jsonObject("attributes"))
            return attributes(try await core { try await superwall.setIntegrationAttributes(changes) })
        }
        methods["getIntegrationAttributes"] = { _, _ in attributes(try await core { try await superwall.integrationAttributes() }) }
        methods["debug/evaluateExpression"] = { request, _ in
            let params = try Params(request)
            let expression = try params.string("expression")
            if let context = try params.optionalJSONObject("context") {
                do throws(ExpressionEvaluation.InvalidContext) {
                    return ExpressionEvaluation.evaluate(expression, in: try ExpressionEvaluation.context(from: .object(context)))
                } catch {
                    throw RPCError.invalidParams("params.\(error.description)", details: ["path": "params.context"])
                }
            }
            let placementParams = try params.optionalJSONObject("params").map { [String: JSON]($0) }
            let context = try await core { try await superwall.audienceContext(params: placementParams) }
            return ExpressionEvaluation.evaluate(expression, in: context)
        }
        methods["getDeviceAttributes"] = { _, _ in
            guard await superwall.configurationStatus != .pending else { throw SuperwallError.notConfigured.rpcError }
            return attributes(await superwall.deviceAttributes())
        }
        methods["setLogLevel"] = { request, _ in
            let params = try Params(request)
            let name = try params.string("level")
            guard let level = Logger.Level(superwallName: name) else {
                throw RPCError.invalidParams(
                    "params.level must be debug, info, warn, error or none (or trace, notice, warning, critical), not \"\(name)\".",
                    details: ["path": "params.level"])
            }
            logLevel.setLevel(level)
            return [:]
        }
        methods["setLocaleIdentifier"] = { request, _ in
            await superwall.setLocaleIdentifier(try Params(request).optionalString("localeIdentifier"))
            return [:]
        }
        methods["setInterfaceStyle"] = { request, _ in
            let name = try Params(request).optionalString("style")
            switch name?.lowercased() {
            case nil: await superwall.setInterfaceStyle(nil)
            case "light": await superwall.setInterfaceStyle(.light)
            case "dark": await superwall.setInterfaceStyle(.dark)
            default:
                throw RPCError.invalidParams("params.style must be \"light\", \"dark\" or null.", details: ["path": "params.style"])
            }
            return [:]
        }
        implemented = methods
    }

    static func notImplemented(_ method: String) -> RPCError {
        RPCError(
            code: -32601, message: "Method not implemented yet: \(method) is part of the protocol but this build does not provide it.",
            kind: "notImplemented", details: ["method": .string(method)])
    }
}

private func attributes(_ values: [String: JSON]) -> JSONValue {
    ["attributes": .object(JSONValue.sortedObject(values))]
}

/// Runs a core call, turning its error into the protocol's.
private func core<Result>(_ call: () async throws -> Result) async throws(RPCError) -> Result {
    do {
        return try await call()
    } catch let error as SuperwallError {
        throw error.rpcError
    } catch {
        throw RPCError.internalError("\(error)")
    }
}
