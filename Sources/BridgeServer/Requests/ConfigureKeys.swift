import JSONRPC

/// Where each of `configure`'s keys belongs. A key the bridge knows but found at another
/// level is refused, naming where it belongs: ignoring it would silently fall back to a
/// default (a misplaced `configSource` meant a fetch from the Superwall API). Any other key
/// is ignored with a warning, as a newer client may send options this build does not know.
enum ConfigureKeys {
    struct Warning: Sendable, Equatable {
        let path: String
        let message: String

        var jsonValue: JSONValue { ["path": .string(path), "message": .string(message)] }
    }

    /// The objects whose keys are checked, by path, with the keys each takes.
    private static let levels: [(path: String, keys: [String])] = [
        ("params", ["apiKey", "options", "device", "storeProducts"]),
        (
            "params.options",
            [
                "configSource", "dataDirectory", "networkEnvironment", "maxConfigRetryCount", "testModeBehavior",
                "paywalls",
                "timeouts", "eventTrackingBehavior", "isExternalDataCollectionEnabled", "eventFlushIntervalMs",
                "logging",
                "localeIdentifier", "enableExperimentalDeviceVariables", "clock", "explainOnRefresh", "randomSeed",
                "recordDecisions", "shouldObservePurchases",
            ]
        ),
        ("params.options.logging", ["level", "scopes"]),
        (
            "params.options.paywalls",
            [
                "automaticallyDismiss", "overrideProductsByName", "shouldShowPurchaseFailureAlert", "shouldPreload",
                "restoreFailed", "shouldShowWebRestorationAlert", "shouldShowWebPurchaseConfirmationAlert",
                "notificationPermissionsDenied",
            ]
        ),
        ("params.options.paywalls.restoreFailed", ["title", "message", "closeButtonTitle"]),
        (
            "params.options.paywalls.notificationPermissionsDenied",
            ["title", "message", "actionButtonTitle", "closeButtonTitle"]
        ),
        (
            "params.options.timeouts",
            [
                "subscriptionStatusMs", "presentationMs", "customCallbackMs", "purchaseMs", "restoreMs", "configMs",
                "pageEffectMs", "surveyMs",
            ]
        ),
        ("params.options.configSource", ["type", "path", "watch", "baseUrl"]),
    ]

    /// Each known key's home; a key two levels share (none today) keeps the first.
    private static let home: [String: String] = levels.reduce(into: [:]) { home, level in
        for key in level.keys where home[key] == nil { home[key] = "\(level.path).\(key)" }
    }

    /// The most unknown keys `check` lists; the others are counted in one more warning.
    static let listedUnknownKeys = 200

    /// Refuses a known key at the wrong level; answers the unknown ones.
    static func check(_ params: Params) throws(RPCError) -> [Warning] {
        var warnings: [Warning] = []
        var unknown = 0
        for level in levels {
            guard let members = try object(at: level.path, in: params)?.members else { continue }
            let known = Set(level.keys)
            for key in members.keys.sorted() where !known.contains(key) {
                let path = "\(level.path).\(key)"
                if let belongs = home[key] {
                    throw RPCError.invalidParams(
                        "\(path) is not read there: it belongs at \(belongs).",
                        details: ["path": .string(path), "belongsAt": .string(belongs)]
                    )
                }
                unknown += 1
                guard unknown <= listedUnknownKeys else { continue }
                warnings.append(
                    Warning(path: path, message: "\(path.prefix(200)) is not a key configure knows; it was ignored.")
                )
            }
        }
        if unknown > listedUnknownKeys {
            warnings.append(
                Warning(
                    path: "params",
                    message:
                        "\(unknown - listedUnknownKeys) more keys configure does not know were ignored: only the first \(listedUnknownKeys) are listed."
                )
            )
        }
        return warnings
    }

    /// The object at a dotted path below `params`, if every step is an object.
    private static func object(at path: String, in params: Params) throws(RPCError) -> Params? {
        var current: Params? = params
        for step in path.split(separator: ".").dropFirst() {
            guard case .object? = current?.members[String(step)] else { return nil }
            current = try current?.optionalObject(String(step))
        }
        return current
    }
}
