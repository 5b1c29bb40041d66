import JSONRPC
import SuperwallCore

/// Placements and the paywalls they present: `register`, its dry runs, the paywall on screen,
/// preloading and assignments.
enum PresentationMethods {
    /// A placement and its params, as `register`, `getPresentationResult` and `getPaywall` read them.
    struct PlacementParameters: Sendable {
        let placement: String
        let params: [String: JSON]
        /// `explain`: whether the answer carries the decision record; nil follows the
        /// session's `options.recordDecisions`.
        let explain: Bool?

        init(_ params: Params) throws(RPCError) {
            placement = try ClientLimits.placementName(params)
            self.params = [String: JSON](try params.optionalJSONObject("params") ?? [:])
            explain = try params.optionalBool("explain")
        }

        /// Where the call's decision record goes: the core hands it over when the call asked
        /// for it, or when the session records every decision and the call did not refuse it.
        var decisionReceiver: DecisionReceiver? {
            explain == false ? nil : DecisionReceiver(explain: explain)
        }
    }

    struct Register: BridgeMethod {
        static let name = "register"

        struct Parameters: Sendable {
            let placement: PlacementParameters
            let hasFeature: Bool
            /// The request's id, which the client's presentation handler names.
            let requestId: RequestID
        }

        let superwall: Superwall
        let host: ClientHost

        init(_ context: MethodContext) {
            superwall = context.superwall
            host = context.host
        }

        /// Kept out of line: inlined into the handler, every value the reading builds had a
        /// place in the handler's async frame, which the task allocates (a heap slab of its own).
        @inline(never)
        static func parameters(of request: IncomingRequest) throws(RPCError) -> Parameters {
            let params = try Params(request)
            return Parameters(
                placement: try PlacementParameters(params),
                hasFeature: try params.optionalBool("hasFeature") ?? false,
                requestId: request.id
            )
        }

        /// Inlined into the handler: out of line, its entry is one more hop to the executor
        /// for nonisolated code, a few hundred instructions on every call.
        @inline(__always)
        func answer(_ parameters: Parameters) async throws -> DecidedAnswer<PresentationOutcome> {
            let handler = ClientPresentationHandler(host: host, registerId: parameters.requestId.value)
            let receiver = parameters.placement.decisionReceiver
            let outcome = try await core {
                try await superwall.register(
                    placement: parameters.placement.placement,
                    params: parameters.placement.params,
                    hasFeature: parameters.hasFeature,
                    handler: handler,
                    decision: receiver
                )
            }
            return DecidedAnswer(answer: outcome, receiver: receiver)
        }
    }

    struct GetPresentationResult: BridgeMethod {
        static let name = "getPresentationResult"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> PlacementParameters {
            try PlacementParameters(Params(request))
        }

        /// Inlined into the handler: out of line, its entry is one more hop to the executor
        /// for nonisolated code, a few hundred instructions on every call.
        @inline(__always)
        func answer(_ parameters: PlacementParameters) async throws -> DecidedAnswer<PresentationResult> {
            let receiver = parameters.decisionReceiver
            let result = try await core {
                try await superwall.presentationResult(
                    for: parameters.placement,
                    params: parameters.params,
                    decision: receiver
                )
            }
            return DecidedAnswer(answer: result, receiver: receiver)
        }
    }

    struct GetPaywall: BridgeMethod {
        static let name = "getPaywall"

        struct Parameters: Sendable {
            let placement: PlacementParameters
            let overrides: PaywallOverrides?
            let requestId: RequestID
        }

        let superwall: Superwall
        let host: ClientHost

        init(_ context: MethodContext) {
            superwall = context.superwall
            host = context.host
        }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> Parameters {
            let params = try Params(request)
            return Parameters(
                placement: try PlacementParameters(params),
                overrides: try params.optionalObject("overrides").map(PaywallOverrides.init),
                requestId: request.id
            )
        }

        /// Inlined into the handler: out of line, its entry is one more hop to the executor
        /// for nonisolated code, a few hundred instructions on every call.
        @inline(__always)
        func answer(_ parameters: Parameters) async throws -> DecidedAnswer<PaywallPresentation> {
            let handler = ClientPresentationHandler(host: host, registerId: parameters.requestId.value)
            let receiver = parameters.placement.decisionReceiver
            do {
                let presentation = try await core {
                    try await superwall.getPaywall(
                        placement: parameters.placement.placement,
                        params: parameters.placement.params,
                        overrides: parameters.overrides,
                        handler: handler,
                        decision: receiver
                    )
                }
                return DecidedAnswer(answer: presentation, receiver: receiver)
            } catch {
                // A skip or a failure is an error: the decision that led to it goes in its data.
                throw error.adding(receiver?.decision)
            }
        }
    }

    struct Dismiss: BridgeMethod {
        static let name = "dismiss"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        /// `forNextPaywall`: Android's `dismissForNextPaywall()`.
        static func parameters(of request: IncomingRequest) throws(RPCError) -> Bool {
            try Params(request).optionalBool("forNextPaywall") ?? false
        }

        func answer(_ forNextPaywall: Bool) async throws -> Done {
            try await core { try await superwall.dismiss(forNextPaywall: forNextPaywall) }
            return Done()
        }
    }

    /// Superwall-Android's `openRestoreOnWeb()`: `{url}`, the config's web restore page
    /// (`web2app_config.restore_access_url`) for the host to open, as Android opens it in a
    /// browser; null, with `reason`, when the config has none.
    struct OpenRestoreOnWeb: BridgeMethod {
        static let name = "openRestoreOnWeb"

        struct Answer: WireAnswer {
            let url: String?

            var wireValue: JSONValue {
                guard let url else {
                    return ["url": nil, "reason": "the config has no web2app_config.restore_access_url to restore on"]
                }
                return ["url": .string(url)]
            }
        }

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        func answer(_ parameters: NoParameters) async throws -> Answer {
            guard let config = await superwall.config else { throw SuperwallError.notConfigured.rpcError }
            return Answer(url: config.web2appConfig?.restoreAccessURL)
        }
    }

    struct TogglePaywallSpinner: BridgeMethod {
        static let name = "togglePaywallSpinner"

        /// The paywall's loading state after the toggle; nil when none is presented.
        struct Answer: WireAnswer {
            let state: PageLoadingState?

            var wireValue: JSONValue {
                ["paywallPresented": .bool(state != nil), "loadingState": state.map { .string($0.rawValue) } ?? .null]
            }
        }

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> Bool {
            try Params(request).bool("isHidden")
        }

        func answer(_ isHidden: Bool) async -> Answer {
            Answer(state: await superwall.togglePaywallSpinner(isHidden: isHidden))
        }
    }

    struct IsPaywallPresented: BridgeMethod {
        static let name = "isPaywallPresented"

        struct Answer: WireAnswer {
            let isPaywallPresented: Bool

            var wireValue: JSONValue { ["isPaywallPresented": .bool(isPaywallPresented)] }
        }

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        func answer(_ parameters: NoParameters) async -> Answer {
            Answer(isPaywallPresented: await superwall.isPaywallPresented)
        }
    }

    struct LatestPaywallInfo: BridgeMethod {
        static let name = "latestPaywallInfo"

        struct Answer: WireAnswer {
            let paywallInfo: PaywallInfo?

            var wireValue: JSONValue { ["paywallInfo": paywallInfo?.wireValue ?? .null] }
        }

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        func answer(_ parameters: NoParameters) async -> Answer {
            Answer(paywallInfo: await superwall.latestPaywallInfo)
        }
    }

    /// `{paywalls}`: the identifiers of the paywalls a preload chose, once each is loaded and,
    /// for a client with the `paywallPreloader` capability, warmed (each ask bounded by
    /// `timeouts.pageEffectMs`).
    struct PreloadAnswer: WireAnswer {
        let paywalls: [String]

        var wireValue: JSONValue { ["paywalls": .array(paywalls.map(JSONValue.string))] }
    }

    struct PreloadAllPaywalls: BridgeMethod {
        static let name = "preloadAllPaywalls"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        func answer(_ parameters: NoParameters) async throws -> PreloadAnswer {
            PreloadAnswer(paywalls: try await core { try await superwall.preloadAllPaywalls() })
        }
    }

    struct PreloadPaywalls: BridgeMethod {
        static let name = "preloadPaywalls"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> Set<String> {
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
            return Set(placements)
        }

        func answer(_ placements: Set<String>) async throws -> PreloadAnswer {
            PreloadAnswer(paywalls: try await core { try await superwall.preloadPaywalls(forPlacements: placements) })
        }
    }

    /// `{assignments}`: what `confirmAllAssignments` and `getAssignments` answer.
    struct AssignmentsAnswer: WireAnswer {
        let assignments: [Store.Assignment]

        var wireValue: JSONValue { ["assignments": .array(assignments.map(\.wireValue))] }
    }

    struct ConfirmAllAssignments: BridgeMethod {
        static let name = "confirmAllAssignments"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        func answer(_ parameters: NoParameters) async throws -> AssignmentsAnswer {
            AssignmentsAnswer(assignments: try await core { try await superwall.confirmAllAssignments() })
        }
    }

    struct GetAssignments: BridgeMethod {
        static let name = "getAssignments"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        func answer(_ parameters: NoParameters) async throws -> AssignmentsAnswer {
            AssignmentsAnswer(assignments: try await core { try await superwall.assignments() })
        }
    }
}

extension PresentationOutcome: WireAnswer {}
extension PresentationResult: WireAnswer {}
extension PaywallPresentation: WireAnswer {}

extension MethodTable {
    mutating func registerPresentationMethods(_ context: MethodContext) {
        register(PresentationMethods.Register.self, context)
        register(PresentationMethods.GetPresentationResult.self, context)
        register(PresentationMethods.GetPaywall.self, context)
        register(PresentationMethods.Dismiss.self, context)
        register(PresentationMethods.OpenRestoreOnWeb.self, context)
        register(PresentationMethods.TogglePaywallSpinner.self, context)
        register(PresentationMethods.IsPaywallPresented.self, context)
        register(PresentationMethods.LatestPaywallInfo.self, context)
        register(PresentationMethods.PreloadAllPaywalls.self, context)
        register(PresentationMethods.PreloadPaywalls.self, context)
        register(PresentationMethods.ConfirmAllAssignments.self, context)
        register(PresentationMethods.GetAssignments.self, context)
    }
}
