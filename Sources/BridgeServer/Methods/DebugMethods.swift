import Foundation
import JSONRPC
import Rules
import SuperwallCore

/// `$/ping`, `debug/echo` and the debugging calls: evaluating an expression, explaining a
/// placement, and moving the manual clock.
enum DebugMethods {
    struct Ping: BridgeMethod {
        static let name = "$/ping"

        init(_ context: MethodContext) {}

        func answer(_ parameters: NoParameters) -> Done { Done() }
    }

    /// Answers its params unchanged: the payload benchmark and framing tests use it.
    struct Echo: BridgeMethod {
        static let name = "debug/echo"

        init(_ context: MethodContext) {}

        static func parameters(of request: IncomingRequest) -> JSONValue { request.params ?? .null }

        func answer(_ parameters: JSONValue) -> JSONValue { parameters }
    }

    struct EvaluateExpression: BridgeMethod {
        static let name = "debug/evaluateExpression"

        struct Parameters: Sendable {
            let expression: String
            /// A context given whole; without one, the user's own with `placementParams`.
            let context: EvaluationContext?
            let placementParams: [String: JSON]?
        }

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> Parameters {
            let params = try Params(request)
            let expression = try params.string("expression")
            if let context = try params.optionalJSONObject("context") {
                do throws(ExpressionEvaluation.InvalidContext) {
                    return Parameters(
                        expression: expression,
                        context: try ExpressionEvaluation.context(from: .object(context)),
                        placementParams: nil
                    )
                } catch {
                    throw RPCError.invalidParams("params.\(error.description)", details: ["path": "params.context"])
                }
            }
            return Parameters(
                expression: expression,
                context: nil,
                placementParams: try params.optionalJSONObject("params").map { [String: JSON]($0) }
            )
        }

        func answer(_ parameters: Parameters) async throws -> JSONValue {
            // Any expression may be given: evaluated off the reader, so a slow one stalls nothing.
            if let given = parameters.context {
                return await offTheReader { ExpressionEvaluation.evaluate(parameters.expression, in: given) }
            }
            let context = try await core { try await superwall.audienceContext(params: parameters.placementParams) }
            return await offTheReader { ExpressionEvaluation.evaluate(parameters.expression, in: context) }
        }
    }

    struct ExplainPlacement: BridgeMethod {
        static let name = "debug/explainPlacement"

        struct Parameters: Sendable {
            let placement: String
            let params: [String: JSON]
            let user: [String: JSON]
        }

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> Parameters {
            let params = try Params(request)
            let placement = try ClientLimits.placementName(params)
            let placementParams = try params.optionalJSONObject("params") ?? [:]
            let user = try params.optionalJSONObject("user") ?? [:]
            try ClientLimits.checkAttributes(placementParams, at: "params.params")
            try ClientLimits.checkAttributes(user, at: "params.user")
            return Parameters(placement: placement, params: [String: JSON](placementParams), user: [String: JSON](user))
        }

        func answer(_ parameters: Parameters) async throws -> PlacementExplanation {
            // Explaining evaluates every audience and records every value: off the reader.
            try await offTheReader {
                try await core {
                    try await superwall.explainPlacement(
                        parameters.placement,
                        params: parameters.params,
                        user: parameters.user
                    )
                }
            }
        }
    }

    struct RecentDecisions: BridgeMethod {
        static let name = "debug/recentDecisions"

        struct Answer: WireAnswer {
            let decisions: [PresentationDecision]
            let recordsEveryDecision: Bool

            var wireValue: JSONValue {
                ["decisions": .array(decisions.map(\.jsonValue)), "recordsEveryDecision": .bool(recordsEveryDecision)]
            }
        }

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> Int {
            let kept = PresentationDecision.keptRecently
            let limit = try Params(request).optionalInt("limit") ?? kept
            guard (1...kept).contains(limit) else {
                throw ClientLimits.refuse("params.limit", "must be from 1 to \(kept).", limit: kept)
            }
            return limit
        }

        func answer(_ limit: Int) async -> Answer {
            Answer(
                decisions: await superwall.recentDecisions(limit: limit),
                recordsEveryDecision: superwall.recordsEveryDecision
            )
        }
    }

    struct AdvanceClock: BridgeMethod {
        static let name = "debug/advanceClock"

        struct Answer: WireAnswer {
            let now: Date

            var wireValue: JSONValue {
                [
                    "now": .string(ISO8601.string(from: now)),
                    "nowMs": .int(Int64((now.timeIntervalSince1970 * 1000).rounded())),
                ]
            }
        }

        let superwall: Superwall
        let clock: StoppableClock

        init(_ context: MethodContext) {
            superwall = context.superwall
            clock = context.clock
        }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> Double {
            guard let seconds = try Params(request).optionalDouble("seconds") else {
                throw RPCError.invalidParams("params.seconds is required.", details: ["path": "params.seconds"])
            }
            guard ClientLimits.clockAdvanceSeconds.contains(seconds) else {
                throw ClientLimits.refuse(
                    "params.seconds",
                    "must be from 0 to \(Int(ClientLimits.clockAdvanceSeconds.upperBound)).",
                    limit: Int(ClientLimits.clockAdvanceSeconds.upperBound)
                )
            }
            return seconds
        }

        func answer(_ seconds: Double) async throws -> Answer {
            guard let now = clock.advance(by: seconds) else {
                throw RPCError(
                    code: -32600,
                    message:
                        "The clock is the system's: debug/advanceClock needs configure's options.clock: \"manual\".",
                    kind: "clockNotManual",
                    details: [:]
                )
            }
            try await core { try await superwall.clockDidAdvance() }
            return Answer(now: now)
        }
    }
}

extension DebugMethods {
    /// Gives the user a chosen variant, as a server assignment would: for tests of one branch
    /// of an experiment.
    struct OverrideAssignment: BridgeMethod {
        static let name = "debug/overrideAssignment"

        struct Parameters: Sendable {
            let experimentId: String
            let variantId: String
        }

        struct Answer: WireAnswer {
            let assignment: Store.Assignment

            var wireValue: JSONValue { ["assignment": assignment.wireValue] }
        }

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> Parameters {
            let params = try Params(request)
            let experimentId = try params.string("experimentId")
            let variantId = try params.string("variantId")
            try ClientLimits.check(experimentId, at: "params.experimentId", atMost: ClientLimits.nameBytes)
            try ClientLimits.check(variantId, at: "params.variantId", atMost: ClientLimits.nameBytes)
            return Parameters(experimentId: experimentId, variantId: variantId)
        }

        func answer(_ parameters: Parameters) async throws -> Answer {
            Answer(
                assignment: try await core {
                    try await superwall.overrideAssignment(
                        experimentId: parameters.experimentId,
                        variantId: parameters.variantId
                    )
                }
            )
        }
    }
}

extension PlacementExplanation: WireAnswer {
    var wireValue: JSONValue { jsonValue }
}

extension MethodTable {
    mutating func registerDebugMethods(_ context: MethodContext) {
        register(DebugMethods.Ping.self, context)
        register(DebugMethods.Echo.self, context)
        register(DebugMethods.EvaluateExpression.self, context)
        register(DebugMethods.ExplainPlacement.self, context)
        register(DebugMethods.RecentDecisions.self, context)
        register(DebugMethods.AdvanceClock.self, context)
        register(DebugMethods.OverrideAssignment.self, context)
    }
}
