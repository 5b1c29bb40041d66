import CScheduling
import Foundation
import JSONRPC
import Logging
import SuperwallCore

/// `configure`'s params: `{apiKey, options?, device?, storeProducts?}`.
struct ConfigureRequest {
    let apiKey: String
    var options: Superwall.ConfigureOptions
    /// The keys that were ignored because `configure` does not know them, and options taken
    /// only in part.
    let warnings: [ConfigureKeys.Warning]
    /// `options.logging.level`: SuperwallKit's `logging.level`, the process's least severe level.
    let logLevel: Logger.Level?
    /// `logging.scopes`: SuperwallKit's `LogScope` names; nil when not given.
    let logScopes: Set<String>?
    /// `options.localeIdentifier`: SuperwallKit's option, as `setLocaleIdentifier` sets it.
    let localeIdentifier: String?
    /// `options.clock: "manual"`: the bridge's time stands still but for `debug/advanceClock`.
    let usesManualClock: Bool
    /// `options.explainOnRefresh`: the placements whose decision `config/didRefresh` explains
    /// when a refresh changes it.
    let explainOnRefresh: [String]

    /// `watchFiles` is the command line's `--watch`: file sources are watched unless they say
    /// `watch: false`.
    init(
        _ params: Params,
        capabilities: ClientInfo.Capabilities,
        watchFiles: Bool = false,
        maximumConfigSize: Int = FileConfigSource.defaultMaximumSize,
        httpTransport: any HTTPTransport = NetworkTransport()
    ) throws(RPCError) {
        var warnings = try ConfigureKeys.check(params)
        apiKey = try params.string("apiKey")
        guard !apiKey.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw RPCError.invalidParams("params.apiKey must not be empty.", details: ["path": "params.apiKey"])
        }
        let options = try params.optionalObject("options")
        switch try options?.optionalString("clock") ?? "system" {
        case "system": usesManualClock = false
        case "manual": usesManualClock = true
        default:
            throw RPCError.invalidParams(
                "params.options.clock must be one of system, manual.",
                details: ["path": "params.options.clock"]
            )
        }
        explainOnRefresh = try options?.optionalStrings("explainOnRefresh") ?? []
        try ClientLimits.check(
            explainOnRefresh.count,
            at: "params.options.explainOnRefresh",
            within: ClientLimits.explainedPlacements
        )
        let logging = try options?.optionalObject("logging")
        logLevel = try logging.flatMap { logging throws(RPCError) in try Self.logLevel(logging) }
        logScopes = try logging?.optionalStrings("scopes").map(Set.init)
        let unknownScopes = logScopes?.subtracting(LogScopes.superwallKit).sorted() ?? []
        if !unknownScopes.isEmpty {
            warnings.append(
                ConfigureKeys.Warning(
                    path: "params.options.logging.scopes",
                    message:
                        "params.options.logging.scopes names \(unknownScopes.prefix(8).map { "\"\($0.prefix(64))\"" }.joined(separator: ", ")), which SuperwallKit's LogScope does not have; nothing logs under them"
                )
            )
        }
        self.warnings = warnings
        localeIdentifier = try options?.optionalString("localeIdentifier")
        if let localeIdentifier {
            try ClientLimits.check(
                localeIdentifier,
                at: "params.options.localeIdentifier",
                atMost: ClientLimits.nameBytes
            )
        }
        let environment = try options?.optionalString("networkEnvironment") ?? "release"
        guard let network = HTTPConfigSource.NetworkEnvironment(rawValue: environment) else {
            throw RPCError.invalidParams(
                "params.options.networkEnvironment must be release, releaseCandidate or developer, not \"\(environment.prefix(64))\".",
                details: ["path": "params.options.networkEnvironment"]
            )
        }
        let dataDirectory = try options?.optionalString("dataDirectory")
        if let dataDirectory {
            try ClientLimits.check(dataDirectory, at: "params.options.dataDirectory", atMost: ClientLimits.pathBytes)
            guard !dataDirectory.isEmpty, !dataDirectory.utf8.contains(0) else {
                throw RPCError.invalidParams(
                    "params.options.dataDirectory must be a path: not empty, and without NUL characters.",
                    details: ["path": "params.options.dataDirectory"]
                )
            }
        }
        let source = try Self.configSource(
            options?.optionalObject("configSource"),
            network: network,
            maximumConfigSize: maximumConfigSize,
            transport: httpTransport,
            path: options?.path(of: "configSource") ?? "params.options.configSource"
        )
        let watch = try options?.optionalObject("configSource")?.optionalBool("watch") ?? watchFiles
        let device = try params.optionalJSONObject("device") ?? [:]
        let retries = try options?.optionalInt("maxConfigRetryCount") ?? 6
        try ClientLimits.check(retries, at: "params.options.maxConfigRetryCount", within: ClientLimits.configRetries)
        let flushInterval = try options?.optionalInt("eventFlushIntervalMs")
        if let flushInterval {
            try ClientLimits.check(
                flushInterval,
                at: "params.options.eventFlushIntervalMs",
                within: ClientLimits.eventFlushIntervalMs
            )
        }
        let paywalls = try options?.optionalObject("paywalls")
        var configureOptions = Superwall.ConfigureOptions(
            configSource: source,
            dataDirectory: dataDirectory,
            device: [String: JSON](device),
            maxConfigRetryCount: retries,
            usingPurchaseController: capabilities.purchaseController,
            timeouts: try Self.timeouts(options?.optionalObject("timeouts")),
            automaticallyDismiss: try paywalls?.optionalBool("automaticallyDismiss") ?? true,
            testModeBehavior: try Self.testModeBehavior(options),
            overrideProductsByName: try paywalls?.productsByName("overrideProductsByName") ?? [:],
            showsPurchaseFailureAlert: try paywalls?.optionalBool("shouldShowPurchaseFailureAlert") ?? true,
            enableExperimentalDeviceVariables: try options?.optionalBool("enableExperimentalDeviceVariables") ?? false,
            shouldPreload: try paywalls?.optionalBool("shouldPreload") ?? true,
            storeProducts: try StoreProductDetails.list(params, key: "storeProducts"),
            watchConfigFile: watch && source.backend.watchedFile != nil,
            eventTrackingBehavior: try Self.eventTrackingBehavior(options),
            eventFlushInterval: flushInterval.map { .milliseconds($0) }
                ?? (network == .release ? .seconds(20) : .seconds(1))
        )
        configureOptions.explainOnRefresh = explainOnRefresh
        if let restoreFailed = try paywalls?.optionalObject("restoreFailed") {
            let standard = PaywallAlert.restoreFailed
            configureOptions.restoreFailedAlert = PaywallAlert(
                title: try restoreFailed.optionalString("title") ?? standard.title,
                message: try restoreFailed.optionalString("message") ?? standard.message,
                closeActionTitle: try restoreFailed.optionalString("closeButtonTitle") ?? standard.closeActionTitle
            )
        }
        if let denied = try paywalls?.optionalObject("notificationPermissionsDenied") {
            configureOptions.notificationPermissionsDeniedAlert = .notificationPermissionsDenied(
                title: try denied.optionalString("title"),
                message: try denied.optionalString("message"),
                actionTitle: try denied.optionalString("actionButtonTitle"),
                closeActionTitle: try denied.optionalString("closeButtonTitle")
            )
        }
        configureOptions.showsWebRestorationAlert = try paywalls?.optionalBool("shouldShowWebRestorationAlert") ?? true
        configureOptions.showsWebPurchaseConfirmationAlert =
            try paywalls?.optionalBool("shouldShowWebPurchaseConfirmationAlert") ?? true
        // The process's affinity, as the session opens: on one CPU the store's worker shares
        // the calls' (Foundation's processor count does not follow the affinity).
        configureOptions.storeWorker = scheduling_allowed_cpu_count() == 1 ? .sharingTheCallsCPU : .besideTheCalls
        configureOptions.recordDecisions = try options?.optionalBool("recordDecisions") ?? false
        configureOptions.observesPurchases = try options?.optionalBool("shouldObservePurchases") ?? false
        // Any integer: the bits of a negative one seed as they are.
        configureOptions.randomSeed = try options?.optionalInt("randomSeed").map { UInt64(bitPattern: Int64($0)) }
        configureOptions.networkEnvironment = environment
        configureOptions.logLevel = logLevel
        configureOptions.localeIdentifier = localeIdentifier
        self.options = configureOptions
    }

    /// `logging.level`: SuperwallKit's names (`debug`, `info`, `warn`, `error`, `none`) or swift-log's.
    private static func logLevel(_ logging: Params) throws(RPCError) -> Logger.Level? {
        guard let name = try logging.optionalString("level") else { return nil }
        guard let level = Logger.Level(superwallName: name) else {
            throw RPCError.invalidParams(
                "params.options.logging.level must be debug, info, warn, error or none, not \"\(name.prefix(64))\".",
                details: ["path": "params.options.logging.level"]
            )
        }
        return level
    }

    /// `timeouts: {subscriptionStatusMs, presentationMs, customCallbackMs, ...}`: positive
    /// milliseconds; the ones not given keep their defaults.
    private static func timeouts(_ fields: Params?) throws(RPCError) -> Superwall.Timeouts {
        var timeouts = Superwall.Timeouts()
        guard let fields else { return timeouts }
        func milliseconds(_ key: String) throws(RPCError) -> Duration? {
            guard let value = try fields.optionalInt(key) else { return nil }
            guard value > 0 else {
                throw RPCError.invalidParams(
                    "\(fields.path(of: key)) must be a positive number of milliseconds.",
                    details: ["path": .string(fields.path(of: key))]
                )
            }
            return .milliseconds(value)
        }
        timeouts.subscriptionStatus = try milliseconds("subscriptionStatusMs") ?? timeouts.subscriptionStatus
        timeouts.presentation = try milliseconds("presentationMs") ?? timeouts.presentation
        timeouts.customCallback = try milliseconds("customCallbackMs") ?? timeouts.customCallback
        timeouts.purchase = try milliseconds("purchaseMs") ?? timeouts.purchase
        timeouts.restore = try milliseconds("restoreMs") ?? timeouts.restore
        timeouts.config = try milliseconds("configMs") ?? timeouts.config
        timeouts.pageEffect = try milliseconds("pageEffectMs") ?? timeouts.pageEffect
        timeouts.survey = try milliseconds("surveyMs") ?? timeouts.survey
        return timeouts
    }

    /// `eventTrackingBehavior`: `all` (the default), `superwallOnly` or `none`; the deprecated
    /// `isExternalDataCollectionEnabled: false` is `superwallOnly`, as in SuperwallKit.
    private static func eventTrackingBehavior(_ options: Params?) throws(RPCError) -> EventTrackingBehavior {
        guard let options else { return .all }
        if let name = try options.optionalString("eventTrackingBehavior") {
            guard let behavior = EventTrackingBehavior(rawValue: name) else {
                let path = options.path(of: "eventTrackingBehavior")
                throw RPCError.invalidParams(
                    "\(path) must be one of all, superwallOnly, none.",
                    details: ["path": .string(path)]
                )
            }
            return behavior
        }
        return try options.optionalBool("isExternalDataCollectionEnabled") == false ? .superwallOnly : .all
    }

    /// `testModeBehavior`: `always`, `never`, `whenEnabledForUser` or `automatic` (the default).
    private static func testModeBehavior(_ options: Params?) throws(RPCError) -> TestModeBehavior {
        guard let options, let name = try options.optionalString("testModeBehavior") else { return .automatic }
        guard let behavior = TestModeBehavior(rawValue: name) else {
            let path = options.path(of: "testModeBehavior")
            throw RPCError.invalidParams(
                "\(path) must be one of always, never, whenEnabledForUser, automatic.",
                details: ["path": .string(path)]
            )
        }
        return behavior
    }

    /// `{type: "embedded"}`, `{type: "file", path, watch?}` or `{type: "http", baseUrl}`; without
    /// one, SuperwallKit's own source: the Superwall API of the network environment.
    private static func configSource(
        _ source: Params?,
        network: HTTPConfigSource.NetworkEnvironment,
        maximumConfigSize: Int,
        transport: any HTTPTransport,
        path: String
    ) throws(RPCError) -> any ConfigSource {
        guard let source else {
            return HTTPConfigSource(network, maximumBodySize: maximumConfigSize, transport: transport)
        }
        switch try source.string("type") {
        case "embedded":
            return EmbeddedConfigSource()
        case "file":
            return FileConfigSource(path: try source.string("path"), maximumSize: maximumConfigSize)
        case "http":
            let text = try source.string("baseUrl")
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                ["http", "https"].contains(scheme), url.host != nil
            else {
                throw RPCError.invalidParams(
                    "\(path).baseUrl must be an http or https URL, not \"\(text)\".",
                    details: ["path": .string("\(path).baseUrl")]
                )
            }
            return HTTPConfigSource(baseURL: url, maximumBodySize: maximumConfigSize, transport: transport)
        case let other:
            throw RPCError.invalidParams(
                "\(path).type must be \"embedded\", \"file\" or \"http\", not \"\(other)\".",
                details: ["path": .string("\(path).type")]
            )
        }
    }
}
