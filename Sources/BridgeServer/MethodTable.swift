import Deadlines
import JSONRPC
import Logging
import Rules
import SuperwallCore

/// The client-to-bridge methods: which the contract names, and the ones this build answers.
public struct MethodTable: Sendable {
    /// Every request of the protocol contract (`protocol/openrpc.json`) apart from the lifecycle
    /// ones, which a test holds equal to the spec's. One listed here but not built answers -32601
    /// with `data.kind: "notImplemented"`, never a made-up success.
    public static let contract: [String] = [
        "configure", "setDelegate", "identify", "reset", "getUserId", "getEventQueueStatus", "setStoreProducts",
        "setUserAttributes", "getUserAttributes", "setIntegrationAttributes", "getIntegrationAttributes",
        "getDeviceAttributes", "getConfigurationStatus", "register", "getPresentationResult", "getPaywall",
        "paywall/action", "paywall/pageMessage", "paywall/pageLoad", "dismiss", "togglePaywallSpinner",
        "isPaywallPresented", "latestPaywallInfo", "preloadAllPaywalls", "preloadPaywalls", "confirmAllAssignments",
        "getAssignments", "setSubscriptionStatus", "getSubscriptionStatus", "getEntitlements",
        "getEntitlementsByProductIds", "getCustomerInfo", "getProducts", "purchase", "restorePurchases",
        "handleDeepLink", "refreshConfiguration", "setLogLevel", "setLocaleIdentifier", "setInterfaceStyle",
        "setPlatformWrapper",
        "debug/evaluateExpression", "debug/explainPlacement", "debug/advanceClock",
    ]

    typealias Method = @Sendable (IncomingRequest, Connection) async throws -> JSONValue

    let implemented: [String: Method]
    /// Every call but `configure` itself waits here for a configure sent before it to begin.
    let configureOrder: ConfigureOrder

    /// Names reported by `initialize`, including the lifecycle methods.
    public var advertised: [String] {
        (["initialize", "shutdown"] + implemented.keys).sorted()
    }

    init(
        superwall: Superwall,
        clock: StoppableClock,
        delegate: DelegateChannel,
        host: ClientHost,
        logLevel: any LogLevelControl,
        logger: Logger,
        watchConfigFiles: Bool = false,
        maximumConfigSize: Int = FileConfigSource.defaultMaximumSize
    ) {
        var methods: [String: Method] = [
            "$/ping": { _, _ in [:] },
            // Answers its params unchanged: the payload benchmark and framing tests use it.
            "debug/echo": { request, _ in request.params ?? .null },
            "setDelegate": { request, _ in
                delegate.bind(try Params(request).bool("enabled"))
                return [:]
            },
            "getConfigurationStatus": { _, _ in ["status": .string(await superwall.configurationStatus.rawValue)] },
        ]
        let order = ConfigureOrder()
        methods["configure"] = { request, _ in
            let starting = order.announce()
            defer { order.started(starting) }
            let configure = try ConfigureRequest(
                Params(request),
                capabilities: host.capabilities,
                watchFiles: watchConfigFiles,
                maximumConfigSize: maximumConfigSize
            )
            if let level = configure.logLevel { logLevel.setLevel(level) }
            if let locale = configure.localeIdentifier { await superwall.setLocaleIdentifier(locale) }
            if configure.usesManualClock { clock.stop() }
            for warning in configure.warnings { logger.warning("configure: \(warning.message)") }
            let outcome = await offTheReader {
                await superwall.configure(apiKey: configure.apiKey, options: configure.options) {
                    order.started(starting)
                }
            }
            if let error = outcome.error, case .apiKeyMismatch = error { throw error.rpcError }
            return [
                "configurationStatus": .string(outcome.status.rawValue),
                "userId": outcome.userId.map(JSONValue.string) ?? .null,
                "error": outcome.error?.jsonValue ?? .null,
                "warnings": .array(
                    configure.warnings.map(\.jsonValue)
                        + outcome.storeProblems.map { problem in
                            ConfigureKeys.Warning(path: "options.dataDirectory", message: problem).jsonValue
                        }
                ),
                "testMode": [
                    "active": .bool(outcome.testMode != nil),
                    "reason": outcome.testMode.map { .string($0.kind) } ?? .null,
                    "message": outcome.testMode.map { .string($0.message) } ?? .null,
                ],
                "dataDirectory": outcome.dataDirectory.map(JSONValue.string) ?? .null,
            ]
        }
        methods["getEventQueueStatus"] = { _, _ in
            let status = try await core { try await superwall.eventQueueStatus() }
            return ["waiting": .int(Int64(status.waiting)), "dropped": .int(Int64(status.dropped))]
        }
        methods["refreshConfiguration"] = { _, _ in
            try await offTheReader { try await core { try await superwall.refreshConfiguration() } }.wireValue
        }
        // Allowed before `configure`: the link is kept and routed once the config is ready.
        methods["handleDeepLink"] = { request, _ in
            let url = try Params(request).string("url")
            let handled = await superwall.handleDeepLink(url)
            guard !handled, let reason = DeepLink(url)?.unhandledReason else { return ["handled": .bool(handled)] }
            return ["handled": false, "reason": .string(reason)]
        }
        methods["identify"] = { request, _ in
            let params = try Params(request)
            // Server assignments come with the http source; others keep none.
            let restore = try params.optionalObject("options")?.optionalBool("restorePaywallAssignments") ?? false
            let userId = try params.string("userId")
            try ClientLimits.check(userId, at: "params.userId", atMost: ClientLimits.userIdBytes)
            let identity = try await core {
                try await superwall.identify(userId: userId, restorePaywallAssignments: restore)
            }
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
            let changes = attributeChanges(try checkedAttributes(Params(request)))
            return attributes(try await core { try await superwall.setUserAttributes(changes) })
        }
        methods["getUserAttributes"] = { _, _ in attributes(try await core { try await superwall.userAttributes() }) }
        methods["setIntegrationAttributes"] = { request, _ in
            let given = try checkedAttributes(Params(request))
            // SuperwallKit takes its own list of services' ids; another key is a typo to report.
            if let unknown = given.keys.sorted().first(where: { !IntegrationAttributes.isKnown($0) }) {
                throw RPCError.invalidParams(
                    "params.attributes.\(unknown.prefix(64)) is not an integration attribute; the keys are \(IntegrationAttributes.names.joined(separator: ", ")).",
                    details: [
                        "path": .string("params.attributes.\(unknown.prefix(64))"),
                        "allowed": .array(IntegrationAttributes.names.map(JSONValue.string)),
                    ]
                )
            }
            let changes = attributeChanges(given)
            return attributes(try await core { try await superwall.setIntegrationAttributes(changes) })
        }
        methods["getIntegrationAttributes"] = { _, _ in
            attributes(try await core { try await superwall.integrationAttributes() })
        }
        methods["debug/explainPlacement"] = { request, _ in
            let params = try Params(request)
            let placement = try ClientLimits.placementName(params)
            let placementParams = try params.optionalJSONObject("params") ?? [:]
            let user = try params.optionalJSONObject("user") ?? [:]
            try ClientLimits.checkAttributes(placementParams, at: "params.params")
            try ClientLimits.checkAttributes(user, at: "params.user")
            // Explaining evaluates every audience and records every value: off the reader.
            return try await offTheReader {
                try await core {
                    try await superwall.explainPlacement(
                        placement,
                        params: [String: JSON](placementParams),
                        user: [String: JSON](user)
                    )
                }.jsonValue
            }
        }
        methods["debug/advanceClock"] = { request, _ in
            let params = try Params(request)
            guard let seconds = try params.optionalDouble("seconds") else {
                throw RPCError.invalidParams("params.seconds is required.", details: ["path": "params.seconds"])
            }
            guard ClientLimits.clockAdvanceSeconds.contains(seconds) else {
                throw ClientLimits.refuse(
                    "params.seconds",
                    "must be from 0 to \(Int(ClientLimits.clockAdvanceSeconds.upperBound)).",
                    limit: Int(ClientLimits.clockAdvanceSeconds.upperBound)
                )
            }
            guard let now = clock.advance(by: seconds) else {
                throw RPCError(
                    code: -32600,
                    message:
                        "The clock is the system's: debug/advanceClock needs configure's options.clock: \"manual\".",
                    kind: "clockNotManual",
                    details: [:]
                )
            }
            await superwall.clockDidAdvance()
            return [
                "now": .string(ISO8601.string(from: now)),
                "nowMs": .int(Int64((now.timeIntervalSince1970 * 1000).rounded())),
            ]
        }
        methods["debug/evaluateExpression"] = { request, _ in
            let params = try Params(request)
            let expression = try params.string("expression")
            if let context = try params.optionalJSONObject("context") {
                let evaluationContext: EvaluationContext
                do throws(ExpressionEvaluation.InvalidContext) {
                    evaluationContext = try ExpressionEvaluation.context(from: .object(context))
                } catch {
                    throw RPCError.invalidParams("params.\(error.description)", details: ["path": "params.context"])
                }
                return await offTheReader { ExpressionEvaluation.evaluate(expression, in: evaluationContext) }
            }
            let placementParams = try params.optionalJSONObject("params").map { [String: JSON]($0) }
            let context = try await core { try await superwall.audienceContext(params: placementParams) }
            // Any expression may be given: evaluated off the reader, so a slow one stalls nothing.
            return await offTheReader { ExpressionEvaluation.evaluate(expression, in: context) }
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
                    details: ["path": "params.level"]
                )
            }
            logLevel.setLevel(level)
            return [:]
        }
        methods["setLocaleIdentifier"] = { request, _ in
            let params = try Params(request)
            try params.requirePresent("localeIdentifier", "a string, or null for the device's locale")
            let identifier = try params.optionalString("localeIdentifier")
            if let identifier {
                try ClientLimits.check(identifier, at: "params.localeIdentifier", atMost: ClientLimits.nameBytes)
            }
            await superwall.setLocaleIdentifier(identifier)
            return [:]
        }
        // Allowed before `configure`, as wrappers say who they are first.
        methods["setPlatformWrapper"] = { request, _ in
            let params = try Params(request)
            let name = try params.string("platformWrapper")
            let version = try params.string("version")
            try ClientLimits.check(name, at: "params.platformWrapper", atMost: ClientLimits.nameBytes)
            try ClientLimits.check(version, at: "params.version", atMost: ClientLimits.nameBytes)
            await superwall.setPlatformWrapper(name, version: version)
            return [:]
        }
        methods["setInterfaceStyle"] = { request, _ in
            let params = try Params(request)
            try params.requirePresent("style", "\"light\", \"dark\", or null for the device's")
            let name = try params.optionalString("style")
            switch name?.lowercased() {
            case nil: await superwall.setInterfaceStyle(nil)
            case "light": await superwall.setInterfaceStyle(.light)
            case "dark": await superwall.setInterfaceStyle(.dark)
            default:
                throw RPCError.invalidParams(
                    "params.style must be \"light\", \"dark\" or null.",
                    details: ["path": "params.style"]
                )
            }
            return [:]
        }
        methods.merge(Self.presentationMethods(superwall: superwall, host: host), uniquingKeysWith: { _, new in new })
        implemented = methods
        configureOrder = order
    }

    /// `register`, `getPresentationResult`, `getPaywall`, the paywall session, assignments
    /// and the subscription status.
    private static func presentationMethods(superwall: Superwall, host: ClientHost) -> [String: Method] {
        var methods: [String: Method] = [:]
        methods["register"] = { request, _ in
            let call = try RegisterCall(request, host: host)
            if superwall.evaluatesSlowRules { return try await offTheReader { try await call.run(on: superwall) } }
            return try await call.run(on: superwall)
        }
        methods["getPresentationResult"] = { request, _ in
            let params = try Params(request)
            let placement = try ClientLimits.placementName(params)
            let placementParams = [String: JSON](try params.optionalJSONObject("params") ?? [:])
            func result() async throws(RPCError) -> JSONValue {
                try await core { try await superwall.presentationResult(for: placement, params: placementParams) }
                    .wireValue
            }
            return superwall.evaluatesSlowRules ? try await offTheReader(result) : try await result()
        }
        methods["getPaywall"] = { request, _ in
            let params = try Params(request)
            let placement = try ClientLimits.placementName(params)
            let placementParams = [String: JSON](try params.optionalJSONObject("params") ?? [:])
            let overrides = try params.optionalObject("overrides").map(PaywallOverrides.init)
            let handler = ClientPresentationHandler(host: host, registerId: request.id.value)
            func paywall() async throws(RPCError) -> JSONValue {
                try await core {
                    try await superwall.getPaywall(
                        placement: placement,
                        params: placementParams,
                        overrides: overrides,
                        handler: handler
                    )
                }.wireValue
            }
            return superwall.evaluatesSlowRules ? try await offTheReader(paywall) : try await paywall()
        }
        methods["paywall/action"] = { request, _ in
            let params = try Params(request)
            let sessionId = try params.string("sessionId")
            guard let fields = try params.optionalObject("action") else {
                throw RPCError.invalidParams(
                    "params.action is required and must be an object.",
                    details: ["path": "params.action"]
                )
            }
            let action = try PaywallActionRequest.action(fields)
            switch try await core({ try await superwall.perform(action, inSession: sessionId) }) {
            case nil: return [:]
            case .callback(let result)?:
                return [
                    "status": .string(result.status.rawValue),
                    "data": result.data.map { .object(JSONValue.sortedObject($0)) } ?? .null,
                ]
            case .purchase(let result)?: return ["result": result.wireValue]
            case .restore(let result, let kept)?:
                return [
                    "result": result.wireValue, "paywallClosed": .bool(await superwall.openSessionId != sessionId),
                    "paywallKept": kept?.wireValue ?? .null,
                ]
            }
        }
        methods["paywall/pageMessage"] = { request, _ in
            let params = try Params(request)
            let sessionId = try params.string("sessionId")
            let message = JSON(try params.objectOrString("message"))
            return [
                "events": .int(
                    Int64(try await core { try await superwall.handlePageMessage(message, inSession: sessionId) })
                )
            ]
        }
        methods["paywall/pageLoad"] = { request, _ in
            let params = try Params(request)
            let sessionId = try params.string("sessionId")
            let outcome: PageLoadOutcome
            switch try params.string("outcome") {
            case "finished": outcome = .finished(httpStatus: try params.optionalInt("httpStatus"))
            case "failed": outcome = .failed(try params.optionalString("reason") ?? "The page failed to load.")
            case "processTerminated": outcome = .processTerminated
            case "exit": outcome = .exit
            default:
                throw RPCError.invalidParams(
                    "params.outcome must be finished, failed, processTerminated or exit.",
                    details: ["path": "params.outcome"]
                )
            }
            return try await core { try await superwall.pageLoadDidEnd(outcome, inSession: sessionId) }.wireValue
        }
        methods["purchase"] = { request, _ in
            let productId = try Params(request).string("productId")
            return ["result": try await core { try await superwall.purchase(productId: productId) }.wireValue]
        }
        methods["restorePurchases"] = { _, _ in
            ["result": try await core { try await superwall.restorePurchases() }.wireValue]
        }
        methods["togglePaywallSpinner"] = { request, _ in
            let isHidden = try Params(request).bool("isHidden")
            let state = await superwall.togglePaywallSpinner(isHidden: isHidden)
            return [
                "paywallPresented": .bool(state != nil), "loadingState": state.map { .string($0.rawValue) } ?? .null,
            ]
        }
        methods["isPaywallPresented"] = { _, _ in ["isPaywallPresented": .bool(await superwall.isPaywallPresented)] }
        methods["latestPaywallInfo"] = { _, _ in ["paywallInfo": await superwall.latestPaywallInfo?.wireValue ?? .null]
        }
        methods["dismiss"] = { _, _ in
            await superwall.dismiss()
            return [:]
        }
        methods["confirmAllAssignments"] = { _, _ in
            ["assignments": .array(try await core { try await superwall.confirmAllAssignments() }.map(\.wireValue))]
        }
        methods["getAssignments"] = { _, _ in
            ["assignments": .array(try await core { try await superwall.assignments() }.map(\.wireValue))]
        }
        methods["setSubscriptionStatus"] = { request, _ in
            let params = try Params(request)
            guard let statusFields = try params.optionalObject("status") else {
                throw RPCError.invalidParams(
                    "params.status is required and must be an object.",
                    details: ["path": "params.status"]
                )
            }
            let status = try SubscriptionStatus(wire: statusFields)
            return ["status": try await core { try await superwall.setSubscriptionStatus(status) }.wireValue]
        }
        methods["getSubscriptionStatus"] = { _, _ in
            ["status": try await core { try await superwall.subscriptionStatus() }.wireValue]
        }
        methods["getEntitlements"] = { _, _ in
            try await core { try await superwall.entitlements() }.wireValue
        }
        // Both answer the paywalls chosen once each is loaded and, for a client with the
        // `paywallPreloader` capability, warmed (each ask bounded by `timeouts.pageEffectMs`).
        methods["preloadAllPaywalls"] = { _, _ in
            ["paywalls": .array(try await core { try await superwall.preloadAllPaywalls() }.map(JSONValue.string))]
        }
        methods["preloadPaywalls"] = { request, _ in
            guard let placements = try Params(request).optionalStrings("placements") else {
                throw RPCError.invalidParams(
                    "params.placements is required and must be an array of strings.",
                    details: ["path": "params.placements"]
                )
            }
            for (index, placement) in placements.enumerated() {
                try ClientLimits.check(
                    placement,
                    at: "params.placements[\(index)]",
                    atMost: ClientLimits.placementNameBytes
                )
            }
            return [
                "paywalls": .array(
                    try await core { try await superwall.preloadPaywalls(forPlacements: Set(placements)) }.map(
                        JSONValue.string
                    )
                )
            ]
        }
        methods["getEntitlementsByProductIds"] = { request, _ in
            let params = try Params(request)
            guard let productIds = try params.optionalStrings("productIds") else {
                throw RPCError.invalidParams(
                    "params.productIds is required and must be an array of strings.",
                    details: ["path": "params.productIds"]
                )
            }
            return [
                "entitlements": .array(
                    try await core { try await superwall.entitlements(forProductIds: productIds) }.map(\.wireValue)
                )
            ]
        }
        methods["getCustomerInfo"] = { _, _ in
            try await core { try await superwall.customerInfo() }.wireValue
        }
        methods["getProducts"] = { request, _ in
            let productIds = try Params(request).optionalStrings("productIds")
            return [
                "products": .array(try await core { try await superwall.products(named: productIds) }.map(\.wireValue))
            ]
        }
        methods["setStoreProducts"] = { request, _ in
            let params = try Params(request)
            guard try params.optionalArray("products") != nil else {
                throw RPCError.invalidParams(
                    "params.products is required and must be an array.",
                    details: ["path": "params.products"]
                )
            }
            let details = try StoreProductDetails.list(params, key: "products")
            try await core { try await superwall.setStoreProducts(details) }
            return [:]
        }
        return methods
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
