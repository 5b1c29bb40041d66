/// The params of SuperwallKit's restore events (`restore_start` to `transaction_restore`) for
/// one restore, from `paywall` or from the app.
struct RestoreEvents {
    /// The paywall restored from; nil for a restore the app started.
    let paywall: PaywallInfo?

    /// What `restore_start`, `restore_complete` and `restore_fail` carry: the paywall's
    /// placement params.
    var parameters: [String: JSON] { paywall?.placementParameters ?? [:] }

    /// `transaction_restore` of a restore: the App Store, no product.
    var transactionRestoreParameters: [String: JSON] {
        parameters.merging(
            [
                "store": "APP_STORE", "source": paywall == nil ? "APP" : "SUPERWALL",
                "restore_via_purchase_attempt": false,
            ]
        ) { _, new in new }
    }

    var customParameters: [String: JSON] { paywall?.audienceFilterParameters ?? [:] }

    var subject: EventSubject { EventSubject(paywallInfo: paywall) }

    /// Why a restore that ended with `result` failed, for a user with no active entitlement
    /// after it: `restore_fail`'s `error_message`.
    static func failureMessage(of result: RestorationResult) -> String {
        switch result {
        case .restored: "The restore finished but the user has no active entitlements."
        case .failed(let reason): reason ?? "The restore failed."
        }
    }
}
