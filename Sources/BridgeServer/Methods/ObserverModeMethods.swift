import JSONRPC
import SuperwallCore

/// Observer mode (`configure.options.shouldObservePurchases`): the app reports the purchases
/// it makes through its own store, by Superwall-Android's three calls.
enum ObserverModeMethods {
    /// Superwall-Android's `observePurchaseStart(productDetails)`: `{productId}`.
    struct ObservePurchaseStart: BridgeMethod {
        static let name = "observePurchaseStart"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> String {
            try Params(request).string("productId")
        }

        func answer(_ productId: String) async throws -> Done {
            try await core { try await superwall.observePurchaseStart(productId: productId) }
            return Done()
        }
    }

    /// Superwall-Android's `observePurchaseResult(billingResult, purchases)`: `{productId?,
    /// result}`, the result as a purchase controller answers one (`{type: "purchased" |
    /// "cancelled" | "pending" | "restored" | "failed", error?, transaction?}`) or its type alone.
    struct ObservePurchaseResult: BridgeMethod {
        static let name = "observePurchaseResult"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> (String?, PurchaseAnswer) {
            let params = try Params(request)
            return (try params.optionalString("productId"), try observedAnswer(params))
        }

        func answer(_ parameters: (String?, PurchaseAnswer)) async throws -> Done {
            try await core { try await superwall.observePurchaseEnd(productId: parameters.0, answer: parameters.1) }
            return Done()
        }

        private static let types: [String: PurchaseResult] = [
            "purchased": .purchased, "cancelled": .cancelled, "pending": .pending, "restored": .restored,
            "failed": .failed(""),
        ]

        private static func observedAnswer(_ params: Params) throws(RPCError) -> PurchaseAnswer {
            // A bare type, or a missing result, is read as a string (and refused as one).
            guard let fields = try? params.optionalObject("result") else {
                return PurchaseAnswer(try result(try params.string("result"), error: nil, at: "params.result"))
            }
            // `error` as a controller gives it: a string, or `{message}`.
            let error: String?
            if let described = try? fields.optionalObject("error") {
                error = try described.optionalString("message")
            } else {
                error = try fields.optionalString("error")
            }
            let result = try result(try fields.string("type"), error: error, at: "params.result.type")
            guard result == .purchased, let transaction = try fields.optionalObject("transaction") else {
                return PurchaseAnswer(result)
            }
            return PurchaseAnswer(.purchased, transaction: try TransactionReport(wire: transaction))
        }

        private static func result(_ type: String, error: String?, at path: String) throws(RPCError) -> PurchaseResult {
            guard let result = types[type] else {
                throw RPCError.invalidParams(
                    "\(path) must be purchased, cancelled, pending, restored or failed, not \"\(type.prefix(64))\".",
                    details: ["path": .string(path)]
                )
            }
            guard case .failed = result else { return result }
            return .failed(error ?? "The purchase failed.")
        }
    }

    /// Superwall-Android's `observePurchaseError(productDetails, error)`: `{productId, error}`.
    struct ObservePurchaseError: BridgeMethod {
        static let name = "observePurchaseError"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> (String, String) {
            let params = try Params(request)
            return (try params.string("productId"), try params.optionalString("error") ?? "The purchase failed.")
        }

        func answer(_ parameters: (String, String)) async throws -> Done {
            try await core {
                try await superwall.observePurchaseEnd(
                    productId: parameters.0,
                    answer: PurchaseAnswer(.failed(parameters.1))
                )
            }
            return Done()
        }
    }
}

extension MethodTable {
    mutating func registerObserverModeMethods(_ context: MethodContext) {
        register(ObserverModeMethods.ObservePurchaseStart.self, context)
        register(ObserverModeMethods.ObservePurchaseResult.self, context)
        register(ObserverModeMethods.ObservePurchaseError.self, context)
    }
}
