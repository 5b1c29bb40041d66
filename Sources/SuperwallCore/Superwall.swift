import Deadlines
import Foundation
import Logging
import Synchronization

/// The SDK: SuperwallKit's public surface, headless, in async Swift.
///
/// All state lives in this actor; the world outside is reached only through the protocols
/// it is given (config source, clock, random source, delegate) and its data directory.
public actor Superwall {
    public enum ConfigurationStatus: String, Sendable {
        case pending, configured, failed
    }

    public struct ConfigureOptions: Sendable {
        public var configSource: any ConfigSource
        /// Where state persists; the per-API-key default under `$XDG_DATA_HOME` when nil.
        public var dataDirectory: String?
        /// Device facts the client reports, by template name (`platform`, `appVersion`, ...).
        public var device: [String: JSON]
        /// SuperwallKit's `networkEnvironment`, `logging.level` and `localeIdentifier`, as
        /// given: reported in `config_attributes`.
        public var networkEnvironment = "release"
        public var logLevel: Logger.Level?
        public var localeIdentifier: String?
        /// SuperwallKit's `maxConfigRetryCount` (default 6).
        public var maxConfigRetryCount: Int
        /// Whether the host performs purchases and owns the subscription status. Without one
        /// the status starts inactive (this process has no store of its own); with one it
        /// stays unknown until the host sets it.
        public var usingPurchaseController: Bool
        public var timeouts: Timeouts
        /// SuperwallKit's `paywalls.automaticallyDismiss`: a purchase or restore closes the paywall.
        public var automaticallyDismiss: Bool
        public var testModeBehavior: TestModeBehavior
        /// SuperwallKit's `paywalls.overrideProductsByName`: a paywall product's name (`primary`,
        /// ...) to the identifier of the product shown and sold in its place.
        public var overrideProductsByName: [String: String]
        /// SuperwallKit's `paywalls.shouldShowPurchaseFailureAlert`: a failed purchase asks the
        /// host to show an alert (unless a `transaction_fail` campaign shows a paywall instead).
        public var showsPurchaseFailureAlert: Bool
        /// SuperwallKit's `enableExperimentalDeviceVariables`: the device template carries the
        /// latest subscription's state, offer and renewal.
        public var enableExperimentalDeviceVariables: Bool
        /// SuperwallKit's `paywalls.shouldPreload`: preload paywalls after the config loads,
        /// refreshes or the user changes.
        public var shouldPreload: Bool
        /// What the host's store says of products (price, period, trial).
        public var storeProducts: [StoreProductDetails]
        /// With a file source: refresh whenever the file changes (editors' hot reload).
        public var watchConfigFile: Bool
        /// Which events go out (to the collector, or the data directory's `events.jsonl`).
        public var eventTrackingBehavior: EventTrackingBehavior
        /// How often the event queue is flushed: SuperwallKit's 20 s in release.
        public var eventFlushInterval: Duration
        /// The most events kept waiting to be sent.
        var eventQueueBound = 100_000
        /// Placements whose decision each refresh compares before and after
        /// (`ConfigRefresh.decisionChanges`).
        public var explainOnRefresh: [String] = []

        public init(configSource: any ConfigSource, dataDirectory: String? = nil, device: [String: JSON] = [:],
                    maxConfigRetryCount: Int = 6, usingPurchaseController: Bool = false,
                    timeouts: Timeouts = Timeouts(), automaticallyDismiss: Bool = true, testModeBehavior: TestModeBehavior = .automatic,
                    overrideProductsByName: [String: String] = [:], showsPurchaseFailureAlert: Bool = true,
                    enableExperimentalDeviceVariables: Bool = false, shouldPreload: Bool = true, storeProducts: [StoreProductDetails] = [], watchConfigFile: Bool = false,
                    eventTrackingBehavior: EventTrackingBehavior = .all, eventFlushInterval: Duration = .seconds(20)) {
            self.configSource = configSource
            self.dataDirectory = dataDirectory
            self.device = device
            self.maxConfigRetryCount = maxConfigRetryCount
            self.usingPurchaseController = usingPurchaseController
            self.timeouts = timeouts
            self.automaticallyDismiss = automaticallyDismiss
            self.testModeBehavior = testModeBehavior
            self.overrideProductsByName = overrideProductsByName
            self.showsPurchaseFailureAlert = showsPurchaseFailureAlert
            self.shouldPreload = shouldPreload
            self.enableExperimentalDeviceVariables = enableExperimentalDeviceVariables
            self.storeProducts = storeProducts
            self.watchConfigFile = watchConfigFile
            self.eventTrackingBehavior = eventTrackingBehavior
            self.eventFlushInterval = eventFlushInterval
        }
    }

    /// The bounds of the waits on the host (`configure.options.timeouts`).
    public struct Timeouts: Sendable, Equatable {
        /// How long presentation waits for a known subscription status (SuperwallKit: 5 s).
        public var subscriptionStatus: Duration = .seconds(5)
        /// How long the host may take to show or take down a paywall.
        public var presentation: Duration = .seconds(30)
        /// How long the host may take to answer a paywall's custom callback.
        public var customCallback: Duration = .seconds(30)
        /// How long the purchase controller may take to buy (a store sheet can take long).
        public var purchase: Duration = .seconds(600)
        /// How long the purchase controller may take to restore.
        public var restore: Duration = .seconds(120)
        /// How long `configure` may spend fetching a config with its retries before it
        /// answers (with the cached config, or `failed`); a refresh in the background has none.
        public var config: Duration = .seconds(60)
        /// How long the host may take to perform what a page asked of it (open a link, show a
        /// spinner); a permission prompt waits for the user, so it gets `customCallback`'s.
        public var pageEffect: Duration = .seconds(10)
        /// How long the user may take to answer a survey. SuperwallKit's survey waits for as
        /// long as it takes; here the host is a process that may never answer.
        public var survey: Duration = .seconds(300)

        public init() {}
    }

    public struct ConfigureOutcome: Sendable, Equatable {
        public var status: ConfigurationStatus
        public var userId: String?
        public var error: SuperwallError?
        /// What was found wrong with the data directory's files when they were opened (a lost
        /// or damaged write-ahead log, a record that is not valid): the session goes on.
        public var storeProblems: [String] = []
        /// Why purchases are simulated, or nil when they go to the purchase controller.
        public var testMode: TestModeReason?
        /// The data directory the session opened.
        public var dataDirectory: String?
    }

    /// Whether an audience rule of the config in use calls `matches()`: the one part of a
    /// rule whose cost grows with its input (bounded per evaluation, but to milliseconds, not
    /// microseconds). A host evaluates the presentations of such a config off the thread that
    /// reads its messages.
    public nonisolated var evaluatesSlowRules: Bool { rulesCallMatches.load(ordering: .relaxed) }
    private nonisolated let rulesCallMatches = Atomic<Bool>(false)

    /// The actor runs on a lane rather than the cooperative pool, so that a request's deadline
    /// holds while the pool is busy (see `SerialLane`).
    private nonisolated let lane = SerialLane()
    public nonisolated var unownedExecutor: UnownedSerialExecutor { lane.asUnownedSerialExecutor() }

    let clock: any WallClock
    let random: any RandomSource
    let host: HostPorts
    /// The wait between config retries; SuperwallKit's backoff unless a test shortens it.
    let retryDelay: @Sendable (Int, Int) -> Duration
    var session: Session? {
        didSet {
            device.templateInputsChanged()
            let previousStore = store
            sessionView = session.map(SessionView.init)
            if store !== previousStore { storeOfSession.withLock { [store] in $0 = store } }
        }
    }
    /// What every placement and every event read of the session, kept beside it (see
    /// `SessionView`); nil without a session.
    private(set) var sessionView: SessionView?
    /// The session's store.
    var store: Store? { sessionView?.store }
    /// The session's store, for `commitTrackedEvents` on any thread.
    private nonisolated let storeOfSession = Mutex<Store?>(nil)

    // The components: each owns the state of one area (see its type).
    let device = DeviceOverrides()
    let paywalls = PaywallSessions()
    let tracking = EventTracking()
    let configLoading = ConfigLoading()
    let purchases = Purchases()
    let redemptions = Redemptions()

    /// The session's fields that every placement's pipeline and every event read, as one
    /// reference: a field read through the optional `session` copies the whole session first.
    final class SessionView: Sendable {
        let store: Store
        let status: ConfigurationStatus
        let configError: SuperwallError?
        let config: Config?
        let subscriptionStatus: SubscriptionStatus
        let timeouts: Timeouts
        let userAttributes: [String: JSON]
        let isLoggedIn: Bool
        let assignments: [String: Store.Assignment]

        init(_ session: Session) {
            store = session.store
            status = session.status
            configError = session.configError
            config = session.config
            subscriptionStatus = session.subscriptionStatus
            timeouts = session.timeouts
            userAttributes = session.userAttributes
            isLoggedIn = session.identity.isLoggedIn
            assignments = session.assignments
        }
    }

    /// What exists once `configure` has opened the data directory.
    struct Session {
        let apiKey: String
        /// What `configure` was given; the fields below read it.
        let options: ConfigureOptions
        var timeouts: Timeouts { options.timeouts }
        var usingPurchaseController: Bool { options.usingPurchaseController }
        var automaticallyDismiss: Bool { options.automaticallyDismiss }
        var testModeBehavior: TestModeBehavior { options.testModeBehavior }
        var overrideProductsByName: [String: String] { options.overrideProductsByName }
        var showsPurchaseFailureAlert: Bool { options.showsPurchaseFailureAlert }
        var enableExperimentalDeviceVariables: Bool { options.enableExperimentalDeviceVariables }
        var shouldPreload: Bool { options.shouldPreload }
        var subscriptionStatus: SubscriptionStatus
        /// The purchases recorded here, the device's half of the customer info.
        var purchaseHistory: PurchaseHistory
        /// The web's half, from redeemed web purchases.
        var webCustomerInfo: CustomerInfo
        /// The last customer info computed; the placeholder until one is.
        var customerInfo: CustomerInfo
        /// What the host's store says of products, by store identifier.
        var storeDetails: [String: StoreProductDetails]
        /// The user's variant per experiment, as stored.
        var assignments: [String: Store.Assignment]
        let directory: DataDirectory
        var status: ConfigurationStatus
        var configError: SuperwallError?
        var config: Config?
        var identity: Identity
        var userAttributes: [String: JSON]
        var integrationAttributes: [String: JSON]
        let appInstalledAt: Date
        var deviceFacts: DeviceFacts
        let deviceOverrides: [String: JSON]
        var store: Store { directory.store }
    }

    public init(clock: any WallClock = SystemWallClock(), random: any RandomSource = SystemRandomSource(), delegate: (any SuperwallDelegate)? = nil,
                presenter: (any PaywallPresenter)? = nil, purchaseController: (any PurchaseController)? = nil, retryDelay: @escaping @Sendable (Int, Int) -> Duration = RetryPolicy.superwallBackoff) {
        self.clock = clock
        self.random = random
        host = HostPorts(delegate: delegate, presenter: presenter, purchaseController: purchaseController)
        self.retryDelay = retryDelay
    }

    // MARK: Configure

    /// Opens the data directory, restores the user, tracks the launch events, and loads the
    /// config. A second call with the same key changes nothing and answers the current status,
    /// as SuperwallKit does; a different key is an error.
    ///
    /// `onSessionOpened` is called once the session is open (or could not be), before the
    /// config loads: a host that answers calls concurrently holds the calls sent after
    /// `configure` until then, so they find it begun.
    public func configure(apiKey: String, options: ConfigureOptions, onSessionOpened: @Sendable () -> Void = {}) async -> ConfigureOutcome {
        if let session {
            onSessionOpened()
            guard session.apiKey == apiKey else {
                return ConfigureOutcome(status: session.status, userId: session.identity.userId, error: .apiKeyMismatch(configured: session.apiKey))
            }
            return outcome(of: session)
        }
        do {
            session = try openSession(apiKey: apiKey, options: options)
            onSessionOpened()
            configLoading.failedConfigure = nil
            configLoading.source = options.configSource
            configLoading.maxRetryCount = options.maxConfigRetryCount
            configLoading.explainedOnRefresh = options.explainOnRefresh
            startEventQueue(options)
            trackLaunchEvents()
            await loadConfig(from: options.configSource, options: options)
            if options.watchConfigFile { watchConfigFile(of: options.configSource) }
            try refreshCustomerInfo()
            return outcome(of: session!)
        } catch {
            if session == nil { configLoading.failedConfigure = error }
            onSessionOpened()
            return ConfigureOutcome(status: .failed, userId: nil, error: error)
        }
    }

    /// `failed` after a `configure` that could not open its session (the client may call
    /// `configure` again), `pending` before any.
    public var configurationStatus: ConfigurationStatus { session?.status ?? (configLoading.failedConfigure == nil ? .pending : .failed) }

    /// Why the last `configure` could not open a session, until one does.
    public var configureFailure: SuperwallError? { session == nil ? configLoading.failedConfigure : nil }

    public var config: Config? { session?.config }

    private func outcome(of session: Session) -> ConfigureOutcome {
        ConfigureOutcome(
            status: session.status, userId: session.identity.userId, error: session.configError,
            storeProblems: session.store.problemsFound, testMode: testModeReason, dataDirectory: session.directory.path)
    }

    /// At the end of a session: every commit into the main database file, and the store
    /// marked closed cleanly (`Store.closeCleanly`).
    public func closeStore() {
        store?.closeCleanly()
    }

    private func openSession(apiKey: String, options: ConfigureOptions) throws(SuperwallError) -> Session {
        let path = options.dataDirectory ?? DataDirectory.defaultPath(apiKey: apiKey)
        let directory: DataDirectory
        do {
            directory = try DataDirectory(path: path)
        } catch {
            throw .dataDirectory(error)
        }
        return try persisting {
            let store = directory.store
            if try store.value(.lastApiKey) != apiKey {
                // SuperwallKit's clearCachesIfApiKeyChanged: a cached config is another app's.
                try store.remove(.lastConfig)
                try store.set(apiKey, for: .lastApiKey)
            }
            let appInstalledAt: Date
            if let stored = try store.value(.appInstalledAt) {
                appInstalledAt = Date(timeIntervalSince1970: stored / 1000)
            } else {
                appInstalledAt = clock.now()
                try store.set(appInstalledAt.timeIntervalSince1970 * 1000, for: .appInstalledAt)
            }
            let identity: Identity
            if let alias = try store.value(.aliasId), let seed = try store.value(.seed) {
                identity = Identity(aliasId: alias, appUserId: try store.value(.appUserId), seed: seed)
            } else {
                identity = Identity.anonymous(using: random)
                try save(identity, to: store)
            }
            var facts = DeviceFacts.ofThisProcess()
            facts.apply(options.device)
            let status = try store.value(.subscriptionStatus) ?? (options.usingPurchaseController ? .unknown : .inactive)
            var session = Session(
                apiKey: apiKey, options: options, subscriptionStatus: status,
                purchaseHistory: try store.value(.purchaseHistory) ?? PurchaseHistory(),
                webCustomerInfo: try store.value(.webCustomerInfo) ?? CustomerInfo(),
                customerInfo: try store.value(.customerInfo) ?? .placeholder,
                storeDetails: Dictionary(options.storeProducts.map { ($0.productIdentifier, $0) }, uniquingKeysWith: { _, last in last }),
                assignments: Dictionary(try store.assignments().map { ($0.experimentId, $0) }, uniquingKeysWith: { _, last in last }),
                directory: directory, status: .pending, configError: nil, config: nil, identity: identity,
                userAttributes: try store.value(.userAttributes) ?? [:], integrationAttributes: try store.value(.integrationAttributes) ?? [:],
                appInstalledAt: appInstalledAt, deviceFacts: facts, deviceOverrides: options.device)
            let stored = session.userAttributes
            session.userAttributes = identityAttributes(session, merging: stored)
            // Written only when they changed: a restart on a full disk opens what it has.
            if session.userAttributes != stored { try store.set(session.userAttributes, for: .userAttributes) }
            return session
        }
    }

    /// `app_install` once per data directory, `app_launch` once per process, `first_seen` once
    /// per user, and a new session.
    private func trackLaunchEvents() {
        guard let session else { return }
        tracking.appSessionId = random.uuid().uuidString
        if (try? session.store.value(.didTrackAppInstall)) != true {
            track("app_install", [
                "application_installed_at": .string(ISO8601.string(from: session.appInstalledAt)), "using_purchase_controller": .bool(session.usingPurchaseController),
            ])
            try? session.store.set(true, for: .didTrackAppInstall)
        }
        track("app_launch")
        trackFirstSeenIfNeeded()
        track("session_start")
    }

    private func trackFirstSeenIfNeeded() {
        guard let store, (try? store.value(.didTrackFirstSeen)) != true else { return }
        track("first_seen")
        try? store.set(true, for: .didTrackFirstSeen)
    }

    /// SuperwallKit's fetch strategy (`ConfigManager.fetchConfiguration`):
    /// 1. a cached config and a stored active subscription: the cache at once, and a refresh
    ///    in the background;
    /// 2. a cached config whose `enable_config_refresh_v2` is on: one attempt limited to a
    ///    second, else the cache and a refresh in the background;
    /// 3. otherwise the full retries, then the cache if there is one, else `config_fail`.
    private func loadConfig(from source: any ConfigSource, options: ConfigureOptions) async {
        defer {
            track("config_attributes", SuperwallOptionsDump.make(options).merging(["using_purchase_controller": .bool(options.usingPurchaseController), "has_delegate": .bool(host.delegate != nil)]) { _, sdk in sdk })
        }
        let cached = (try? await Self.offloaded { [store] in Self.config(cached: (try? store?.document(.lastConfig)) ?? nil) }) ?? nil
        let subscribed = (try? store?.value(.subscriptionStatus))??.isActive == true
        DecisionLog.configManager.debug(
            "configure: the config comes from \(source.description)\(cached.map { "; a cached build \($0.buildId) is kept" } ?? "; nothing is cached")")
        if let cached, subscribed {
            DecisionLog.configManager.debug("configure: the user is subscribed, so the cached build \(cached.buildId) is used at once and refreshed in the background")
            adopt(cached, refresh: nil)
            refreshInBackground(from: source, options: options)
            return
        }
        let limited = cached?.featureFlags.enableConfigRefreshV2 == true
        do {
            try await fetchAndAdopt(
                from: source, cachedBuildId: cached?.buildId, maxRetries: limited ? 0 : options.maxConfigRetryCount,
                timeLimit: limited ? .seconds(1) : options.timeouts.config)
        } catch {
            if let cached {
                DecisionLog.configManager.debug("configure: the fetch failed (\(error)); the cached build \(cached.buildId) is used")
                adopt(cached, refresh: RefreshReport(cacheStatus: "CACHED", fetchSeconds: 0, retryCount: 0))
                refreshInBackground(from: source, options: options)
            } else {
                let reason = (error as? ConfigDecodingError).map { "the config is invalid at \($0)" } ?? "\(error)"
                DecisionLog.configManager.debug("configure: no config: \(reason)")
                session?.status = .failed
                // An invalid config is the client's to fix, at a path: not a fetch that failed.
                session?.configError = (error as? ConfigDecodingError).map(SuperwallError.invalidConfig) ?? .configUnavailable(reason)
                track("config_fail", ["error_message": .string(reason)])
                configLoading.waiters.resumeAll(())
            }
        }
    }

    /// Fetches, decodes, caches and adopts a config, tracking `config_refresh`.
    /// `cachedBuildId` is sent as `X-Static-Config-Build-Id`.
    func fetchAndAdopt(from source: any ConfigSource, cachedBuildId: String?, maxRetries: Int, timeLimit: Duration?) async throws {
        let started = clock.now()
        let retries = RetryCounter()
        let request = ConfigRequest(
            apiKey: session?.apiKey ?? "", headers: requestHeaders(cachedBuildId: cachedBuildId),
            retryPolicy: RetryPolicy(maxRetries: maxRetries, delay: retryDelay), timeLimit: timeLimit, onRetry: { retries.record($0) })
        let body = try await Self.offloaded { try await source.fetchConfig(request) }
        let config: Config
        do {
            let previous = session?.config
            config = try await Self.offloaded { try Config.decode(from: body, reusing: previous) }
        } catch {
            if source is HTTPConfigSource {
                track("networkDecoding_fail", ["request_url": .string(source.description), "response": .string(String(decoding: body.prefix(1024), as: UTF8.self))])
            }
            throw error
        }
        if let store {
            // Megabytes into SQLite: offloaded too.
            _ = try? await Self.offloaded { try store.setDocument(body, for: .lastConfig) }
        }
        adopt(config, refresh: RefreshReport(cacheStatus: "NOT_CACHED", fetchSeconds: clock.now().timeIntervalSince(started), retryCount: retries.count))
    }

    /// A fetch with the full retries that replaces the config when it succeeds, and leaves
    /// the config in use alone when it does not.
    private func refreshInBackground(from source: any ConfigSource, options: ConfigureOptions) {
        configLoading.backgroundRefresh = startTask { superwall in
            await superwall.inTurn(of: superwall.configLoading.refreshes) {
                try? await superwall.fetchAndAdopt(
                    from: source, cachedBuildId: superwall.config?.buildId, maxRetries: options.maxConfigRetryCount, timeLimit: options.timeouts.config)
            }
        }
    }

    /// Waits for the last background config refresh (of `configure` or a new app session),
    /// if one is running.
    public func awaitBackgroundRefresh() async {
        await configLoading.backgroundRefresh?.value
    }

    /// A request to the Superwall API beyond the config: the session's key, and SuperwallKit's
    /// headers with the build id of the config in use.
    func apiRequest(retryPolicy: RetryPolicy = RetryPolicy(maxRetries: 0), attemptTimeout: TimeInterval) -> ConfigRequest {
        ConfigRequest(apiKey: session?.apiKey ?? "", headers: requestHeaders(cachedBuildId: session?.config?.buildId),
                      retryPolicy: retryPolicy, attemptTimeout: attemptTimeout)
    }

    /// SuperwallKit's headers for every API request (`DependencyContainer.makeHeaders`).
    func requestHeaders(cachedBuildId: String?) -> [String: String] {
        guard let session else { return [:] }
        let device = deviceAttributes()
        func text(_ key: String) -> String {
            switch device[key] {
            case .string(let value)?: return value
            case .int(let value)?: return String(value)
            case .bool(let value)?: return String(value)
            default: return ""
            }
        }
        return [
            "Authorization": "Bearer \(session.apiKey)",
            "X-Platform": text("platform"), "X-Platform-Environment": "SDK", "X-Platform-Wrapper": text("platformWrapper"),
            "X-Platform-Wrapper-Version": text("platformWrapperVersion"),
            "X-App-User-ID": session.identity.appUserId ?? "", "X-Alias-ID": session.identity.aliasId, "X-URL-Scheme": "",
            "X-Vendor-ID": text("vendorId"), "X-App-Version": text("appVersion"), "X-OS-Version": text("osVersion"),
            "X-Device-Model": text("deviceModel"), "X-Device-Locale": text("deviceLocale"),
            "X-Device-Language-Code": text("deviceLanguageCode"), "X-Device-Currency-Code": "", "X-Device-Currency-Symbol": "",
            "X-Device-Timezone-Offset": text("timezoneOffset"), "X-App-Install-Date": text("appInstallDate"), "X-Radio-Type": "Wifi",
            "X-Device-Interface-Style": text("interfaceStyle"), "X-SDK-Version": SuperwallSDK.referenceVersion,
            "X-Bundle-ID": text("bundleId"), "X-Low-Power-Mode": "false", "X-Is-Sandbox": text("isSandbox"),
            "X-Static-Config-Build-Id": cachedBuildId ?? "", "X-Current-Time": ISO8601.string(from: clock.now()),
            "X-Entitlements": activeEntitlementIds(session.subscriptionStatus), "Content-Type": "application/json",
        ]
    }

    /// `X-Entitlements`: the active entitlement ids, comma-joined; empty when none.
    private func activeEntitlementIds(_ status: SubscriptionStatus) -> String {
        status.activeEntitlements.map(\.id).joined(separator: ",")
    }

    /// What `config_refresh` reports about a fetch.
    private struct RefreshReport {
        var cacheStatus: String
        var fetchSeconds: Double
        var retryCount: Int
    }

    /// Puts a config in use. `refresh` is nil on the path that uses the cache without
    /// fetching first, where SuperwallKit tracks no `config_refresh`.
    private func adopt(_ config: Config, refresh: RefreshReport?) {
        let isFirstConfig = session?.config == nil
        DecisionLog.configManager.debug(
            "config build \(config.buildId) in use: \(config.triggers.count) placements, \(config.paywalls.count) paywalls, \(config.products.count) products\(refresh.map { ", \($0.cacheStatus == "CACHED" ? "from the cache" : "fetched in \(String(format: "%.3f", $0.fetchSeconds)) s after \($0.retryCount) retries")" } ?? ", from the cache")")
        session?.config = config
        rulesCallMatches.store(config.triggers.contains { $0.audiences.contains { $0.rule?.mayCallMatches == true } }, ordering: .relaxed)
        warnOfAnUnknownBundleId(against: config)
        announceTestMode()
        session?.status = .configured
        tracking.suppressesVerboseEvents = config.featureFlags.disableVerboseEvents && session?.deviceFacts.isSandbox == false && !isTestModeActive
        session?.configError = nil
        paywalls.loaded = paywalls.loaded.filter { config.paywall(identifier: $0.key)?.cacheKey == $0.value.paywall.cacheKey }
        chooseAssignments()
        if let refresh {
            track("config_refresh", [
                "config_build_id": .string(config.buildId), "retry_count": .int(Int64(refresh.retryCount)),
                "cache_status": .string(refresh.cacheStatus), "fetch_duration": .double(refresh.fetchSeconds),
            ])
        }
        trackDeviceAttributes()
        // The product → entitlement map may have changed.
        try? refreshCustomerInfo()
        configLoading.waiters.resumeAll(())
        routePendingDeepLink()
        pollWebEntitlements(force: isFirstConfig)
        preloadIfEnabled()
    }

    /// Once a session: a config that names the app's bundle id (`bundle_id_config`) when the
    /// client gave none, so SuperwallKit's automatic test mode by bundle cannot apply.
    private func warnOfAnUnknownBundleId(against config: Config) {
        guard let session, !session.deviceFacts.isBundleIdFromClient, !configLoading.warnedOfUnknownBundleId,
              let configured = config.bundleIdConfig, !configured.isEmpty else { return }
        configLoading.warnedOfUnknownBundleId = true
        Self.logger.warning(
            "the config names the app's bundle id (bundle_id_config \(configured)) but configure gave none: automatic test mode by bundle mismatch is off; set configure's device.bundleId to the app's bundle id")
    }

    static let logger = Logger(label: "superwall.config")

    /// `device_attributes`: the device template without its date and time fields.
    func trackDeviceAttributes() {
        track("device_attributes", deviceAttributes().filter { !Self.dateTimeKeys.contains($0.key) })
    }

    private static let dateTimeKeys: Set = ["utcDate", "localDate", "utcTime", "localTime", "utcDateTime", "localDateTime"]

    // MARK: Identity

    public func identity() throws(SuperwallError) -> Identity {
        guard let session else { throw .notConfigured }
        return session.identity
    }

    /// SuperwallKit's `identify`: trims the id; the same id is a no-op; switching from one
    /// identified user to another resets first; anonymous to identified keeps the alias,
    /// attributes and assignments. Tracks `identity_alias`.
    ///
    /// A switch of users is one transaction (the reset, the new identity, its attributes and
    /// its first assignments): after a crash at any moment the data directory holds the old
    /// user or the new one, whole.
    public func identify(userId: String) throws(SuperwallError) -> Identity {
        guard var current = session else { throw .notConfigured }
        guard let userId = Identity.normalizedUserId(userId) else { throw .invalidUserId }
        if current.identity.appUserId == userId { return current.identity }
        let switching = current.identity.appUserId != nil
        if switching { current = anonymized(current) }
        current.identity.appUserId = userId
        let reseeds = current.config?.featureFlags.enableUserIdSeed == true
        if reseeds { current.identity.seed = Identity.seed(forUserId: userId) }
        current.userAttributes = identityAttributes(current, merging: current.userAttributes)
        if switching, let config = current.config {
            current.assignments = AssignmentPlanner.plan(for: config, stored: [], random: random)
        }
        let updated = current
        try persisting {
            try updated.store.changing { changes in
                if switching {
                    try changes.resetUser()
                    try changes.replaceAssignments(with: updated.assignments.values.sorted { $0.experimentId < $1.experimentId })
                }
                try save(updated.identity, in: changes)
                try changes.set(updated.userAttributes, for: .userAttributes)
            }
        }
        session = updated
        if switching {
            trackResetAttributes()
            try userWasReset()
        }
        // SuperwallKit saves its ids, and tracks the merged attributes, as each is set: the
        // user id, then (after the alias) the seed the user id gives.
        DecisionLog.identityManager.debug(
            "identify: user \(userId)\(switching ? ", switching from another identified user (reset first: new alias, no attributes or assignments)" : ", keeping the anonymous user's alias, attributes and assignments")")
        trackIdentityAttributes()
        track("identity_alias")
        if reseeds { trackIdentityAttributes() }
        announceTestMode()
        return updated.identity
    }

    /// `identify` with SuperwallKit's `IdentityOptions`: the server's assignments for the user
    /// are fetched (with a config source that keeps them), before answering when
    /// `restorePaywallAssignments`, in the background otherwise.
    public func identify(userId: String, restorePaywallAssignments: Bool) async throws(SuperwallError) -> Identity {
        let previous = session?.identity.appUserId
        let identity = try identify(userId: userId)
        guard identity.appUserId != previous else { return identity }
        redeemExistingCodes()
        if restorePaywallAssignments {
            _ = await waitForConfig()
            await fetchServerAssignments()
        } else {
            startTask { superwall in
                _ = await superwall.waitForConfig()
                await superwall.fetchServerAssignments()
            }
        }
        return session?.identity ?? identity
    }

    /// SuperwallKit's `reset`: a new anonymous user with a new alias and seed and no
    /// attributes; the placement log keeps only `app_install` and `app_launch`. Tracks
    /// `first_seen` again, then `reset`.
    public func reset() throws(SuperwallError) -> Identity {
        guard session != nil else { throw .notConfigured }
        try resetUser(trackingReset: true)
        return session!.identity
    }

    private func resetUser(trackingReset: Bool) throws(SuperwallError) {
        guard let current = session else { throw .notConfigured }
        let updated = anonymized(current)
        try persisting {
            try updated.store.changing { changes in
                try changes.resetUser()
                try save(updated.identity, in: changes)
                try changes.set(updated.userAttributes, for: .userAttributes)
            }
        }
        session = updated
        DecisionLog.identityManager.debug("reset: a new anonymous user \(updated.identity.aliasId), seed \(updated.identity.seed)")
        trackResetAttributes()
        announceTestMode()
        try userWasReset()
        if trackingReset {
            track("reset")
            preloadIfEnabled()
        }
    }

    /// `session` as a reset leaves it: a new anonymous user with a new alias and seed, no
    /// attributes, assignments or web entitlements.
    private func anonymized(_ session: Session) -> Session {
        var reset = session
        reset.identity = Identity.anonymous(using: random)
        reset.userAttributes = identityAttributes(reset, merging: [:])
        reset.integrationAttributes = [:]
        reset.assignments = [:]
        reset.webCustomerInfo = CustomerInfo()
        return reset
    }

    /// `user_attributes` once for each id a reset sets: SuperwallKit tracks the merge as it sets
    /// each of the user id, the alias and the seed.
    private func trackResetAttributes() {
        for _ in 0..<3 { trackIdentityAttributes() }
    }

    /// `user_attributes` with the user's attributes as they are now.
    private func trackIdentityAttributes() {
        guard let session else { return }
        track("user_attributes", ["application_installed_at": .string(ISO8601.string(from: session.appInstalledAt))], custom: session.userAttributes)
    }

    /// What follows a reset once it is on disk: the new user's assignments, customer info
    /// and `first_seen`.
    private func userWasReset() throws(SuperwallError) {
        chooseAssignments()
        try refreshCustomerInfo()
        trackFirstSeenIfNeeded()
    }

    private func save(_ identity: Identity, in changes: Store.Changes) throws {
        try changes.set(identity.aliasId, for: .aliasId)
        try changes.set(identity.seed, for: .seed)
        if let appUserId = identity.appUserId { try changes.set(appUserId, for: .appUserId) } else { try changes.remove(.appUserId) }
    }

    private func save(_ identity: Identity, to store: Store) throws {
        try store.changing { try save(identity, in: $0) }
    }

    /// The attributes identity keeps in the user's attributes: `aliasId`, `seed`, `appUserId`
    /// (when identified) and `applicationInstalledAt`.
    func identityAttributes(_ session: Session, merging attributes: [String: JSON]) -> [String: JSON] {
        var merged = attributes
        merged["aliasId"] = .string(session.identity.aliasId)
        merged["seed"] = .int(Int64(session.identity.seed))
        merged["appUserId"] = session.identity.appUserId.map(JSON.string)
        merged["applicationInstalledAt"] = .string(ISO8601.string(from: session.appInstalledAt))
        return merged
    }

    // MARK: Attributes

    public func userAttributes() throws(SuperwallError) -> [String: JSON] {
        guard let session else { throw .notConfigured }
        return session.userAttributes
    }

    /// Merges with SuperwallKit's rules (see `UserAttributes.merge`), persists, and tracks
    /// `user_attributes` with the merged attributes.
    public func setUserAttributes(_ changes: [String: JSON?]) throws(SuperwallError) -> [String: JSON] {
        guard var current = session else { throw .notConfigured }
        let installedAt = ISO8601.string(from: current.appInstalledAt)
        current.userAttributes = UserAttributes.merge(changes, into: current.userAttributes, applicationInstalledAt: installedAt)
        DecisionLog.identityManager.debug(
            "user attributes merged: \(changes.keys.sorted().map { changes[$0]! == nil || changes[$0]!! == .null ? "-\($0)" : $0 }.joined(separator: ", ")) (\(current.userAttributes.count) in all)")
        try Self.checkTotal(of: current.userAttributes)
        let updated = current
        try persisting { try updated.store.set(updated.userAttributes, for: .userAttributes) }
        session = updated
        track("user_attributes", ["application_installed_at": .string(installedAt)], custom: updated.userAttributes)
        return updated.userAttributes
    }

    private static func checkTotal(of attributes: [String: JSON]) throws(SuperwallError) {
        let count = UserAttributes.memberCount(attributes)
        guard count <= UserAttributes.totalMemberLimit else { throw .attributesOverLimit(count: count, limit: UserAttributes.totalMemberLimit) }
    }

    public func integrationAttributes() throws(SuperwallError) -> [String: JSON] {
        guard let session else { throw .notConfigured }
        return session.integrationAttributes
    }

    /// Merges integration ids (a null removes one), persists them, and, as SuperwallKit does,
    /// also writes them into the user's attributes. Tracks `integration_attributes`.
    public func setIntegrationAttributes(_ changes: [String: JSON?]) throws(SuperwallError) -> [String: JSON] {
        guard var current = session else { throw .notConfigured }
        // They become user attributes too: checked against that bound before anything is stored.
        try Self.checkTotal(of: UserAttributes.merge(changes, into: current.userAttributes, applicationInstalledAt: ""))
        for (key, value) in changes {
            if let value, value != .null { current.integrationAttributes[key] = value } else { current.integrationAttributes.removeValue(forKey: key) }
        }
        let updated = current
        try persisting { try updated.store.set(updated.integrationAttributes, for: .integrationAttributes) }
        session = updated
        track("integration_attributes", [:], custom: updated.integrationAttributes)
        _ = try setUserAttributes(changes)
        return updated.integrationAttributes
    }

    // MARK: Device

    /// SuperwallKit's `localeIdentifier` option: the locale reported in device attributes
    /// (and used for paywalls); nil goes back to the device's own.
    public func setLocaleIdentifier(_ identifier: String?) {
        device.locale = identifier
    }

    /// SuperwallKit's `setPlatformWrapper(_:version:)`: a wrapper SDK (Flutter, Expo, ...) says
    /// who it is; the device attributes (`platformWrapper`, `platformWrapperVersion`) and the
    /// API's `X-Platform-Wrapper` headers report it instead of the bridge.
    public func setPlatformWrapper(_ name: String, version: String) {
        device.platformWrapper = (name, version)
    }

    public enum InterfaceStyle: String, Sendable {
        case light = "Light"
        case dark = "Dark"
    }

    /// SuperwallKit's `setInterfaceStyle(to:)`: forces light or dark; nil follows the device.
    /// Tracks `device_attributes` after the change, as SuperwallKit does.
    public func setInterfaceStyle(_ style: InterfaceStyle?) {
        device.interfaceStyle = style?.rawValue
        if session != nil { trackDeviceAttributes() }
    }

    /// The context audience rules see now, for `params` (nil outside a placement).
    public func audienceContext(params: [String: JSON]?) throws(SuperwallError) -> AudienceContext {
        guard let session else { throw .notConfigured }
        return AudienceContext(
            userAttributes: session.userAttributes, isLoggedIn: session.identity.isLoggedIn,
            device: deviceTemplate(), params: params,
            history: StorePlacementHistory(store: session.store, now: clock.now()))
    }

    public func deviceAttributes() -> [String: JSON] {
        deviceTemplate()()
    }

    /// The device template as of now, built when first called: most audience rules never
    /// read `device`, and building it costs two queries and some date arithmetic.
    func deviceTemplate() -> @Sendable () -> [String: JSON] {
        let now = clock.now()
        // Placements in the same second, with nothing changed between them, share one template;
        // this check spares them copying the inputs out of the session.
        if let cached = device.cachedTemplate(second: Self.templateSecond(now)) { return { cached } }
        guard let session else { return { [:] } }
        var facts = session.deviceFacts
        var overrides = session.deviceOverrides
        device.apply(to: &facts, attributes: &overrides)
        // SuperwallKit's test mode makes the device a sandbox one, for rules, events and headers.
        if isTestModeActive {
            facts.isSandbox = true
            overrides.removeValue(forKey: "isSandbox")
        }
        let store = session.store
        let (apiKey, identity, installedAt, status) = (session.apiKey, session.identity, session.appInstalledAt, session.subscriptionStatus)
        let customerInfo = session.customerInfo.read(by: identity.userId)
        let experimentalVariables = session.enableExperimentalDeviceVariables
        let (cache, version) = (device.templateCache, device.templateVersion)
        return { [facts, overrides] in
            cache.attributes(version: version, second: Self.templateSecond(now)) {
            DeviceTemplate.attributes(DeviceTemplate.Inputs(
                facts: facts, overrides: overrides, apiKey: apiKey, identity: identity,
                appInstalledAt: installedAt, now: now, timeZone: .current, sdkVersion: SuperwallSDK.referenceVersion,
                subscriptionStatus: status, customerInfo: customerInfo,
                totalPaywallViews: (try? store.placementCount(named: "paywall_open", since: nil, until: now)) ?? 0,
                lastPaywallView: try? store.lastPlacement(named: "paywall_open", before: now),
                experimentalVariables: experimentalVariables))
            }
        }
    }

    /// The second a device template is built for; it holds the time in whole seconds.
    nonisolated static func templateSecond(_ time: Date) -> Int64 { Int64(time.timeIntervalSince1970.rounded(.down)) }

    // MARK: Events

    /// Commits the events tracked so far to the placement log. Call it before answering the
    /// call that tracked them: they are then durable by the time anyone hears of the answer.
    public nonisolated func commitTrackedEvents() throws(SuperwallError) {
        do {
            try storeOfSession.withLock { $0 }?.commitPendingWrites()
        } catch {
            throw .storage(from: error)
        }
    }

    /// Records an event in the placement log and hands a Superwall event (not the app's own
    /// placements) to the delegate. The events that may present a paywall are then offered
    /// to the implicit triggers.
    @discardableResult
    func track(_ name: String, _ superwallParameters: consuming [String: JSON] = [:], custom: [String: JSON] = [:],
               isSuperwallEvent: Bool = true, subject: EventSubject = .none) -> TrackedEvent {
        record(makeEvent(name, superwallParameters, custom: custom, isSuperwallEvent: isSuperwallEvent, subject: subject))
    }

    /// The parameters are consumed: the caller's dictionary gains `app_session_id` in place
    /// rather than being copied whole (twenty-odd entries for a `trigger_fire`).
    /// `stamped`: the parameters carry this app session's id already (a repeat's).
    func makeEvent(_ name: String, _ superwallParameters: consuming [String: JSON] = [:], custom: [String: JSON] = [:],
                   isSuperwallEvent: Bool = true, subject: EventSubject = .none, stamped: Bool = false) -> TrackedEvent {
        var parameters = superwallParameters
        // Only when it differs: parameters shared with a memo are then not copied.
        if !stamped, !tracking.appSessionId.isEmpty, parameters["app_session_id"]?.stringValue != tracking.appSessionId {
            parameters["app_session_id"] = .string(tracking.appSessionId)
        }
        var event = TrackedEvent(
            id: random.uuid(), name: name, isSuperwallEvent: isSuperwallEvent, superwallParameters: parameters,
            customParameters: custom, createdAt: clock.now())
        event.subject = subject
        return event
    }

    /// `offeringImplicitTrigger` is false for events whose trigger the caller offers itself
    /// (custom placements, named by the paywall rather than by kind).
    /// Tracks `name` with the params `remembered` has when it matches `key` and the app
    /// session; else with `parameters()`. Answers the event and what to remember for the next
    /// time. `custom` and `isSuperwallEvent` are as for `track`; `custom` is part of `key`.
    @discardableResult
    func trackRepeating<Key: Equatable & Sendable>(
        _ name: String, key: Key, remembered: RepeatedEvent<Key>?, custom: [String: JSON] = [:], isSuperwallEvent: Bool = true,
        _ parameters: () -> [String: JSON]
    ) -> (event: TrackedEvent, memo: RepeatedEvent<Key>) {
        if let remembered, remembered.matches(key, appSessionId: tracking.appSessionId) {
            var event = makeEvent(name, remembered.parameters, custom: custom, isSuperwallEvent: isSuperwallEvent, stamped: true)
            event.delegateText = remembered.delegateText
            return (record(event, audienceJSON: remembered.audienceJSON), remembered)
        }
        var event = makeEvent(name, parameters(), custom: custom, isSuperwallEvent: isSuperwallEvent)
        let audienceJSON = event.audienceParametersJSON
        let memo = RepeatedEvent(key: key, parameters: event.superwallParameters, audienceJSON: audienceJSON)
        event.delegateText = memo.delegateText
        record(event, audienceJSON: audienceJSON)
        return (event, memo)
    }

    /// `audienceJSON` is the event's `audienceParametersJSON`, when the caller has it already.
    @discardableResult
    func record(_ event: TrackedEvent, offeringImplicitTrigger: Bool = true, audienceJSON: [UInt8]? = nil) -> TrackedEvent {
        let queued = sends(event)
        store?.logPlacement(event.name, at: event.createdAt, paramsJSON: audienceJSON ?? event.audienceParametersJSON, eventId: event.id,
                            queued: queued)
        if queued { tracking.queue?.noteArrival() }
        if event.name == "paywall_open" { device.templateInputsChanged() }
        if event.isSuperwallEvent {
            host.delegate?.handleSuperwallEvent(event)
            if offeringImplicitTrigger, let trigger = ImplicitTrigger(eventName: event.name) { offerImplicitTrigger(trigger, event: event) }
        }
        return event
    }

    /// Starts `work` on this actor in a task of its own, on the `OffloadExecutor`.
    ///
    /// Never a bare `Task {}`: a task without an executor preference schedules this actor on
    /// the cooperative pool, and while the pool is busy every request that needs the actor
    /// (and every deadline that resumes on it) would wait for a free thread of the pool.
    ///
    /// The task holds the actor weakly until it starts: waiting for a thread, it does not keep a
    /// session that is ending (and its data directory) open.
    @discardableResult
    nonisolated func startTask(_ work: @escaping @Sendable (isolated Superwall) async -> Void) -> Task<Void, Never> {
        Task(executorPreference: OffloadExecutor.shared) { [weak self] in
            guard let self else { return }
            await work(self)
        }
    }

    /// Runs heavy work (reading, decoding and storing a config of many megabytes) on the
    /// `OffloadExecutor`, whatever executor the calling task prefers: a host may run its calls
    /// on a thread with other duties (the bridge runs them on the thread that reads its input),
    /// and heavy work must not hold it.
    static func offloaded<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        try await Task.detached(executorPreference: OffloadExecutor.shared, operation: work).value
    }

    /// Counts retries as a fetch reports them, from whatever task it runs on.
    private final class RetryCounter: Sendable {
        private let value = Mutex(0)
        func record(_ attempt: Int) { value.withLock { $0 = attempt } }
        var count: Int { value.withLock { $0 } }
    }

    func persisting<Result>(_ body: () throws -> Result) throws(SuperwallError) -> Result {
        do {
            return try body()
        } catch {
            throw .storage(from: error)
        }
    }
}
