import JSONRPC
import SuperwallCore

/// What the client reports from a presented paywall: the user's actions, the page's messages
/// and how its load ended.
enum PaywallPageMethods {
    struct Action: BridgeMethod {
        static let name = "paywall/action"

        struct Parameters: Sendable {
            let sessionId: String
            let action: PaywallAction
        }

        /// What the action led to, in the shape of its kind; `{}` for one that answers nothing.
        struct Answer: WireAnswer {
            let result: PaywallActionResult?
            /// For a restore: whether the paywall it was made from is gone.
            let paywallClosed: Bool

            var wireValue: JSONValue {
                switch result {
                case nil: return [:]
                case .callback(let result)?:
                    return [
                        "status": .string(result.status.rawValue),
                        "data": result.data.map { .object(JSONValue.sortedObject($0)) } ?? .null,
                    ]
                case .purchase(let result)?: return ["result": result.wireValue]
                case .restore(let result, let kept)?:
                    return [
                        "result": result.wireValue, "paywallClosed": .bool(paywallClosed),
                        "paywallKept": kept?.wireValue ?? .null,
                    ]
                }
            }
        }

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> Parameters {
            let params = try Params(request)
            let sessionId = try params.string("sessionId")
            guard let fields = try params.optionalObject("action") else {
                throw RPCError.invalidParams(
                    "params.action is required and must be an object.",
                    details: ["path": "params.action"]
                )
            }
            return Parameters(sessionId: sessionId, action: try PaywallActionRequest.action(fields))
        }

        func answer(_ parameters: Parameters) async throws -> Answer {
            let result = try await core {
                try await superwall.perform(parameters.action, inSession: parameters.sessionId)
            }
            guard case .restore? = result else { return Answer(result: result, paywallClosed: false) }
            return Answer(result: result, paywallClosed: await superwall.openSessionId != parameters.sessionId)
        }
    }

    struct PageMessage: BridgeMethod {
        static let name = "paywall/pageMessage"

        struct Parameters: Sendable {
            let sessionId: String
            let message: JSON
        }

        /// How many events the message held.
        struct Answer: WireAnswer {
            let events: Int

            var wireValue: JSONValue { ["events": .int(Int64(events))] }
        }

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> Parameters {
            let params = try Params(request)
            return Parameters(
                sessionId: try params.string("sessionId"),
                message: JSON(try params.objectOrString("message"))
            )
        }

        func answer(_ parameters: Parameters) async throws -> Answer {
            Answer(
                events: try await core {
                    try await superwall.handlePageMessage(parameters.message, inSession: parameters.sessionId)
                }
            )
        }
    }

    struct PageLoad: BridgeMethod {
        static let name = "paywall/pageLoad"

        struct Parameters: Sendable {
            let sessionId: String
            let outcome: PageLoadOutcome
        }

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> Parameters {
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
            return Parameters(sessionId: sessionId, outcome: outcome)
        }

        func answer(_ parameters: Parameters) async throws -> PageLoadInstruction {
            try await core { try await superwall.pageLoadDidEnd(parameters.outcome, inSession: parameters.sessionId) }
        }
    }
}

extension PageLoadInstruction: WireAnswer {}

extension MethodTable {
    mutating func registerPaywallPageMethods(_ context: MethodContext) {
        register(PaywallPageMethods.Action.self, context)
        register(PaywallPageMethods.PageMessage.self, context)
        register(PaywallPageMethods.PageLoad.self, context)
    }
}
