import FakeAPI
import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

@Suite struct HTTPConfigSourceTests {
    @Test func aConfigIsFetchedWithSuperwallsEndpointAndHeaders() async throws {
        let server = try await ScriptedAPIServer.start([.init(status: 200, body: try await demoConfigBody())])
        let (_, outcome) = try await configure(server)
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
        _ = try await superwall.configure(
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
        let (_, outcome) = try await configure(server, delegate: delegate)
        #expect(outcome.status == .configured)
        #expect(server.configRequests.map { $0.headers["x-retry-count"] ?? "" } == ["0", "1", "2"])
        #expect(delegate.events.first { $0.name == "config_refresh" }?.delegateParameters["retry_count"] == 2)
    }

    @Test(arguments: [(404, "not found"), (401, "API key was not accepted"), (400, "HTTP 400")])
    func terminalStatusesAreNotRetried(_ status: Int, _ message: String) async throws {
        let delegate = RecordingDelegate()
        let server = try await ScriptedAPIServer.start([.init(status: status)])
        let (_, outcome) = try await configure(server, delegate: delegate)
        #expect(outcome.status == .failed)
        #expect(outcome.error?.description.contains(message) == true)
        #expect(server.configRequests.count == 1)
        #expect(delegate.events.last { $0.name == "config_fail" } != nil)
    }

    @Test func retriesStopAtTheConfiguredCount() async throws {
        let server = try await ScriptedAPIServer.start([.init(status: 500)])
        let (_, outcome) = try await configure(server, retries: 2)
        #expect(outcome.status == .failed)
        #expect(outcome.error?.description.contains("HTTP 500") == true)
        #expect(server.configRequests.count == 3)
    }

    @Test func anInvalidBodyIsADecodingFailure() async throws {
        let delegate = RecordingDelegate()
        let server = try await ScriptedAPIServer.start([.init(status: 200, body: "<html>gateway</html>")])
        let (_, outcome) = try await configure(server, delegate: delegate)
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
            try await configure(good, directory: directory).0.endSession()
        }
        let delegate = RecordingDelegate()
        let failing = try await ScriptedAPIServer.start([.init(status: 502)])
        let (superwall, outcome) = try await configure(failing, directory: directory, retries: 1, delegate: delegate)
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
            try await configure(good, directory: directory).0.endSession()
        }
        let newer = try await demoConfigBody().replacingOccurrences(of: "pt-2026-11-20.3", with: "pt-2026-11-21.1")
        // The one-second attempt of the refresh-v2 path times out; the background refresh succeeds.
        let server = try await ScriptedAPIServer.start([
            .init(status: 200, body: newer, delay_ms: 4000), .init(status: 200, body: newer),
        ])
        let delegate = RecordingDelegate()
        let (superwall, outcome) = try await configure(server, directory: directory, delegate: delegate)
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
            let (first, _) = try await configure(good, directory: directory)
            _ = try await first.setSubscriptionStatus(.active([Entitlement(id: "pro")]))
            await first.settle()
            await first.endSession()
        }
        let newer = try await configBodyWithoutRefreshV2().replacingOccurrences(
            of: "pt-2026-11-20.3",
            with: "pt-2026-11-21.1"
        )
        // The fetch is held until configure has answered: configure cannot have waited for it.
        let fetch = AnswerGate()
        let server = try await ScriptedAPIServer.start([.init(status: 200, body: newer, held: fetch)])
        let delegate = RecordingDelegate()
        let (superwall, outcome) = try await configure(
            server,
            directory: directory,
            delegate: delegate,
            settling: false
        )
        #expect(outcome.status == .configured)
        #expect(await superwall.config?.buildId == "pt-2026-11-20.3")
        #expect(!delegate.names.contains("config_refresh"))
        fetch.open()
        await superwall.settle()
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
            try await configure(good, directory: directory).0.endSession()
        }
        let slow = try await ScriptedAPIServer.start([
            .init(status: 200, body: try await demoConfigBody(), delay_ms: 6000)
        ])
        let ((superwall, outcome), elapsed) = try await measuredOffThePool {
            try await configure(slow, directory: directory, settling: false)
        }
        await superwall.settle()
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
        let outcome = try await superwall.configure(
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
        #expect(elapsed < expectationTimeout)
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
