import Logging

/// `config_attributes`' params: SuperwallKit's `SuperwallOptions.toDictionary()`, its options
/// flattened with every default in, as in effect for this `configure`. Options the bridge adds
/// (the data directory, the config source, timeouts, the clock) are not SuperwallKit's and
/// stay on this machine: the data directory is a local path, and the events go to the collector.
enum SuperwallOptionsDump {
    static func make(_ options: Superwall.ConfigureOptions) -> [String: JSON] {
        [
            // PaywallOptions.
            "transactionBackgroundView": "spinner",
            "restoreTitle": .string(options.restoreFailedAlert.title),
            "restoreMessage": .string(options.restoreFailedAlert.message),
            "restoreCloseButtonTitle": .string(options.restoreFailedAlert.closeActionTitle),
            "isHapticFeedbackEnabled": true,
            "shouldShowPurchaseFailureAlert": .bool(options.showsPurchaseFailureAlert),
            "shouldPreload": .bool(options.shouldPreload),
            "automaticallyDismiss": .bool(options.automaticallyDismiss),
            "overrideProductsByName": .object(options.overrideProductsByName.mapValues(JSON.string)),
            "shouldShowWebPurchaseConfirmationAlert": .bool(options.showsWebPurchaseConfirmationAlert),
            // The rest of SuperwallOptions.
            "networkEnvironment": .string(options.networkEnvironment),
            "logLevel": .int(Int64(superwallLevel(options.logLevel))),
            // LogScope.all's raw value.
            "logScopes": [23],
            "eventTrackingBehavior": .string(options.eventTrackingBehavior.rawValue),
            "isExternalDataCollectionEnabled": .bool(options.eventTrackingBehavior == .all),
            "localeIdentifier": options.localeIdentifier.map(JSON.string) ?? .null,
            "isGameControllerEnabled": false,
            "storeKitVersion": "STOREKIT2",
            "maxConfigRetryCount": .int(Int64(options.maxConfigRetryCount)),
            "shouldObservePurchases": .bool(options.observesPurchases),
            "enableExperimentalDeviceVariables": .bool(options.enableExperimentalDeviceVariables),
            "testModeBehavior": .string(options.testModeBehavior.rawValue),
        ]
    }

    /// `config_attributes`' params: the dump, and whether a purchase controller and a delegate
    /// were given.
    static func configAttributes(_ options: Superwall.ConfigureOptions, hasDelegate: Bool) -> [String: JSON] {
        make(options).merging([
            "using_purchase_controller": .bool(options.usingPurchaseController), "has_delegate": .bool(hasDelegate),
        ]) { _, sdk in sdk }
    }

    /// SuperwallKit's `LogLevel` raw values; its default, `info`, when none was given.
    private static func superwallLevel(_ level: Logger.Level?) -> Int {
        switch level {
        case .trace?, .debug?: 10
        case nil, .info?, .notice?: 20
        case .warning?: 30
        case .error?: 40
        case .critical?: 99
        }
    }
}

extension Superwall.ConfigureOptions {
    /// These options with what the app changed after `configure`.
    func changed(
        _ eventTrackingBehavior: EventTrackingBehavior,
        _ localeIdentifier: String?,
        _ overrideProductsByName: [String: String],
        _ logLevel: Logger.Level
    ) -> Self {
        var changed = self
        changed.eventTrackingBehavior = eventTrackingBehavior
        changed.localeIdentifier = localeIdentifier
        changed.overrideProductsByName = overrideProductsByName
        changed.logLevel = logLevel
        return changed
    }
}
