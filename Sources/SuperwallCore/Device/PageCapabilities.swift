/// What the SDK tells the paywall page and the API it supports (SuperwallKit's `Capability`s in
/// the device template), as each SDK spells it: the bridge does what both list.
enum PageCapabilities {
    /// The lifecycle events passed into the page (`paywall_event_receiver`), in each SDK's order.
    private static let superwallKitEvents = [
        "restore_start", "restore_complete", "restore_fail", "transaction_restore", "transaction_start",
        "transaction_complete", "transaction_fail", "transaction_abandon", "transaction_timeout", "paywall_open",
        "paywall_close",
    ]
    private static let androidEvents = [
        "transaction_start", "transaction_restore", "transaction_complete", "restore_start", "restore_fail",
        "restore_complete", "transaction_fail", "transaction_abandon", "transaction_timeout", "paywall_open",
        "paywall_close",
    ]

    /// SuperwallKit's `capabilities` (the names, comma-joined) and `capabilitiesConfig` (one
    /// object each); Superwall-Android's `capabilities` (an array) and `capabilities_config`
    /// (each with its `type`), of its three. Made once: every device template has them.
    static func deviceAttributes(for platform: ReferenceSDK) -> [String: JSON] {
        switch platform {
        case .superwallKit: superwallKit
        case .superwallAndroid: android
        }
    }

    private static let superwallKit: [String: JSON] = {
        let names = [
            "paywall_event_receiver", "multiple_paywall_urls", "config_refresh", "webview_text_interaction",
            "config_caching",
        ]
        let config: [JSON] = names.map { name in
            name == "paywall_event_receiver"
                ? ["name": .string(name), "eventNames": .array(superwallKitEvents.map(JSON.string))]
                : ["name": .string(name)]
        }
        return ["capabilities": .string(names.joined(separator: ",")), "capabilitiesConfig": .array(config)]
    }()

    private static let android: [String: JSON] = {
        let names = ["paywall_event_receiver", "multiple_paywall_urls", "config_caching"]
        let config: [JSON] = names.map { name in
            var capability: [String: JSON] = ["type": .string(name), "name": .string(name)]
            if name == "paywall_event_receiver" { capability["event_names"] = .array(androidEvents.map(JSON.string)) }
            return .object(capability)
        }
        return ["capabilities": .array(names.map(JSON.string)), "capabilities_config": .array(config)]
    }()
}
