/// Observer mode (SuperwallKit's `shouldObservePurchases`, Superwall-Android's
/// `observePurchaseStart`, `observePurchaseResult` and `observePurchaseError`): the app buys
/// through its own store and says when a purchase starts and how it ended. The purchase then
/// has what one made here has: its transaction events (source `APP`, `OBSERVER` on Android),
/// its transaction in the purchase history and the customer info, and the flush after it.
/// SuperwallKit watches StoreKit for these; a process with no store of its own is told.
extension Superwall {
    /// The app started buying `productId` (a config product's id or store identifier):
    /// `transaction_start`, as a purchase from the app.
    public func observePurchaseStart(productId: String) throws(SuperwallError) {
        try answeringWithoutSuspending { () throws(SuperwallError) -> Void in
            let events = try observedTransaction(of: productId)
            purchases.observeStart(of: events.product)
            _ = startTransaction(events, on: nil)
        }
    }

    /// How the app's purchase ended: the one of `productId`, else the latest started. A
    /// purchased answer records its transaction (completed from the product as the controller's
    /// is) and tracks `transaction_complete` and the start of the subscription or trial; a
    /// cancelled one `transaction_abandon`, a failed or pending one `transaction_fail`, a
    /// restored one `transaction_restore`.
    public func observePurchaseEnd(productId: String?, answer: PurchaseAnswer) async throws(SuperwallError) {
        try await answering { () async throws(SuperwallError) -> Void in
            guard let session else { throw .notConfigured }
            guard session.observesPurchases else { throw .notObservingPurchases }
            guard let started = purchases.takeObservedStart(of: productId) else {
                throw .observedPurchaseNotStarted(productId)
            }
            let events = TransactionEvents(
                product: started,
                paywall: nil,
                device: deviceAttributes(),
                observedFor: session.referenceSDK
            )
            DecisionLog.transactions.debug("the app's own purchase of \(started.id), observed: \(answer.result)")
            try await finishTransaction(
                events,
                events.parameters(at: clock.now()),
                answer: answer,
                on: nil,
                simulated: false,
                dismissing: false
            )
        }
    }

    /// The events of an observed purchase of `productId` (`Session.observedProduct`).
    private func observedTransaction(of productId: String) throws(SuperwallError) -> TransactionEvents {
        guard let session else { throw .notConfigured }
        guard session.observesPurchases else { throw .notObservingPurchases }
        return TransactionEvents(
            product: session.observedProduct(named: productId),
            paywall: nil,
            device: deviceAttributes(),
            observedFor: session.referenceSDK
        )
    }
}
