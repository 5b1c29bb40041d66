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
            let session = try observingSession()
            let product = session.observedProduct(named: productId)
            purchases.observeStart(of: product)
            _ = startTransaction(session.observedEvents(of: product, device: deviceAttributes()), on: nil)
        }
    }

    /// How the app's purchase ended: the one of `productId`, else the latest started. A
    /// purchased answer records its transaction (completed from the product as the controller's
    /// is) and tracks `transaction_complete` and the start of the subscription or trial; a
    /// cancelled one `transaction_abandon`, a failed or pending one `transaction_fail`, a
    /// restored one `transaction_restore`.
    public func observePurchaseEnd(productId: String?, answer: PurchaseAnswer) async throws(SuperwallError) {
        try await answering { () async throws(SuperwallError) -> Void in
            let session = try observingSession()
            guard let started = purchases.takeObservedStart(of: productId) else {
                throw .observedPurchaseNotStarted(productId)
            }
            let events = session.observedEvents(of: started, device: deviceAttributes())
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

    /// The session, when it observes purchases.
    private func observingSession() throws(SuperwallError) -> Session {
        guard let session else { throw .notConfigured }
        guard session.observesPurchases else { throw .notObservingPurchases }
        return session
    }
}
