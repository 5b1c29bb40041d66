import Executors
import Foundation
import Synchronization

/// One fetch of the config with its retries (SuperwallKit's `ConfigManager.fetchConfig`): the
/// body fetched, decoded (reusing what decoding the config in use built) and cached in the
/// data directory, each on the offload executor, and what `config_refresh` reports of it.
struct ConfigFetch: Sendable {
    let source: any ConfigSource
    let apiKey: String
    /// SuperwallKit's request headers, for a source that sends them (`ConfigSource.sendsHeaders`).
    let headers: [String: String]
    let retryPolicy: RetryPolicy
    let timeLimit: Duration?
    let store: Store?
    let clock: any WallClock
    /// Whose rules the config is read by (`Config.decode(from:reusing:for:)`).
    let platform: ReferenceSDK

    /// What `config_refresh` reports about a fetch.
    struct Report: Sendable {
        var cacheStatus: String
        var fetchSeconds: Double
        var retryCount: Int
    }

    /// A body the source gave that is not a config; `underlying` says why.
    struct UndecodableBody: Error {
        let body: Data
        let underlying: any Error
    }

    /// Fetches, decodes and caches the config. Throws the source's error, or
    /// `UndecodableBody` for a body that did not decode. Runs on its caller's executor; the
    /// heavy work does not.
    nonisolated(nonsending) func run(reusing previous: Config?) async throws -> (Config, Report) {
        let started = clock.now()
        let retries = RetryCounter()
        let request = ConfigRequest(
            apiKey: apiKey,
            headers: headers,
            retryPolicy: retryPolicy,
            timeLimit: timeLimit,
            onRetry: { retries.record($0) }
        )
        let (source, platform) = (source, platform)
        let body = try await Self.offloaded { try await source.fetchConfig(request) }
        let config: Config
        do {
            config = try await Self.offloaded { try Config.decode(from: body, reusing: previous, for: platform) }
        } catch {
            throw UndecodableBody(body: body, underlying: error)
        }
        if let store {
            // Megabytes into a file beside the database (`Store+Documents`): offloaded too.
            _ = try? await Self.offloaded { try store.setDocument(body, for: .lastConfig) }
        }
        let report = Report(
            cacheStatus: "NOT_CACHED",
            fetchSeconds: clock.now().timeIntervalSince(started),
            retryCount: retries.count
        )
        return (config, report)
    }

    private static func offloaded<Value: Sendable>(
        _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await Task.detached(executorPreference: OffloadExecutor.shared, operation: work).value
    }

    /// Counts retries as a fetch reports them, from whatever task it runs on.
    private final class RetryCounter: Sendable {
        private let value = Mutex(0)
        func record(_ attempt: Int) { value.withLock { $0 = attempt } }
        var count: Int { value.withLock { $0 } }
    }
}
