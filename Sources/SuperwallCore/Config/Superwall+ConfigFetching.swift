import Executors
import Foundation
import Logging

/// Where `configure` and refreshes get the config: SuperwallKit's fetch strategy, with the
/// requests to its API.
extension Superwall {
    /// SuperwallKit's fetch strategy (`ConfigManager.fetchConfiguration`):
    /// 1. a cached config and a stored active subscription: the cache at once, and a refresh
    ///    in the background;
    /// 2. a cached config whose `enable_config_refresh_v2` is on: one attempt limited to a
    ///    second, else the cache and a refresh in the background;
    /// 3. otherwise the full retries, then the cache if there is one, else `config_fail`.
    func loadConfig(from source: any ConfigSource, options: ConfigureOptions) async {
        defer { trackConfigAttributes(options) }
        let cached =
            (try? await offloaded { [store, platform = session?.referenceSDK ?? .superwallKit] in
                store?.cachedConfig(for: platform)
            })
            ?? nil
        let subscribed = (try? store?.value(.subscriptionStatus))??.isActive == true
        DecisionLog.configManager.debug(
            "configure: the config comes from \(source.description)\(cached.map { "; a cached build \($0.buildId) is kept" } ?? "; nothing is cached")"
        )
        if let cached, subscribed {
            DecisionLog.configManager.debug(
                "configure: the user is subscribed, so the cached build \(cached.buildId) is used at once and refreshed in the background"
            )
            adopt(cached, refresh: nil)
            refreshInBackground(from: source, options: options)
            return
        }
        let limited = cached?.featureFlags.enableConfigRefreshV2 == true
        do {
            try await fetchAndAdopt(
                from: source,
                cachedBuildId: cached?.buildId,
                maxRetries: limited ? 0 : options.maxConfigRetryCount,
                timeLimit: limited ? .seconds(1) : options.timeouts.config
            )
        } catch {
            if let cached {
                DecisionLog.configManager.debug(
                    "configure: the fetch failed (\(error)); the cached build \(cached.buildId) is used"
                )
                adopt(cached, refresh: ConfigFetch.Report(cacheStatus: "CACHED", fetchSeconds: 0, retryCount: 0))
                refreshInBackground(from: source, options: options)
            } else {
                let reason = (error as? ConfigDecodingError).map { "the config is invalid at \($0)" } ?? "\(error)"
                DecisionLog.configManager.debug("configure: no config: \(reason)")
                // An invalid config is the client's to fix, at a path: not a fetch that failed.
                session?.configFailed(
                    (error as? ConfigDecodingError).map(SuperwallError.invalidConfig) ?? .configUnavailable(reason)
                )
                track("config_fail", ["error_message": .string(reason)])
                configLoading.loadFailed()
            }
        }
    }

    /// Fetches, decodes, caches and adopts a config, tracking `config_refresh`.
    /// `cachedBuildId` is sent as `X-Static-Config-Build-Id`.
    func fetchAndAdopt(
        from source: any ConfigSource,
        cachedBuildId: String?,
        maxRetries: Int,
        timeLimit: Duration?
    ) async throws {
        let fetch = ConfigFetch(
            source: source,
            apiKey: session?.apiKey ?? "",
            headers: source.sendsHeaders ? requestHeaders(cachedBuildId: cachedBuildId) : [:],
            retryPolicy: RetryPolicy(maxRetries: maxRetries, delay: retryDelay),
            timeLimit: timeLimit,
            store: store,
            clock: clock,
            platform: session?.referenceSDK ?? .superwallKit
        )
        do {
            let (config, report) = try await fetch.run(reusing: session?.config)
            adopt(config, refresh: report)
        } catch let undecodable as ConfigFetch.UndecodableBody {
            if source.backend.fetchesOverTheNetwork {
                track(
                    "networkDecoding_fail",
                    [
                        "request_url": .string(source.description),
                        "response": .string(String(decoding: undecodable.body.prefix(1024), as: UTF8.self)),
                    ]
                )
            }
            throw undecodable.underlying
        }
    }

    /// A fetch with the full retries that replaces the config when it succeeds, and leaves
    /// the config in use alone when it does not.
    func refreshInBackground(from source: any ConfigSource, options: ConfigureOptions) {
        configLoading.runsInBackground(
            startTask { superwall in
                await superwall.configLoading.refreshes.run {
                    try? await superwall.fetchAndAdopt(
                        from: source,
                        cachedBuildId: superwall.config?.buildId,
                        maxRetries: options.maxConfigRetryCount,
                        timeLimit: options.timeouts.config
                    )
                }
            }
        )
    }

    /// Waits for the last background config refresh (of `configure` or a new app session),
    /// if one is running.
    public func awaitBackgroundRefresh() async {
        await configLoading.backgroundRefresh?.value
    }

    /// A request to the Superwall API beyond the config: the session's key, and SuperwallKit's
    /// headers with the build id of the config in use.
    func apiRequest(
        retryPolicy: RetryPolicy = RetryPolicy(maxRetries: 0),
        attemptTimeout: TimeInterval
    ) -> ConfigRequest {
        ConfigRequest(
            apiKey: session?.apiKey ?? "",
            headers: requestHeaders(cachedBuildId: session?.config?.buildId),
            retryPolicy: retryPolicy,
            attemptTimeout: attemptTimeout
        )
    }

    /// SuperwallKit's headers for every API request, as the session stands now.
    func requestHeaders(cachedBuildId: String?) -> [String: String] {
        guard let session else { return [:] }
        return ConfigRequest.superwallHeaders(
            apiKey: session.apiKey,
            device: deviceAttributes(),
            appUserId: users.identity.appUserId,
            aliasId: users.identity.aliasId,
            activeEntitlementIds: userEntitlements.status.activeEntitlements.map(\.id),
            cachedBuildId: cachedBuildId,
            at: clock.now()
        )
    }
}
