import Executors
import Foundation

/// Purchases and restores (SuperwallKit's `TransactionManager`): through the host's
/// controller, or simulated in test mode, with SuperwallKit's events and dismissals.
extension Superwall {
    // MARK: Entry points

    /// A paywall's `purchase` action; `dismissing` false keeps the paywall up after a purchase
    /// (the page's `should_dismiss`).
    func purchase(
        productId: String,
        from paywall: PresentedPaywall,
        dismissing: Bool = true
    ) async throws(SuperwallError) -> PurchaseResult {
        let purchaser = try purchaser()
        guard let product = session?.product(withId: productId, on: paywall.paywall) else {
            // SuperwallKit: `productUnavailable`, with no events and nothing on screen changing.
            // The page is told it failed rather than left waiting.
            passToPage("transaction_fail", on: paywall)
            return .failed("The product \(productId) is not on this paywall nor in the config's products.")
        }
        return try await buy(product, with: purchaser, from: paywall, dismissing: dismissing)
    }

    /// SuperwallKit's `Superwall.purchase(product)`: a purchase the app starts, outside any
    /// paywall. In test mode, with the events of a purchase (source `APP`). With a purchase
    /// controller, SuperwallKit hands the product to the store and returns its answer without
    /// a single event; here the controller is the store.
    public func purchase(productId: String) async throws(SuperwallError) -> PurchaseResult {
        try await answering { () async throws(SuperwallError) -> PurchaseResult in
            guard let session else { throw .notConfigured }
            guard !session.observesPurchases else { throw .observingPurchases }
            let purchaser = try purchaser()
            guard let product = session.product(withId: productId, on: nil) else { throw .productNotFound(productId) }
            guard case .controller(let controller) = purchaser else {
                return try await buy(product, with: purchaser, from: nil)
            }
            try purchases.begin()
            defer { purchases.end() }
            let answer = await withDeadline(timeouts.purchase, fallback: PurchaseAnswer(.timedOut)) {
                await controller.purchase(product, paywallInfo: nil)
            }
            DecisionLog.transactions.debug(
                "the app's purchase of \(product.id) by the purchase controller: \(answer.result)"
            )
            if answer.result == .purchased {
                try recordPurchase(transaction(of: product, reported: answer.transaction, simulated: false))
                expectStatusToCover(product)
            }
            return answer.result
        }
    }

    /// A paywall's `restore` action.
    func restore(from paywall: PresentedPaywall) async throws(SuperwallError) -> RestorationResult {
        try await restore(with: purchaser(), from: paywall)
    }

    /// SuperwallKit's `Superwall.restorePurchases()`, outside any paywall. In test mode, with
    /// the events of a restore. With a purchase controller, SuperwallKit returns the store's
    /// own result without an event or a check of the entitlements; here the controller is the store.
    public func restorePurchases() async throws(SuperwallError) -> RestorationResult {
        try await answering { () async throws(SuperwallError) -> RestorationResult in
            guard session != nil else { throw .notConfigured }
            _ = await waitForConfig()
            let purchaser = try purchaser()
            guard case .controller(let controller) = purchaser else {
                return try await restore(with: purchaser, from: nil)
            }
            let limit = timeouts.restore
            return await withDeadline(
                limit,
                fallback: .failed("The purchase controller did not finish restoring within \(limit).")
            ) {
                await controller.restorePurchases()
            }
        }
    }

    /// Whether purchases are simulated now (SuperwallKit's `TestModeManager`).
    public var isTestModeActive: Bool { testModeReason != nil }

    /// Why purchases are simulated now (`TestModeReason.of`), or nil when they are not.
    public var testModeReason: TestModeReason? {
        session.flatMap {
            TestModeReason.of(users.identity, behavior: $0.testModeBehavior, config: $0.config, device: $0.deviceFacts)
        }
    }

    /// Says when test mode turns on, off, or changes reason (`Purchases.announceTestMode`).
    func announceTestMode() {
        let reason = testModeReason
        if purchases.announceTestMode(reason), reason == nil { userEntitlements.testModeEnded() }
    }

    private func purchaser() throws(SuperwallError) -> Purchaser {
        guard let session else { throw .notConfigured }
        if isTestModeActive { return .testMode }
        if session.usingPurchaseController, let purchaseController = host.purchaseController {
            return .controller(purchaseController)
        }
        throw .noPurchaseController
    }

    // MARK: Purchase

    private func buy(
        _ product: Product,
        with purchaser: Purchaser,
        from paywall: PresentedPaywall?,
        dismissing: Bool = true
    ) async throws(SuperwallError) -> PurchaseResult {
        try purchases.begin()
        defer { purchases.end() }
        let events = TransactionEvents(product: product, paywall: paywall?.info, device: deviceAttributes())
        let parameters = startTransaction(events, on: paywall)
        request(.loadingState(.loadingPurchase), on: paywall)
        defer { endLoading(on: paywall) }
        let answer: PurchaseAnswer
        switch purchaser {
        case .controller(let controller):
            let info = paywall?.info
            answer = await withDeadline(timeouts.purchase, fallback: PurchaseAnswer(.timedOut)) {
                await controller.purchase(product, paywallInfo: info)
            }
        case .testMode:
            host.delegate?.testModeTransaction(.purchase(product))
            answer = await testModeChoices.purchase(of: product)
        }
        DecisionLog.transactions.debug(
            "purchase of \(product.id)\(paywall.map { " from paywall \($0.info.identifier)" } ?? "") by \(purchaser.isTestMode ? "test mode (simulated)" : "the purchase controller"): \(answer.result)"
        )
        try await finishTransaction(
            events,
            parameters,
            answer: answer,
            on: paywall,
            simulated: purchaser.isTestMode,
            dismissing: dismissing
        )
        return answer.result
    }

    /// `transaction_start`, tracked and passed to the page; answers the params every event
    /// of the transaction carries from then on.
    func startTransaction(_ events: TransactionEvents, on paywall: PresentedPaywall?) -> [String: JSON] {
        let parameters = events.parameters(at: clock.now())
        track(
            "transaction_start",
            parameters,
            custom: events.customParameters,
            subject: events.subject,
            offeringImplicitTrigger: !events.isObserved
        )
        passToPage("transaction_start", on: paywall)
        return parameters
    }

    /// What a transaction's end records, tells (`TransactionEvents.ending`) and shows. An
    /// observed one (the app's own purchase) offers no implicit trigger, as SuperwallKit's do not.
    func finishTransaction(
        _ events: TransactionEvents,
        _ parameters: [String: JSON],
        answer: PurchaseAnswer,
        on paywall: PresentedPaywall?,
        simulated: Bool,
        dismissing: Bool
    ) async throws(SuperwallError) {
        let product = events.product
        var completion: [String: JSON] = [:]
        if answer.result == .purchased {
            let transaction = transaction(of: product, reported: answer.transaction, simulated: simulated)
            try recordPurchase(transaction)
            if !simulated, !events.isObserved { expectStatusToCover(product) }
            completion = events.completionParameters(
                of: transaction,
                id: random.uuid(),
                userAttributes: session == nil ? [:] : users.attributes,
                configRequestId: session?.config?.requestId ?? "",
                appSessionId: tracker.appSessionId
            )
        }
        let ending = events.ending(answer.result, from: parameters, completion: completion, at: clock.now())
        for event in ending.page { passToPage(event.name, on: paywall, payload: event.payload) }
        for event in ending.tracked {
            track(
                event.name,
                event.parameters,
                custom: event.custom,
                subject: events.subject,
                offeringImplicitTrigger: !events.isObserved
            )
        }
        switch answer.result {
        case .purchased:
            // SuperwallKit flushes its queue right after a completed transaction.
            Task.detached(executorPreference: offload) { [weak queue = tracker.queue] in
                await queue?.flush()
            }
            if dismissing { await dismissIfAutomatic(paywall, result: .purchased(productId: product.id)) }
        case .restored:
            if dismissing { await dismissIfAutomatic(paywall, result: .restored) }
        case .pending: show(.pendingApproval, on: paywall)
        // A `transaction_fail` campaign shows a paywall instead of the alert.
        case .failed(let message)
        where session?.showsPurchaseFailureAlert == true
            && session?.config?.trigger(for: ImplicitTrigger.transactionFail.rawValue) == nil:
            show(.purchaseFailed(message), on: paywall)
        case .sessionEnded:
            Self.logger.warning(
                "the purchase of \(product.id) was cut off by the end of the session, unanswered; nothing is tracked for it"
            )
        case .cancelled, .failed, .timedOut: break
        }
    }

    // MARK: The products

    /// The config's products, each once and with what the host's store says of it; only those
    /// named by `identifiers` (product id or store identifier) when given
    /// (`Session.products(named:)`).
    public func products(named identifiers: [String]? = nil) throws(SuperwallError) -> [Product] {
        guard let session else { throw .notConfigured }
        return session.products(named: identifiers)
    }

    /// The host tells what its store says of products (price, period, trial); later details
    /// for the same store identifier replace earlier ones.
    public func setStoreProducts(_ details: [StoreProductDetails]) throws(SuperwallError) {
        try answeringWithoutSuspending { () throws(SuperwallError) -> Void in
            guard session != nil else { throw .notConfigured }
            session?.storeDescribed(details)
        }
    }

    /// SuperwallKit's `overrideProductsByName`, read or set after `configure`: a paywall product's
    /// name to the product shown and sold in its place, from the next presentation on.
    public func overrideProductsByName() throws(SuperwallError) -> [String: String] {
        guard let session else { throw .notConfigured }
        return session.overrideProductsByName
    }

    public func setOverrideProductsByName(_ overrides: [String: String]) throws(SuperwallError) {
        guard session != nil else { throw .notConfigured }
        session?.productsOverridden(byName: overrides)
    }

    // MARK: Helpers

    var activeEntitlementIds: Set<String> {
        Set(currentSubscriptionStatus?.activeEntitlements.map(\.id) ?? [])
    }

    /// The spinner goes once a purchase or restore is over, if the paywall is still up.
    func endLoading(on paywall: PresentedPaywall?) {
        guard let paywall, paywalls.open?.id == paywall.id else { return }
        request(.loadingState(.ready), on: paywall)
    }

    /// SuperwallKit's `dismiss(result:closeReason: .systemLogic)` after a purchase or restore:
    /// a purchase's survey may be asked first.
    func dismissIfAutomatic(_ paywall: PresentedPaywall?, result: PaywallResult) async {
        guard let paywall, session?.automaticallyDismiss == true, paywalls.open?.id == paywall.id,
            await askSurvey(of: paywall, closingAs: result, for: .systemLogic), paywalls.open?.id == paywall.id
        else { return }
        await closePaywall(result: result, closeReason: .systemLogic)
    }

    /// The transaction a completed purchase of `product` adds to the history.
    private func transaction(of product: Product, reported: TransactionReport?, simulated: Bool) -> PurchaseTransaction
    {
        PurchaseTransaction(
            completing: product,
            reported: reported,
            id: random.uuid().uuidString.lowercased(),
            at: clock.now(),
            simulated: simulated
        )
    }
}

extension Product {
    /// Days of free trial: the host's store's word, else the config's (Stripe's `trial_days`).
    var trialPeriodDays: Int? {
        if let details = storeDetails, details.trialPeriodDays != nil || details.introductoryOffer != nil {
            guard let offer = details.offer, offer.paymentMode == .freeTrial else { return nil }
            return offer.period.days * offer.periodCount
        }
        if case .stripe(_, let days?) = storeProduct, days > 0 { return days }
        return nil
    }

    /// Whether it renews. The config says nothing of periods, so without the host's store
    /// details a product is taken as a subscription.
    var isSubscription: Bool { storeDetails.map { $0.period != nil } ?? true }

    /// `transaction_complete`'s `transaction_type`.
    var transactionType: String {
        guard isSubscription else { return "NON_RECURRING_PRODUCT_PURCHASE" }
        return trialPeriodDays == nil ? "SUBSCRIPTION_START" : "FREE_TRIAL_START"
    }

    /// The event after `transaction_complete`.
    var purchaseEventName: String {
        guard isSubscription else { return "nonRecurringProduct_purchase" }
        return trialPeriodDays == nil ? "subscription_start" : "freeTrial_start"
    }
}

/// What test mode did in place of a store, for the host to show.
public enum TestModeTransaction: Sendable, Equatable {
    case purchase(Product)
    case restore
}
