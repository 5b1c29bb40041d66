import JSONRPC
import SuperwallCore

/// Purchases and restores through the host's controller, the subscription status, entitlements,
/// customer info and products.
enum PurchaseMethods {
    /// `{result}`: what `purchase` and `restorePurchases` answer.
    struct ResultAnswer<Result: WireAnswer>: WireAnswer {
        let result: Result

        var wireValue: JSONValue { ["result": result.wireValue] }
    }

    /// `{status}`: what the subscription status calls answer.
    struct StatusAnswer: WireAnswer {
        let status: SubscriptionStatus

        var wireValue: JSONValue { ["status": status.wireValue] }
    }

    struct Purchase: BridgeMethod {
        static let name = "purchase"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> String {
            try Params(request).string("productId")
        }

        func answer(_ productId: String) async throws -> ResultAnswer<PurchaseResult> {
            ResultAnswer(result: try await core { try await superwall.purchase(productId: productId) })
        }
    }

    struct RestorePurchases: BridgeMethod {
        static let name = "restorePurchases"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        func answer(_ parameters: NoParameters) async throws -> ResultAnswer<RestorationResult> {
            ResultAnswer(result: try await core { try await superwall.restorePurchases() })
        }
    }

    struct SetSubscriptionStatus: BridgeMethod {
        static let name = "setSubscriptionStatus"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        /// `{status: SubscriptionStatus}`; a wrapper's bare name is taken too (`{status: "ACTIVE",
        /// entitlements: ["pro"]}`), its entitlements beside it.
        static func parameters(of request: IncomingRequest) throws(RPCError) -> SubscriptionStatus {
            let params = try Params(request)
            if let name = try? params.optionalString("status") {
                return try SubscriptionStatus(named: name, at: "params.status", entitlements: params)
            }
            guard let fields = try params.optionalObject("status") else {
                throw RPCError.invalidParams(
                    "params.status is required and must be an object.",
                    details: ["path": "params.status"]
                )
            }
            return try SubscriptionStatus(wire: fields)
        }

        func answer(_ status: SubscriptionStatus) async throws -> StatusAnswer {
            StatusAnswer(status: try await core { try await superwall.setSubscriptionStatus(status) })
        }
    }

    struct GetSubscriptionStatus: BridgeMethod {
        static let name = "getSubscriptionStatus"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        func answer(_ parameters: NoParameters) async throws -> StatusAnswer {
            StatusAnswer(status: try await core { try await superwall.subscriptionStatus() })
        }
    }

    struct GetEntitlements: BridgeMethod {
        static let name = "getEntitlements"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        func answer(_ parameters: NoParameters) async throws -> EntitlementsInfo {
            try await core { try await superwall.entitlements() }
        }
    }

    struct GetEntitlementsByProductIds: BridgeMethod {
        static let name = "getEntitlementsByProductIds"

        struct Answer: WireAnswer {
            let entitlements: [Entitlement]

            var wireValue: JSONValue { ["entitlements": .array(entitlements.map(\.wireValue))] }
        }

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> [String] {
            guard let productIds = try Params(request).optionalStrings("productIds") else {
                throw RPCError.invalidParams(
                    "params.productIds is required and must be an array of strings.",
                    details: ["path": "params.productIds"]
                )
            }
            return productIds
        }

        func answer(_ productIds: [String]) async throws -> Answer {
            Answer(entitlements: try await core { try await superwall.entitlements(forProductIds: productIds) })
        }
    }

    struct GetCustomerInfo: BridgeMethod {
        static let name = "getCustomerInfo"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        func answer(_ parameters: NoParameters) async throws -> CustomerInfo {
            try await core { try await superwall.customerInfo() }
        }
    }

    struct GetProducts: BridgeMethod {
        static let name = "getProducts"

        struct Answer: WireAnswer {
            let products: [Product]

            var wireValue: JSONValue { ["products": .array(products.map(\.wireValue))] }
        }

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        /// Nil is every product of the config.
        static func parameters(of request: IncomingRequest) throws(RPCError) -> [String]? {
            try Params(request).optionalStrings("productIds")
        }

        func answer(_ productIds: [String]?) async throws -> Answer {
            Answer(products: try await core { try await superwall.products(named: productIds) })
        }
    }

    /// SuperwallKit's `overrideProductsByName`, set after `configure`: `{productsByName: {primary:
    /// "com.app.annual"}}`, from the next presentation on.
    struct SetOverrideProductsByName: BridgeMethod {
        static let name = "setOverrideProductsByName"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> [String: String] {
            let params = try Params(request)
            try params.requirePresent("productsByName", "an object of product names to product identifiers")
            return try params.productsByName("productsByName")
        }

        func answer(_ overrides: [String: String]) async throws -> Done {
            try await core { try await superwall.setOverrideProductsByName(overrides) }
            return Done()
        }
    }

    /// SuperwallKit's `overrideProductsByName`, as in effect: `{productsByName}`.
    struct GetOverrideProductsByName: BridgeMethod {
        static let name = "getOverrideProductsByName"

        struct Answer: WireAnswer {
            let overrides: [String: String]

            var wireValue: JSONValue {
                [
                    "productsByName": .object(
                        JSONObject(
                            uniqueKeysWithValues: overrides.sorted { $0.key < $1.key }.map {
                                ($0.key, .string($0.value))
                            }
                        )
                    )
                ]
            }
        }

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        func answer(_ parameters: NoParameters) async throws -> Answer {
            Answer(overrides: try await core { try await superwall.overrideProductsByName() })
        }
    }

    struct SetStoreProducts: BridgeMethod {
        static let name = "setStoreProducts"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> [StoreProductDetails] {
            let params = try Params(request)
            guard try params.optionalArray("products") != nil else {
                throw RPCError.invalidParams(
                    "params.products is required and must be an array.",
                    details: ["path": "params.products"]
                )
            }
            return try StoreProductDetails.list(params, key: "products")
        }

        func answer(_ details: [StoreProductDetails]) async throws -> Done {
            try await core { try await superwall.setStoreProducts(details) }
            return Done()
        }
    }
}

extension PurchaseResult: WireAnswer {}
extension RestorationResult: WireAnswer {}
extension EntitlementsInfo: WireAnswer {}
extension CustomerInfo: WireAnswer {}

extension MethodTable {
    mutating func registerPurchaseMethods(_ context: MethodContext) {
        register(PurchaseMethods.Purchase.self, context)
        register(PurchaseMethods.RestorePurchases.self, context)
        register(PurchaseMethods.SetSubscriptionStatus.self, context)
        register(PurchaseMethods.GetSubscriptionStatus.self, context)
        register(PurchaseMethods.GetEntitlements.self, context)
        register(PurchaseMethods.GetEntitlementsByProductIds.self, context)
        register(PurchaseMethods.GetCustomerInfo.self, context)
        register(PurchaseMethods.GetProducts.self, context)
        register(PurchaseMethods.SetStoreProducts.self, context)
        register(PurchaseMethods.SetOverrideProductsByName.self, context)
        register(PurchaseMethods.GetOverrideProductsByName.self, context)
    }
}
