import Foundation

/// The params of SuperwallKit's transaction events (`transaction_start` to
/// `transaction_timeout`) for one purchase of `product`, from `paywall` or from the app.
struct TransactionEvents {
    let product: Product
    /// The paywall the purchase was made from; nil for one the app started.
    let paywall: PaywallInfo?
    /// The locale the product's prices are written in.
    let deviceLocale: String
    /// The store's storefront, as the client gave it (`configure.device.storeFrontCountryCode`
    /// and `storeFrontId`); empty, as on a device without one, when it did not.
    let storefront: (countryCode: String, id: String)
    /// For a purchase the app made itself and reported (observer mode), whose SDK's rules name
    /// its source; nil for one made here.
    let observedFor: ReferenceSDK?

    /// The events of a purchase of `product` by a device whose template is `device`.
    init(product: Product, paywall: PaywallInfo?, device: [String: JSON], observedFor: ReferenceSDK? = nil) {
        self.product = product
        self.paywall = paywall
        deviceLocale = device["deviceLocale"]?.stringValue ?? "en_US"
        storefront = (device["storeFrontCountryCode"]?.stringValue ?? "", device["storeFrontId"]?.stringValue ?? "")
        self.observedFor = observedFor
    }

    var isObserved: Bool { observedFor != nil }

    /// What the events carry in their custom params: the paywall's audience filter params.
    var customParameters: [String: JSON] { paywall?.audienceFilterParameters ?? [:] }

    /// What the events are about, for the delegate's typed fields.
    var subject: EventSubject { EventSubject(paywallInfo: paywall, product: product) }

    /// What every event of the purchase carries: `store`, `source` (`SUPERWALL` from a paywall,
    /// `APP` otherwise; an observed one is `OBSERVER` on Android, where Superwall-Android names
    /// it, and `APP` in SuperwallKit), the paywall's placement params and the product's
    /// (`productParameters(prefix:at:)`).
    func parameters(at now: Date) -> [String: JSON] {
        var parameters = paywall?.placementParameters ?? [:]
        parameters["store"] = .string(product.storeProduct.store)
        parameters["source"] =
            paywall != nil ? "SUPERWALL" : observedFor == .superwallAndroid ? "OBSERVER" : "APP"
        parameters.merge(productParameters(prefix: "product_", at: now)) { _, product in product }
        return parameters
    }

    /// What `transaction_abandon` adds to the custom params: the product as
    /// `abandoned_product_…`, its id the config's.
    func abandonedParameters(at now: Date) -> [String: JSON] {
        var parameters = productParameters(prefix: "abandoned_product_", at: now)
        parameters["abandoned_product_id"] = .string(product.id)
        return parameters
    }

    /// SuperwallKit's product params: the store's identifier as `<prefix>id` and each of the
    /// product's template variables as `<prefix><snake_case name>`, strings all. A product the
    /// host's store has not described has only its identifier (and the config's trial days).
    func productParameters(prefix: String, at now: Date) -> [String: JSON] {
        let identifier = product.storeProduct.productIdentifier
        var parameters: [String: JSON] = [
            "\(prefix)id": .string(identifier), "\(prefix)identifier": .string(identifier),
        ]
        guard let details = product.storeDetails, details.price != nil else {
            if let days = product.trialPeriodDays { parameters["\(prefix)trial_period_days"] = .string("\(days)") }
            return parameters
        }
        for (name, value) in ProductAttributes(details: details, deviceLocale: deviceLocale, now: now).strings {
            parameters[prefix + snakeCase(name)] = .string(value)
        }
        return parameters
    }

    /// What a completed purchase passes into the page: `transaction_complete`, then
    /// `freeTrial_start` (always, as SuperwallKit sends it, with the trial's end when the
    /// product has an intro offer).
    func pageEventsOfPurchase(at now: Date) -> [(name: String, payload: [String: JSON])] {
        let identifier: [String: JSON] = ["product_identifier": .string(product.storeProduct.productIdentifier)]
        var trial = identifier
        if let details = product.storeDetails,
            let end = ProductAttributes(details: details, deviceLocale: "en_US", now: now).trialEndDate
        {
            trial["trial_end_date"] = .int(Int64((end.timeIntervalSince1970 * 1000).rounded()))
        }
        return [("transaction_complete", identifier), ("freeTrial_start", trial)]
    }

    /// What SuperwallKit adds to `transaction_complete`: the storefront, the user's
    /// attributes, and the transaction as its
    /// `StoreTransaction` encodes it, snake_cased, under the id `id`.
    func completionParameters(
        of transaction: PurchaseTransaction,
        id: UUID,
        userAttributes: [String: JSON],
        configRequestId: String,
        appSessionId: String
    ) -> [String: JSON] {
        var parameters: [String: JSON] = [
            "transaction_type": .string(product.transactionType),
            "storefront_countryCode": .string(storefront.countryCode), "storefront_id": .string(storefront.id),
            "user_attributes": .object(userAttributes),
        ]
        let purchaseDate: Date
        let transactionId: String
        var expiration: Date?
        switch transaction {
        case .subscription(let subscription):
            (purchaseDate, transactionId, expiration) = (
                subscription.purchaseDate, subscription.transactionId, subscription.expirationDate
            )
            if let group = subscription.subscriptionGroupId { parameters["subscription_group_id"] = .string(group) }
        case .nonSubscription(let purchase):
            (purchaseDate, transactionId) = (purchase.purchaseDate, purchase.transactionId)
        }
        parameters["id"] = .string(id.uuidString)
        parameters["config_request_id"] = .string(configRequestId)
        parameters["app_session_id"] = .string(appSessionId)
        parameters["state"] = "PURCHASED"
        parameters["store_transaction_id"] = .string(transactionId)
        parameters["original_transaction_identifier"] = .string(transactionId)
        parameters["transaction_date"] = .string(ISO8601.storeTransactionDate(purchaseDate))
        parameters["original_transaction_date"] = .string(ISO8601.storeTransactionDate(purchaseDate))
        if let expiration { parameters["expiration_date"] = .string(ISO8601.storeTransactionDate(expiration)) }
        parameters["payment"] = ["product_identifier": .string(product.storeProduct.productIdentifier), "quantity": 1]
        return parameters
    }
}

/// What a transaction's end tells: the events the page hears and the events tracked, in order.
struct TransactionEnding {
    struct Tracked {
        let name: String
        let parameters: [String: JSON]
        let custom: [String: JSON]
    }

    var page: [(name: String, payload: [String: JSON])] = []
    var tracked: [Tracked] = []
}

extension TransactionEvents {
    /// What ending with `result` tells (SuperwallKit's `TransactionManager` from the store's
    /// answer on), from the params the start computed; `completion` is what
    /// `transaction_complete` adds to them (`completionParameters`).
    func ending(
        _ result: PurchaseResult,
        from parameters: [String: JSON],
        completion: [String: JSON],
        at now: Date
    ) -> TransactionEnding {
        var ending = TransactionEnding()
        func tell(_ name: String, _ added: [String: JSON] = [:], custom: [String: JSON]? = nil) {
            ending.page.append((name, [:]))
            ending.tracked.append(
                .init(
                    name: name,
                    parameters: parameters.merging(added) { _, new in new },
                    custom: custom ?? customParameters
                )
            )
        }
        switch result {
        case .purchased:
            ending.page = pageEventsOfPurchase(at: now)
            ending.tracked = [
                .init(
                    name: "transaction_complete",
                    parameters: parameters.merging(completion) { _, new in new },
                    custom: customParameters
                ),
                .init(name: product.purchaseEventName, parameters: parameters, custom: customParameters),
            ]
        case .restored: tell("transaction_restore", ["restore_via_purchase_attempt": true])
        case .cancelled:
            tell(
                "transaction_abandon",
                custom: customParameters.merging(abandonedParameters(at: now)) { _, product in product }
            )
        case .pending: tell("transaction_fail", ["message": "Needs parental approval"])
        case .failed(let message): tell("transaction_fail", ["message": .string(message)])
        case .timedOut: tell("transaction_timeout")
        case .sessionEnded: break
        }
        return ending
    }
}

extension PurchaseTransaction {
    /// The transaction a completed purchase of `product` adds to the history: what the store
    /// reported, completed from the product, `id` when the store gave none. A simulated
    /// subscription lasts one period when the host gave the product's period, else until the
    /// history is reset.
    init(
        completing product: Product,
        reported: TransactionReport?,
        id: @autoclosure () -> String,
        at now: Date,
        simulated: Bool
    ) {
        let purchased = reported?.purchaseDate ?? now
        let id = reported?.transactionId ?? id()
        let store = reported?.store ?? Entitlement.Store(wireName: product.storeProduct.store)
        guard product.isSubscription || reported?.expirationDate != nil else {
            self = .nonSubscription(
                NonSubscriptionTransaction(
                    transactionId: id,
                    productId: product.storeProduct.productIdentifier,
                    purchaseDate: purchased,
                    isConsumable: product.storeDetails?.isConsumable ?? false,
                    store: store
                )
            )
            return
        }
        let simulatedExpiry =
            simulated
            ? product.storeDetails?.period.map { purchased.addingTimeInterval(Double($0.days) * 86_400) } : nil
        self = .subscription(
            SubscriptionTransaction(
                transactionId: id,
                productId: product.storeProduct.productIdentifier,
                purchaseDate: purchased,
                willRenew: reported?.willRenew ?? true,
                isActive: true,
                expirationDate: reported?.expirationDate ?? simulatedExpiry,
                offerType: reported?.offerType ?? (product.trialPeriodDays == nil ? nil : .trial),
                store: store
            )
        )
    }
}
