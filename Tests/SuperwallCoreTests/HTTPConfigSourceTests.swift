import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

/// The scripted API server (`Fixtures/config_server.py`) running for one test.
final class ScriptedAPIServer: @unchecked Sendable {
    struct Step: Encodable {
        var status: Int
        var body: String = ""
        var delay_ms: Int = 0
        /// The body sent this many times over.
        var body_repeat: Int = 1
        /// Streamed in chunks with no Content-Length.
        var chunked = false
    }

    let baseURL: URL
    private let process: ChildProcess
    private let logPath: String
    private let planPath: String

    /// `plan` answers the config fetches in turn; `posts` the POSTs (by default, 200 `{}`).
    ///
    /// The server is spawned from the calling thread (its parent-death signal follows the
    /// thread that spawned it, and the pool's threads outlive the test), and its port is read
    /// without blocking: blocking one of Swift's few cooperative threads stalls every other
    /// test of the run meanwhile.
    /// `paths` answer other GETs, and POSTs, by path (a path ending in `*` is a prefix), with a
    /// list of steps served in order in `pathSequences`; a POST to no such path takes `posts`.
    static func start(
        _ plan: [Step],
        posts: [Step] = [Step(status: 200, body: "{}")],
        paths: [String: Step] = [:],
        pathSequences: [String: [Step]] = [:]
    ) async throws -> ScriptedAPIServer {
        let logPath = FileManager.default.temporaryDirectory.appendingPathComponent("api-\(UUID().uuidString).jsonl")
            .path
        let planPath = FileManager.default.temporaryDirectory.appendingPathComponent("plan-\(UUID().uuidString).json")
            .path
        let script = try #require(
            Bundle.module.url(forResource: "config_server", withExtension: "py", subdirectory: "Fixtures")
        )
        struct Plan: Encodable {
            var get: [Step]
            var post: [Step]
            var paths: [String: [Step]]
        }
        try JSONEncoder().encode(
            Plan(get: plan, post: posts, paths: paths.mapValues { [$0] }.merging(pathSequences) { $1 })
        ).write(to: URL(fileURLWithPath: planPath))
        // The port goes to a file that is polled: no thread of the cooperative pool blocks.
        let portPath = FileManager.default.temporaryDirectory.appendingPathComponent("port-\(UUID().uuidString)").path
        _ = FileManager.default.createFile(atPath: portPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: portPath) }
        let portFile = open(portPath, O_WRONLY)
        defer { close(portFile) }
        let process = try ChildProcess("/usr/bin/env", ["python3", script.path, planPath, logPath], stdout: portFile)
        var portText = ""
        for _ in 0..<2500 where !portText.hasSuffix("\n") {
            try await Task.sleep(for: .milliseconds(2))
            portText = (try? String(contentsOfFile: portPath, encoding: .utf8)) ?? ""
        }
        let port = try #require(Int(portText.trimmingCharacters(in: .whitespacesAndNewlines)))
        return ScriptedAPIServer(
            baseURL: URL(string: "http://127.0.0.1:\(port)")!,
            process: process,
            logPath: logPath,
            planPath: planPath
        )
    }

    private init(baseURL: URL, process: ChildProcess, logPath: String, planPath: String) {
        self.baseURL = baseURL
        self.process = process
        self.logPath = logPath
        self.planPath = planPath
    }

    /// The GET requests served so far: path, query and headers.
    var requests: [(path: String, query: String, headers: [String: String])] {
        logged(method: "GET").map { ($0.path, $0.query, $0.headers) }
    }
    /// The GET requests for the config alone.
    var configRequests: [(path: String, query: String, headers: [String: String])] {
        requests.filter { $0.path == "/api/v1/static_config" }
    }

    /// The POST requests served so far, with their bodies.
    var posts: [(path: String, body: String)] { logged(method: "POST").map { ($0.path, $0.body) } }

    private func logged(method: String) -> [(path: String, query: String, headers: [String: String], body: String)] {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["method"] as? String == method
            else { return nil }
            // Header names are case-insensitive; keep them lowercased.
            let headers = (object["headers"] as? [String: String] ?? [:]).reduce(into: [String: String]()) {
                $0[$1.key.lowercased()] = $1.value
            }
            return (
                object["path"] as? String ?? "", object["query"] as? String ?? "", headers,
                object["body"] as? String ?? ""
            )
        }
    }

    deinit {
        process.terminateInTheBackground()
        try? FileManager.default.removeItem(atPath: logPath)
        try? FileManager.default.removeItem(atPath: planPath)
    }
}

private func demoConfigBody() async throws -> String {
    String(decoding: try await EmbeddedConfigSource().fetchConfig(ConfigRequest(apiKey: "pk")), as: UTF8.self)
}

/// The demo config with `enable_config_refresh_v2` off, so a cached copy does not change the
/// fetch strategy.
private func configBodyWithoutRefreshV2() async throws -> String {
    var config = try #require(
        try JSONSerialization.jsonObject(with: Data(try await demoConfigBody().utf8)) as? [String: Any]
    )
    config["toggles"] = [["key": "enable_config_refresh_v2", "enabled": false]]
    return String(decoding: try JSONSerialization.data(withJSONObject: config), as: UTF8.self)
}

private func configure(
    _ server: ScriptedAPIServer,
    directory: String = FileManager.default.temporaryDirectory.appendingPathComponent("http-\(UUID().uuidString)").path,
    retries: Int = 6,
    delegate: RecordingDelegate = RecordingDelegate()
) async -> (Superwall, Superwall.ConfigureOutcome) {
    let superwall = Superwall(
        clock: FakeClock(),
        random: CountingRandomSource(),
        delegate: delegate,
        retryDelay: { _, _ in .milliseconds(5) }
    )
    let outcome = await superwall.configure(
        apiKey: "pk_http_test",
        options: Superwall.ConfigureOptions(
            configSource: HTTPConfigSource(baseURL: server.baseURL),
            dataDirectory: directory,
            device: ["platform": "iOS", "appVersion": "2.0.0"],
            maxConfigRetryCount: retries
        )
    )
    // The launch events' implicit triggers hold the instance (and its data directory) until they settle.
    await superwall.awaitPresentationQueue()
    await superwall.awaitPreloading()
    return (superwall, outcome)
}

@Suite struct HTTPConfigSourceTests {
    @Test func aConfigIsFetchedWithSuperwallsEndpointAndHeaders() async throws {
        let server = try await ScriptedAPIServer.start([.init(status: 200, body: try await demoConfigBody())])
        let (_, outcome) = await configure(server)
        #expect(outcome.status == .configured)
        let request = try #require(server.configRequests.first)
        #expect(request.path == "/api/v1/static_config")
        #expect(request.query == "pk=pk_http_test")
        #expect(request.headers["authorization"] == "Bearer pk_http_test")
        #expect(request.headers["x-platform"] == "iOS")
        #expect(request.headers["x-platform-environment"] == "SDK")
        #expect(request.headers["x-app-version"] == "2.0.0")
        #expect(request.headers["x-sdk-version"] == "4.16.4")
        #expect(request.headers["x-alias-id"]?.hasPrefix("$SuperwallAlias:") == true)
        #expect(request.headers["x-retry-count"] == "0")
        #expect(request.headers["x-request-id"].flatMap(UUID.init(uuidString:)) != nil)
        #expect(request.headers["x-entitlements"] == "")
    }

    @Test func aPlatformWrapperIsReportedInTheHeaders() async throws {
        let server = try await ScriptedAPIServer.start([.init(status: 200, body: try await demoConfigBody())])
        let superwall = Superwall(
            clock: FakeClock(),
            random: CountingRandomSource(),
            retryDelay: { _, _ in .milliseconds(5) }
        )
        await superwall.setPlatformWrapper("Expo", version: "1.2.0")
        _ = await superwall.configure(
            apiKey: "pk_http_test",
            options: Superwall.ConfigureOptions(
                configSource: HTTPConfigSource(baseURL: server.baseURL),
                dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent(
                    "http-\(UUID().uuidString)"
                ).path,
                maxConfigRetryCount: 0
            )
        )
        await superwall.awaitPresentationQueue()
        let request = try #require(server.configRequests.first)
        #expect(request.headers["x-platform-wrapper"] == "Expo")
        #expect(request.headers["x-platform-wrapper-version"] == "1.2.0")
    }

    @Test func serverErrorsAreRetriedWithTheRetryCountHeader() async throws {
        let delegate = RecordingDelegate()
        let server = try await ScriptedAPIServer.start([
            .init(status: 503), .init(status: 429), .init(status: 200, body: try await demoConfigBody()),
        ])
        let (_, outcome) = await configure(server, delegate: delegate)
        #expect(outcome.status == .configured)
        #expect(server.configRequests.map { $0.headers["x-retry-count"] ?? "" } == ["0", "1", "2"])
        #expect(delegate.events.first { $0.name == "config_refresh" }?.delegateParameters["retry_count"] == 2)
    }

    @Test(arguments: [(404, "not found"), (401, "API key was not accepted"), (400, "HTTP 400")])
    func terminalStatusesAreNotRetried(_ status: Int, _ message: String) async throws {
        let delegate = RecordingDelegate()
        let server = try await ScriptedAPIServer.start([.init(status: status)])
        let (_, outcome) = await configure(server, delegate: delegate)
        #expect(outcome.status == .failed)
        #expect(outcome.error?.description.contains(message) == true)
        #expect(server.configRequests.count == 1)
        #expect(delegate.events.last { $0.name == "config_fail" } != nil)
    }

    @Test func retriesStopAtTheConfiguredCount() async throws {
        let server = try await ScriptedAPIServer.start([.init(status: 500)])
        let (_, outcome) = await configure(server, retries: 2)
        #expect(outcome.status == .failed)
        #expect(outcome.error?.description.contains("HTTP 500") == true)
        #expect(server.configRequests.count == 3)
    }

    @Test func anInvalidBodyIsADecodingFailure() async throws {
        let delegate = RecordingDelegate()
        let server = try await ScriptedAPIServer.start([.init(status: 200, body: "<html>gateway</html>")])
        let (_, outcome) = await configure(server, delegate: delegate)
        #expect(outcome.status == .failed)
        #expect(delegate.names.contains("networkDecoding_fail"))
        #expect(server.configRequests.count == 1)
    }

    @Test func aFailedFetchFallsBackToTheCachedConfig() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("http-\(UUID().uuidString)").path
        do {
            let good = try await ScriptedAPIServer.start([
                .init(status: 200, body: try await configBodyWithoutRefreshV2())
            ])
            _ = await configure(good, directory: directory)
        }
        let delegate = RecordingDelegate()
        let failing = try await ScriptedAPIServer.start([.init(status: 502)])
        let (superwall, outcome) = await configure(failing, directory: directory, retries: 1, delegate: delegate)
        #expect(outcome.status == .configured)
        #expect(await superwall.config?.buildId == "pt-2026-11-20.3")
        #expect(delegate.events.first { $0.name == "config_refresh" }?.delegateParameters["cache_status"] == "CACHED")
        // The cached build id is sent along, as SuperwallKit does.
        #expect(failing.requests.first?.headers["x-static-config-build-id"] == "pt-2026-11-20.3")
        // Then a refresh runs in the background with the full retries; it fails too, and
        // the cached config stays in use.
        await superwall.awaitBackgroundRefresh()
        #expect(failing.configRequests.count == 4)
        #expect(await superwall.config?.buildId == "pt-2026-11-20.3")
    }

    @Test func aBackgroundRefreshAfterAFallbackAdoptsTheNewConfig() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("http-\(UUID().uuidString)").path
        do {
            let good = try await ScriptedAPIServer.start([.init(status: 200, body: try await demoConfigBody())])
            _ = await configure(good, directory: directory)
        }
        let newer = try await demoConfigBody().replacingOccurrences(of: "pt-2026-11-20.3", with: "pt-2026-11-21.1")
        // The one-second attempt of the refresh-v2 path times out; the background refresh succeeds.
        let server = try await ScriptedAPIServer.start([
            .init(status: 200, body: newer, delay_ms: 4000), .init(status: 200, body: newer),
        ])
        let delegate = RecordingDelegate()
        let (superwall, outcome) = await configure(server, directory: directory, delegate: delegate)
        #expect(outcome.status == .configured)
        // The cached build first (the refresh may already have replaced it: it runs at once).
        await superwall.awaitBackgroundRefresh()
        #expect(await superwall.config?.buildId == "pt-2026-11-21.1")
        let refreshes = delegate.events.filter { $0.name == "config_refresh" }.map {
            $0.delegateParameters["cache_status"]
        }
        #expect(refreshes == ["CACHED", "NOT_CACHED"])
    }

    @Test func aSubscribedUserWithACachedConfigStartsFromTheCacheAtOnce() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("http-\(UUID().uuidString)").path
        do {
            let good = try await ScriptedAPIServer.start([
                .init(status: 200, body: try await configBodyWithoutRefreshV2())
            ])
            let (first, _) = await configure(good, directory: directory)
            _ = try await first.setSubscriptionStatus(.active([Entitlement(id: "pro")]))
        }
        let newer = try await configBodyWithoutRefreshV2().replacingOccurrences(
            of: "pt-2026-11-20.3",
            with: "pt-2026-11-21.1"
        )
        // The fetch takes six seconds; starting from the cache takes far less, even on a
        // machine busy with every suite at once.
        let server = try await ScriptedAPIServer.start([.init(status: 200, body: newer, delay_ms: 6000)])
        let delegate = RecordingDelegate()
        let ((superwall, outcome), elapsed) = await measuredOffThePool {
            await configure(server, directory: directory, delegate: delegate)
        }
        #expect(outcome.status == .configured)
        #expect(elapsed < .milliseconds(4500))
        #expect(await superwall.config?.buildId == "pt-2026-11-20.3")
        #expect(!delegate.names.contains("config_refresh"))
        await superwall.awaitBackgroundRefresh()
        #expect(await superwall.config?.buildId == "pt-2026-11-21.1")
        #expect(
            delegate.events.last { $0.name == "config_refresh" }?.delegateParameters["cache_status"] == "NOT_CACHED"
        )
    }

    @Test func withRefreshV2OnACachedConfigGetsOneAttemptLimitedToASecond() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("http-\(UUID().uuidString)").path
        do {
            let good = try await ScriptedAPIServer.start([.init(status: 200, body: try await demoConfigBody())])
            _ = await configure(good, directory: directory)
        }
        let slow = try await ScriptedAPIServer.start([
            .init(status: 200, body: try await demoConfigBody(), delay_ms: 6000)
        ])
        let ((superwall, outcome), elapsed) = await measuredOffThePool { await configure(slow, directory: directory) }
        #expect(outcome.status == .configured)
        #expect(elapsed < .milliseconds(4500), "the answer takes six seconds")
        #expect(slow.requests.first?.headers["x-retry-count"] == "0")
        await superwall.awaitBackgroundRefresh()
    }

    /// A refresh had no overall bound: 60 s an attempt against a silent server, and retries after it.
    @Test func aRefreshIsBoundedByTheConfigTimeLimitAsConfigureIs() async throws {
        let silent = try SilentServer()
        var timeouts = Superwall.Timeouts()
        timeouts.config = .seconds(1)
        let superwall = Superwall(
            clock: FakeClock(),
            random: CountingRandomSource(),
            retryDelay: { _, _ in .milliseconds(5) }
        )
        let outcome = await superwall.configure(
            apiKey: "pk_http_test",
            options: Superwall.ConfigureOptions(
                configSource: HTTPConfigSource(baseURL: silent.baseURL),
                dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent(
                    "http-\(UUID().uuidString)"
                ).path,
                timeouts: timeouts,
                shouldPreload: false
            )
        )
        #expect(outcome.status == .failed)
        // A refresh after a first config that failed tries again, within the same bound.
        let (refresh, elapsed) = try await measuredOffThePool { try await superwall.refreshConfiguration() }
        #expect(!refresh.refreshed)
        #expect(refresh.error?.description.contains("timed out") == true, "\(String(describing: refresh.error))")
        // Unbounded, an attempt waits 60 s; the margin is for a loaded machine.
        #expect(elapsed < .seconds(30))
        withExtendedLifetime(silent) {}
    }

    @Test func anAttemptThatTimesOutIsRetriedThenFails() async throws {
        let server = try await ScriptedAPIServer.start([.init(status: 200, body: "{}", delay_ms: 10_000)])
        let request = ConfigRequest(
            apiKey: "pk",
            retryPolicy: RetryPolicy(maxRetries: 1, delay: { _, _ in .milliseconds(5) }),
            attemptTimeout: 0.3
        )
        let (outcome, elapsed) = await measuredOffThePool {
            await Result { try await HTTPConfigSource(baseURL: server.baseURL).fetchConfig(request) }
        }
        #expect(throws: NetworkError.self) { try outcome.get() }
        // Two attempts that waited for the 10 s answers would take at least 20 s; the bound
        // leaves room for a machine busy with the other suites.
        #expect(elapsed < .seconds(8))
        #expect(server.configRequests.count == 2)
    }

    @Test func aTimeLimitAnswersAtTheLimitEvenIfTheWorkIgnoresItsCancellation() async {
        let (outcome, elapsed) = await measuredOffThePool {
            await Result {
                try await withTimeLimit(.milliseconds(100)) {
                    // Deaf to cancellation, as a request that missed it would be.
                    await withCheckedContinuation { continuation in
                        DispatchQueue.global().asyncAfter(deadline: .now() + 20) { continuation.resume() }
                    }
                    return 1
                }
            }
        }
        #expect(throws: NetworkError.timedOut) { try outcome.get() }
        #expect(elapsed < .seconds(10), "the work would take 20 seconds")
    }

    /// A 200 MB body was read whole (431 MiB at its peak): `--max-config-size` bounded files only.
    @Test(arguments: [false, true]) func aBodyPastTheLimitIsRefusedAsSoonAsItPassesItAndNotTriedAgain(
        chunked: Bool
    ) async throws {
        let server = try await ScriptedAPIServer.start([
            .init(status: 200, body: String(repeating: "x", count: 1_024), body_repeat: 2_048, chunked: chunked)
        ])
        let request = ConfigRequest(
            apiKey: "pk",
            retryPolicy: RetryPolicy(maxRetries: 3, delay: { _, _ in .milliseconds(5) })
        )
        await #expect(throws: NetworkError.tooLarge(limit: 1 << 20)) {
            try await HTTPConfigSource(baseURL: server.baseURL, maximumBodySize: 1 << 20).fetchConfig(request)
        }
        #expect(server.configRequests.count == 1)
    }

    /// A 500, a 429 or a reset all read "the request timed out" when the time limit ended the retries.
    @Test func aTimeLimitThatEndsFailedAttemptsNamesTheLastFailure() async throws {
        let server = try await ScriptedAPIServer.start([.init(status: 500, body: "{}")])
        // A limit shorter than the first attempt on a loaded machine is a plain timeout (no
        // attempt has failed yet); longer limits are tried until one ends after a failure.
        var named: NetworkError?
        for seconds in [2, 6, 15] where named == nil {
            let limit = Duration.seconds(seconds)
            let request = ConfigRequest(
                apiKey: "pk",
                retryPolicy: RetryPolicy(maxRetries: 6, delay: { _, _ in .seconds(120) }),
                timeLimit: limit
            )
            do {
                _ = try await HTTPConfigSource(baseURL: server.baseURL).fetchConfig(request)
                Issue.record("the fetch succeeded")
                return
            } catch let error as NetworkError {
                if error == .timedOut { continue }
                #expect(error == .gaveUp(after: limit, lastFailure: "HTTP 500"))
                named = error
            }
        }
        #expect("\(try #require(named))".contains("the last attempt failed: HTTP 500"))
    }

    @Test func aTimeLimitBeforeAnyAttemptEndsIsATimeout() async throws {
        let server = try await ScriptedAPIServer.start([.init(status: 200, body: "{}", delay_ms: 5_000)])
        let request = ConfigRequest(
            apiKey: "pk",
            retryPolicy: RetryPolicy(maxRetries: 0, delay: { _, _ in .zero }),
            timeLimit: .milliseconds(300)
        )
        await #expect(throws: NetworkError.timedOut) {
            try await HTTPConfigSource(baseURL: server.baseURL).fetchConfig(request)
        }
    }

    @Test func theSuperwallBackoffGrowsFromFiveToNineteenSeconds() {
        let delays = (0..<6).map { RetryPolicy.superwallBackoff($0, 6) }
        #expect(delays.first! >= .seconds(5) && delays.first! < .seconds(6))
        #expect(delays.last! >= .milliseconds(19_000) && delays.last! < .milliseconds(20_500))
        #expect(zip(delays, delays.dropFirst()).allSatisfy { $0.0 < $0.1 + .seconds(1) })
    }
}

@Suite struct ServerAssignmentTests {
    /// The server holds the treatment of start_workout's experiment (the local draw is its holdout),
    /// an experiment the config lacks, and a variant it lacks.
    private static let served =
        #"{"assignments": [{"experiment_id": "2002", "variant_id": "3004"}, {"experiment_id": "9999", "variant_id": "1"}, {"experiment_id": "2005", "variant_id": "nope"}]}"#

    @Test func identifyWithRestorePaywallAssignmentsAdoptsTheServersVariantsBeforeAnswering() async throws {
        let server = try await ScriptedAPIServer.start(
            [.init(status: 200, body: try await demoConfigBody())],
            paths: ["/api/v1/assignments": .init(status: 200, body: Self.served, delay_ms: 300)]
        )
        let (superwall, outcome) = await configure(server)
        #expect(outcome.status == .configured)
        _ = try await superwall.setSubscriptionStatus(.inactive)
        #expect(try await superwall.assignments().first { $0.experimentId == "2002" }?.variant.id == "3003")
        _ = try await superwall.identify(userId: "runner_9", restorePaywallAssignments: true)
        let request = try #require(server.requests.first { $0.path == "/api/v1/assignments" })
        #expect(request.headers["authorization"] == "Bearer pk_http_test")
        let adopted = try #require(try await superwall.assignments().first { $0.experimentId == "2002" })
        #expect(adopted.variant.id == "3004")
        #expect(adopted.isSentToServer)
        // What the server lacks or the config lacks is ignored.
        #expect(try await superwall.assignments().first { $0.experimentId == "2005" }?.variant.id == "3006")
        #expect(try await superwall.assignments().allSatisfy { $0.experimentId != "9999" })
        let result = try await superwall.presentationResult(for: "start_workout", params: ["workout_tier": "pro"])
        guard case .paywall(let experiment) = result else {
            Issue.record("expected a paywall, got \(result)")
            return
        }
        #expect(experiment.variant.id == "3004")
    }

    @Test func identifyWithoutTheOptionFetchesThemInTheBackground() async throws {
        let server = try await ScriptedAPIServer.start(
            [.init(status: 200, body: try await demoConfigBody())],
            paths: ["/api/v1/assignments": .init(status: 200, body: Self.served)]
        )
        let (superwall, _) = await configure(server)
        _ = try await superwall.identify(userId: "runner_10", restorePaywallAssignments: false)
        try await eventually {
            (try? await superwall.assignments().first { $0.experimentId == "2002" }?.variant.id) == "3004"
        }
        #expect(server.requests.contains { $0.path == "/api/v1/assignments" })
    }

    @Test func aLocalConfigSourceAsksNoServer() async throws {
        let harness = await PresentationHarness.make(try await presentationConfig([]))
        _ = try await harness.superwall.identify(userId: "runner_11", restorePaywallAssignments: true)
        #expect(try await harness.superwall.identity().appUserId == "runner_11")
    }
}

@Suite struct LocalizedPaywallTests {
    /// The demo config listing German, and the coach paywall as the server serves it in German.
    private static func localizedSetup(
        locales: [String] = ["en", "de_DE"]
    ) async throws -> (config: String, german: String) {
        var config = try #require(
            try JSONSerialization.jsonObject(with: Data(try await demoConfigBody().utf8)) as? [String: Any]
        )
        config["localization"] = ["locales": locales.map { ["locale": $0] }]
        let paywalls = try #require(config["paywall_responses"] as? [[String: Any]])
        var german = try #require(paywalls.first { $0["identifier"] as? String == "coach-upsell-gated" })
        german["name"] = "Coach-Chat (Deutsch)"
        let text = String(decoding: try JSONSerialization.data(withJSONObject: config), as: UTF8.self)
        return (text, String(decoding: try JSONSerialization.data(withJSONObject: german), as: UTF8.self))
    }

    @Test func aListedLocaleFetchesThePaywallFromTheServerInIt() async throws {
        let (config, german) = try await Self.localizedSetup()
        let server = try await ScriptedAPIServer.start(
            [.init(status: 200, body: config)],
            paths: ["/api/v1/paywall/coach-upsell-gated": .init(status: 200, body: german)]
        )
        let (superwall, _) = await configure(server)
        _ = try await superwall.setSubscriptionStatus(.inactive)
        // English, the device's default here: the config's own paywall, no request.
        let english = try await superwall.getPaywall(placement: "open_coach_chat")
        #expect(english.paywall.name == "Coach chat upsell (gated)")
        #expect(!server.requests.contains { $0.path.hasPrefix("/api/v1/paywall/") })
        await superwall.dismiss()
        await superwall.setLocaleIdentifier("de_DE")
        let shown = try await superwall.getPaywall(placement: "open_coach_chat")
        #expect(shown.paywall.name == "Coach-Chat (Deutsch)")
        let request = try #require(server.requests.first { $0.path == "/api/v1/paywall/coach-upsell-gated" })
        #expect(request.query == "pk=pk_http_test&locale=de_DE")
        await superwall.dismiss()
    }

    @Test func aPaywallTheServerCannotServeFailsWith107InTheDevicesLanguage() async throws {
        let (config, _) = try await Self.localizedSetup(locales: ["en", "de"])
        let server = try await ScriptedAPIServer.start(
            [.init(status: 200, body: config)],
            paths: ["/api/v1/paywall/coach-upsell-gated": .init(status: 500)]
        )
        let delegate = RecordingDelegate()
        let (superwall, _) = await configure(server, delegate: delegate)
        _ = try await superwall.setSubscriptionStatus(.inactive)
        // de_AT is not listed, its language is: the paywall is asked for in German.
        await superwall.setLocaleIdentifier("de_AT")
        do {
            _ = try await superwall.getPaywall(placement: "open_coach_chat")
            Issue.record("expected a failure")
        } catch {
            guard case .presentation(let failure) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(failure.code.rawValue == 107)
        }
        #expect(delegate.names.contains("paywallResponseLoad_fail"))
        #expect(server.requests.filter { $0.path == "/api/v1/paywall/coach-upsell-gated" }.count == 7)
        #expect(
            server.requests.first { $0.path == "/api/v1/paywall/coach-upsell-gated" }?.query
                == "pk=pk_http_test&locale=de"
        )
    }
}

/// A server that takes connections and never answers: a socket listening on the loopback,
/// whose connections wait in its backlog unaccepted.
private final class SilentServer {
    let baseURL: URL
    private let descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address -> Bool in
                bind(descriptor, address, length) == 0 && listen(descriptor, 16) == 0
                    && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else { throw CocoaError(.fileWriteUnknown) }
        baseURL = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))")!
    }

    deinit {
        close(descriptor)
    }
}
