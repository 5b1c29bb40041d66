import Executors
import Foundation

/// Restoring purchases, from the app or from a paywall.
extension Superwall {
    func restore(
        with purchaser: Purchaser,
        from paywall: PresentedPaywall?
    ) async throws(SuperwallError) -> RestorationResult {
        let events = RestoreEvents(paywall: paywall?.info)
        let (parameters, custom, subject) = (events.parameters, events.customParameters, events.subject)
        track("restore_start", parameters, custom: custom, subject: subject)
        passToPage("restore_start", on: paywall)
        request(.loadingState(.loadingPurchase), on: paywall)
        defer { endLoading(on: paywall) }
        let result: RestorationResult
        switch purchaser {
        case .controller(let controller):
            let limit = timeouts.restore
            result = await withDeadline(
                limit,
                fallback: .failed("The purchase controller did not finish restoring within \(limit).")
            ) {
                await controller.restorePurchases()
            }
        case .testMode:
            host.delegate?.testModeTransaction(.restore)
            result = try await simulatedRestore()
        }
        let active = activeEntitlementIds
        DecisionLog.transactions.debug(
            "restore\(paywall.map { " from paywall \($0.info.identifier)" } ?? "") by \(purchaser.isTestMode ? "test mode (simulated)" : "the purchase controller"): \(result); active entitlements: \(active.isEmpty ? "none" : active.sorted().joined(separator: ", "))"
        )
        // SuperwallKit: with a web restore URL, a restore from a paywall that leaves part of
        // what it sells locked offers the web restore instead (an alert), and the paywall stays.
        if result == .restored, let paywall, let web = session?.config?.web2appConfig,
            !lockedEntitlements(of: paywall).isEmpty
        {
            Self.logger.warning(
                "the restore from paywall \(paywall.info.identifier) succeeded, but it leaves \(lockedEntitlements(of: paywall).joined(separator: ", ")) locked: as in SuperwallKit, the web restore (\(web.restoreAccessURL)) is offered in an alert and the paywall stays up"
            )
            await offerWebRestore(web.restoreAccessURL, on: paywall, hasEntitlements: !active.isEmpty)
            return .restored
        }
        // Otherwise a restore succeeds when the controller restored *and* the status it set has
        // an active entitlement.
        guard result == .restored, !active.isEmpty else {
            let message = RestoreEvents.failureMessage(of: result)
            track(
                "restore_fail",
                parameters.merging(["error_message": .string(message)]) { _, new in new },
                custom: custom,
                subject: subject
            )
            passToPage("restore_fail", on: paywall)
            show(session?.restoreFailedAlert ?? .restoreFailed, on: paywall)
            return result == .restored ? .failed(message) : result
        }
        track("restore_complete", parameters, custom: custom, subject: subject)
        track("transaction_restore", events.transactionRestoreParameters, custom: custom, subject: subject)
        // The page hears of the restore before its completion, and the dismissal starts
        // between the two.
        passToPage("transaction_restore", on: paywall)
        passToPage("restore_complete", on: paywall)
        await dismissIfAutomatic(paywall, result: .restored)
        return .restored
    }

    /// A controller that answers `purchased` owns the status: when, `timeouts.subscriptionStatusMs`
    /// later, the status the client set does not cover the product's entitlements, the feature
    /// was granted but the user's status says otherwise. Said at warning level.
    func expectStatusToCover(_ product: Product) {
        let expected = Set(product.entitlements.map(\.id))
        guard !expected.isEmpty, let limit = session?.timeouts.subscriptionStatus else { return }
        Task(executorPreference: offload) { [weak self] in
            try? await DeadlineTimer.sleep(for: limit)
            await self?.warnIfStatusDoesNotCover(expected, bought: product.id, after: limit)
        }
    }

    private func warnIfStatusDoesNotCover(_ expected: Set<String>, bought productId: String, after limit: Duration) {
        let missing = expected.subtracting(activeEntitlementIds)
        guard session != nil, !missing.isEmpty else { return }
        Self.logger.warning(
            "the purchase controller answered purchased for \(productId), but \(limit) later the subscription status does not have \(missing.sorted().joined(separator: ", ")) active: call setSubscriptionStatus with the entitlements the purchase granted"
        )
    }

    /// The entitlements `paywall` sells that are not active, with a web restore URL in the
    /// config and `shouldShowWebRestorationAlert` on (SuperwallKit's condition for offering the
    /// web restore); empty otherwise.
    func lockedEntitlements(of paywall: PresentedPaywall) -> [String] {
        guard session?.config?.web2appConfig != nil, session?.showsWebRestorationAlert == true else { return [] }
        return Set(paywall.paywall.products.flatMap(\.entitlements).map(\.id)).subtracting(activeEntitlementIds)
            .sorted()
    }

    /// Asks the host to offer the web restore page, within the presentation deadline.
    private func offerWebRestore(_ url: String, on paywall: PresentedPaywall, hasEntitlements: Bool) async {
        guard let presenter = host.presenter, presenter.canPresent else { return }
        let alert = PaywallAlert.webRestore(at: url, hasEntitlements: hasEntitlements)
        await withDeadline(timeouts.presentation, fallback: ()) { [presenter] in
            try? await presenter.showAlert(alert, sessionId: paywall.id)
        }
    }

    /// An alert over `paywall`, asked of the host in turn with the page's effects; nothing
    /// waits for it. Nothing without a paywall or a host that shows them.
    func show(_ alert: PaywallAlert, on paywall: PresentedPaywall?) {
        guard let paywall, let presenter = host.presenter, presenter.canPresent else { return }
        let (limit, sessionId) = (timeouts.presentation, paywall.id)
        paywalls.queuePageEffect(on: offload) {
            await withDeadline(limit, fallback: ()) { try? await presenter.showAlert(alert, sessionId: sessionId) }
        }
    }

    // MARK: Test mode

    var testModeChoices: TestModeChoices {
        TestModeChoices(chooser: host.testModeChooser, timeouts: timeouts, logger: Self.logger)
    }

    /// Re-derives the status from what test mode bought, unless the host chooses the
    /// entitlements: then, as SuperwallKit's restore drawer, they replace what test mode
    /// bought, and the restore counts only when it found one. A cancelled choice fails it.
    private func simulatedRestore() async throws(SuperwallError) -> RestorationResult {
        switch await testModeChoices.restore(from: session?.config?.entitlementIds ?? []) {
        case .notOffered:
            try refreshCustomerInfo()
            return .restored
        case .restored(let ids):
            try replaceSimulatedEntitlements(with: ids)
            return .restored
        case .cancelled:
            return .failed("The simulated restore was cancelled.")
        case .failed(let reason):
            return .failed(reason)
        }
    }

    private func replaceSimulatedEntitlements(with ids: [String]) throws(SuperwallError) {
        guard let store else { return }
        try persisting { try userEntitlements.clearPurchaseHistory(in: store) }
        _ = try applySubscriptionStatus(ids.isEmpty ? .inactive : .active(Set(ids.map(Entitlement.init(id:)))))
        try refreshCustomerInfo(derivingStatus: false)
    }
}
