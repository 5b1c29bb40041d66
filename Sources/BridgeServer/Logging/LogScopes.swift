/// SuperwallKit's `LogScope`s, which `configure.options.logging.scopes` names, and the scope
/// of each of the core's loggers.
enum LogScopes {
    /// SuperwallKit 4's `LogScope` cases, `all` included.
    static let superwallKit: Set<String> = [
        "localizationManager", "bounceButton", "coreData", "configManager", "identityManager", "debugManager",
        "debugViewController", "localization", "gameControllerManager", "device", "network", "paywallEvents",
        "productsManager", "storeKitManager", "placements", "receipts", "superwallCore", "paywallPresentation",
        "transactions", "paywallViewController", "cache", "all",
    ]

    /// The SuperwallKit scope of a logger's label; nil for the bridge's own lines (the
    /// transport, the protocol), which no scope turns off.
    static func of(label: String) -> String? {
        switch label {
        case "superwall.config": "configManager"
        case "superwall.paywall": "paywallViewController"
        case "superwall.store": "cache"
        case "analytics": "placements"
        case "superwall-bridge": nil
        default: label
        }
    }
}
