import Executors
import Foundation
import Logging

extension Superwall {
    /// Opens the data directory, restores the user, tracks the launch events, and loads the
    /// config. A second call with the same key changes nothing and answers the current status,
    /// as SuperwallKit does; a different key is an error. Every failure is the outcome's but
    /// one: what it tracked could not be made durable (see `answering`).
    public func configure(apiKey: String, options: ConfigureOptions) async throws(SuperwallError) -> ConfigureOutcome {
        try await finishConfiguring(startConfiguring(apiKey: apiKey, options: options))
    }

    /// What `startConfiguring` leaves for `finishConfiguring`.
    public struct ConfigureStart: Sendable {
        fileprivate enum Stage: Sendable {
            /// Nothing is left to load: the SDK was configured before, or the session could not open.
            case done(ConfigureOutcome)
            case loading(ConfigureOptions, SuperwallBackend)
        }

        fileprivate let stage: Stage
    }

    /// `configure` up to the config: the session opens, the user is restored and the launch
    /// events are tracked, without waiting on anything. As SuperwallKit's `configure` returns
    /// before its config loads, calls made from here on find the SDK configuring.
    public func startConfiguring(apiKey: String, options: ConfigureOptions) throws(SuperwallError) -> ConfigureStart {
        try answeringWithoutSuspending { () throws(SuperwallError) -> ConfigureStart in
            beginConfiguring(apiKey: apiKey, options: options)
        }
    }

    private func beginConfiguring(apiKey: String, options: ConfigureOptions) -> ConfigureStart {
        if let session {
            guard session.apiKey == apiKey else {
                return ConfigureStart(
                    stage: .done(
                        ConfigureOutcome(
                            status: session.status,
                            userId: users.identity.userId,
                            error: .apiKeyMismatch(configured: session.apiKey)
                        )
                    )
                )
            }
            return ConfigureStart(stage: .done(outcome(of: session)))
        }
        if let seed = options.randomSeed { random = SeededRandomSource(seed: seed) }
        let opened: Session
        do {
            opened = try openSession(apiKey: apiKey, options: options)
            let stored = try persisting { try opened.store.assignments() }
            session = opened
            userAssignments.sessionOpened(with: stored)
            hostAccess.upkeep.watch(opened.store)
        } catch {
            configLoading.failed(error)
            return ConfigureStart(stage: .done(ConfigureOutcome(status: .failed, userId: nil, error: error)))
        }
        let backend = options.configSource.backend
        configLoading.start(from: backend, options: options)
        hostAccess.recordsDecisions.store(options.recordDecisions, ordering: .relaxed)
        tracker.begin(
            store: opened.store,
            directory: opened.directory.path,
            ids: random,
            collector: configLoading.backend?.collector,
            request: { [weak self] in await self?.eventRequest() ?? ConfigRequest(apiKey: "") },
            options: options
        )
        trackLaunchEvents()
        return ConfigureStart(stage: .loading(options, backend))
    }

    /// The rest of `configure`: loads the config (or adopts the cached one), and answers the
    /// outcome, as SuperwallKit's configure completion reports it.
    public func finishConfiguring(_ start: ConfigureStart) async throws(SuperwallError) -> ConfigureOutcome {
        try await answering { () async throws(SuperwallError) -> ConfigureOutcome in
            await loadConfig(after: start)
        }
    }

    private func loadConfig(after start: ConfigureStart) async -> ConfigureOutcome {
        switch start.stage {
        case .done(let outcome):
            return outcome
        case .loading(let options, let backend):
            await loadConfig(from: options.configSource, options: options)
            if options.watchConfigFile { watchConfigFile(of: backend) }
            do {
                try refreshCustomerInfo()
            } catch {
                return ConfigureOutcome(status: .failed, userId: nil, error: error)
            }
            return outcome(of: session!)
        }
    }

    /// `failed` after a `configure` that could not open its session (the client may call
    /// `configure` again), `pending` before any.
    public var configurationStatus: ConfigurationStatus {
        session?.status ?? (configLoading.failedConfigure == nil ? .pending : .failed)
    }

    /// Why the last `configure` could not open a session, until one does.
    public var configureFailure: SuperwallError? { session == nil ? configLoading.failedConfigure : nil }

    public var config: Config? { session?.config }

    private func outcome(of session: Session) -> ConfigureOutcome {
        ConfigureOutcome(
            status: session.status,
            userId: users.identity.userId,
            error: session.configError,
            storeProblems: session.store.problemsFound,
            testMode: testModeReason,
            dataDirectory: session.directory.path,
            // What decoding found, which costs nothing more to say; compiling every rule to
            // report the ones that fail is `validate`'s and a refresh's work, not a launch's.
            configProblems: session.config.map { $0.droppedElements + $0.ignoredMembers } ?? []
        )
    }

    /// At the end of a session: every commit into the main database file, and the store
    /// marked closed cleanly (`Store.closeCleanly`).
    public func closeStore() {
        store?.closeCleanly()
    }

    /// The end of the session, once its connection has ended: the config file is watched no
    /// more, events stop going out (those not sent stay in the data directory), and the data
    /// directory closes (`DataDirectory.close()`), so the next session on it, in this process
    /// or another, opens it at once. A call after it that needs the store fails with `storage`.
    public func endSession() async {
        configLoading.end()
        await tracker.end()?.stop()
        session?.directory.close()
    }

    private func openSession(apiKey: String, options: ConfigureOptions) throws(SuperwallError) -> Session {
        let path = options.dataDirectory ?? DataDirectory.defaultPath(apiKey: apiKey)
        let directory: DataDirectory
        do {
            directory = try DataDirectory(
                path: path,
                waitingForThisProcess: options.waitsForThisProcessToLetGo,
                storeWorker: options.storeWorker
            )
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
            try users.sessionOpened(from: store, appInstalledAt: appInstalledAt, random: random)
            var facts = DeviceFacts.ofThisProcess()
            facts.apply(options.device)
            try userEntitlements.sessionOpened(
                from: store,
                defaultStatus: options.usingPurchaseController ? .unknown : .inactive
            )
            return Session(Session.Fields(apiKey: apiKey, options: options, directory: directory, deviceFacts: facts))
        }
    }

    /// `app_install` once per data directory, `app_launch` once per process, `first_seen` once
    /// per user, and a new session.
    private func trackLaunchEvents() {
        guard let session else { return }
        tracker.startAppSession(random.uuid().uuidString)
        if (try? session.store.value(.didTrackAppInstall)) != true {
            track(
                "app_install",
                [
                    "application_installed_at": .string(ISO8601.string(from: users.appInstalledAt)),
                    "using_purchase_controller": .bool(session.usingPurchaseController),
                ]
            )
            try? session.store.set(true, for: .didTrackAppInstall)
        }
        track("app_launch")
        trackFirstSeenIfNeeded()
        track("session_start")
    }

    func trackFirstSeenIfNeeded() {
        guard let store, (try? store.value(.didTrackFirstSeen)) != true else { return }
        track("first_seen")
        try? store.set(true, for: .didTrackFirstSeen)
    }

    /// Puts a config in use. `refresh` is nil on the path that uses the cache without
    /// fetching first, where SuperwallKit tracks no `config_refresh`.
    func adopt(_ config: Config, refresh: ConfigFetch.Report?) {
        let isFirstConfig = session?.config == nil
        DecisionLog.configManager.debug(
            "config build \(config.buildId) in use: \(config.triggers.count) placements, \(config.paywalls.count) paywalls, \(config.products.count) products\(refresh.map { ", \($0.cacheStatus == "CACHED" ? "from the cache" : "fetched in \(String(format: "%.3f", $0.fetchSeconds)) s after \($0.retryCount) retries")" } ?? ", from the cache")"
        )
        session?.configDidChange(config)
        warnOfAnUnknownBundleId(against: config)
        announceTestMode()
        tracker.configDidChange(config, isSandbox: session?.deviceFacts.isSandbox != false || isTestModeActive)
        paywalls.configDidChange(config)
        chooseAssignments()
        if let refresh {
            track(
                "config_refresh",
                [
                    "config_build_id": .string(config.buildId), "retry_count": .int(Int64(refresh.retryCount)),
                    "cache_status": .string(refresh.cacheStatus), "fetch_duration": .double(refresh.fetchSeconds),
                ]
            )
        }
        trackDeviceAttributes()
        // The product → entitlement map may have changed.
        try? refreshCustomerInfo()
        configLoading.configDidChange()
        routePendingDeepLink()
        pollWebEntitlements(force: isFirstConfig)
        preloadIfEnabled()
    }

    /// Once a session: a config that names the app's bundle id (`bundle_id_config`) when the
    /// client gave none, so SuperwallKit's automatic test mode by bundle cannot apply.
    private func warnOfAnUnknownBundleId(against config: Config) {
        guard let session, !session.deviceFacts.isBundleIdFromClient, let configured = config.bundleIdConfig,
            !configured.isEmpty, configLoading.sayingUnknownBundleId()
        else { return }
        Self.logger.warning(
            "the config names the app's bundle id (bundle_id_config \(configured)) but configure gave none: automatic test mode by bundle mismatch is off; set configure's device.bundleId to the app's bundle id"
        )
    }

    static let logger = Logger(label: "superwall.config")

    /// `device_attributes`: the device template without its date and time fields.
    func trackDeviceAttributes() {
        track("device_attributes", deviceAttributes().filter { !Self.dateTimeKeys.contains($0.key) })
    }

    private static let dateTimeKeys: Set = [
        "utcDate", "localDate", "utcTime", "localTime", "utcDateTime", "localDateTime",
    ]
}
