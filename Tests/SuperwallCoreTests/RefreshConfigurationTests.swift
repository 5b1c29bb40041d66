import Foundation
import Testing

@testable import SuperwallCore

@Suite struct RefreshConfigurationTests {
    private func start(_ config: String) async throws -> (PresentationHarness, MutableConfigSource) {
        let source = MutableConfigSource(config)
        return (try await PresentationHarness.make(config, source: source), source)
    }

    private static var triggers: [[String: Any]] {
        [placement("gate", [audience("exp-gate", rule: nil, variants: [treatment("v-1", "coach-upsell-gated")])])]
    }

    @Test func aRefreshAnswersTheDiffTracksConfigRefreshAndUsesTheNewConfig() async throws {
        let before = try await presentationConfig(Self.triggers)
        let (harness, source) = try await start(before)
        source.body = try edited(before) { object in
            object["build_id"] = "build-2"
            editPaywalls(&object) { paywall in
                var paywall = paywall
                switch paywall["identifier"] as? String {
                case "summer-sale": return nil
                case "coach-upsell-gated": paywall["cache_key"] = "coach-v2"
                default: break
                }
                return paywall
            }
        }
        let refresh = try await harness.superwall.refreshConfiguration()
        #expect(refresh.buildId == "build-2" && refresh.error == nil)
        #expect((refresh.added, refresh.changed, refresh.removed) == ([], ["coach-upsell-gated"], ["summer-sale"]))
        #expect(await harness.superwall.config?.buildId == "build-2")
        #expect(harness.delegate.event("config_refresh")?.superwallParameters["config_build_id"] == "build-2")
    }

    @Test func anAssignmentWhoseVariantVanishedIsRedrawnAndAStickyOneKept() async throws {
        let before = try await presentationConfig([
            placement("gate", [audience("exp-gate", rule: nil, variants: [treatment("v-1", "coach-upsell-gated")])]),
            placement("other", [audience("exp-other", rule: nil, variants: [treatment("o-1", "summer-sale")])]),
        ])
        let (harness, source) = try await start(before)
        source.body = try await presentationConfig([
            placement("gate", [audience("exp-gate", rule: nil, variants: [treatment("v-2", "coach-upsell-gated")])]),
            placement("other", [audience("exp-other", rule: nil, variants: [treatment("o-1", "summer-sale")])]),
        ])
        _ = try await harness.superwall.refreshConfiguration()
        let assignments = Dictionary(
            uniqueKeysWithValues: try await harness.superwall.assignments().map { ($0.experimentId, $0.variant.id) }
        )
        #expect(assignments == ["exp-gate": "v-2", "exp-other": "o-1"])
    }

    @Test func anInvalidConfigKeepsTheOneInUseAndNamesThePath() async throws {
        let before = try await presentationConfig(Self.triggers)
        let (harness, source) = try await start(before)
        source.body = try edited(before) { $0["trigger_options"] = [["event_name": 42]] }
        let refresh = try await harness.superwall.refreshConfiguration()
        guard case .invalidConfig(let error)? = refresh.error else {
            Issue.record("expected an invalid config, got \(String(describing: refresh.error))")
            return
        }
        #expect(error.path == "$.trigger_options[0].event_name")
        #expect(refresh.buildId == "pt-2026-11-20.3" && !refresh.refreshed)
        #expect(
            try await harness.superwall.presentationResult(for: "gate") != .placementNotFound,
            "the old config is still in use"
        )
    }

    @Test func aRefreshWhileAPaywallIsUpLeavesThatSessionWorking() async throws {
        let before = try await presentationConfig(Self.triggers)
        let (harness, source) = try await start(before)
        let register = harness.registerInBackground("gate")
        let shown = try await harness.waitForPresentation()
        source.body = try edited(before) { object in
            editPaywalls(&object) { paywall in
                var paywall = paywall
                if paywall["identifier"] as? String == "coach-upsell-gated" { paywall["cache_key"] = "coach-v2" }
                return paywall
            }
        }
        #expect(try await harness.superwall.refreshConfiguration().changed == ["coach-upsell-gated"])
        #expect(await harness.superwall.openSessionId == shown.sessionId)
        _ = try await harness.superwall.perform(.close, inSession: shown.sessionId)
        let outcome = try await register.value
        guard case .dismissed(let info, .declined) = outcome.ending else {
            Issue.record("expected a declined dismissal, got \(outcome.ending)")
            return
        }
        #expect(info.identifier == "coach-upsell-gated")
    }

    @Test func refreshesRunInTurnSoAnOlderReadNeverReplacesANewerConfig() async throws {
        let before = try await presentationConfig(Self.triggers)
        let source = HeldConfigSource(before)
        let harness = try await PresentationHarness.make(before, source: source)
        source.body = try edited(before) { $0["build_id"] = "build-2" }
        source.holdNextFetch()
        let first = Task { try await harness.superwall.refreshConfiguration() }
        await source.waitUntilAFetchIsHeld()
        source.body = try edited(before) { $0["build_id"] = "build-3" }
        let second = Task { try await harness.superwall.refreshConfiguration() }
        try await Task.sleep(for: .milliseconds(50))
        #expect(await harness.superwall.config?.buildId == "pt-2026-11-20.3", "the second refresh waits for the first")
        source.release()
        #expect(try await first.value.buildId == "build-2")
        #expect(try await second.value.buildId == "build-3")
        #expect(await harness.superwall.config?.buildId == "build-3")
    }

    @Test func beforeConfigureThereIsNothingToRefresh() async {
        await #expect(throws: SuperwallError.notConfigured) { try await Superwall().refreshConfiguration() }
    }

    @Test func aSessionWhoseFirstConfigFailedLoadsOnRefresh() async throws {
        let source = MutableConfigSource(#"{"build_id": 7}"#)
        let superwall = Superwall()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("refresh-\(UUID().uuidString)")
            .path
        let outcome = try await superwall.configure(
            apiKey: "pk",
            options: Superwall.ConfigureOptions(configSource: source, dataDirectory: directory, maxConfigRetryCount: 0)
        )
        #expect(outcome.status == .failed)
        source.body = EmbeddedDemoConfig.json
        let refresh = try await superwall.refreshConfiguration()
        #expect(refresh.refreshed && refresh.buildId == "pt-2026-11-20.3")
        #expect(refresh.added.contains("summer-sale"))
        #expect(await superwall.configurationStatus == .configured)
    }
}

/// A config source that can hold a fetch, after it has read its body, until the test
/// releases it: a slow network or disk.
final class HeldConfigSource: ConfigSource, @unchecked Sendable {
    private let lock = NSLock()
    private var text: String
    private var holdsNext = false
    private var held: CheckedContinuation<Void, Never>?
    private var heldWatchers: [CheckedContinuation<Void, Never>] = []
    init(_ body: String) { text = body }
    var body: String {
        get { lock.withLock { text } }
        set { lock.withLock { text = newValue } }
    }
    var description: String { "held test config" }

    func holdNextFetch() { lock.withLock { holdsNext = true } }

    func fetchConfig(_ request: ConfigRequest) async throws -> Data {
        let (read, holds) = lock.withLock { (text, holdsNext) }
        if holds {
            await withCheckedContinuation { continuation in
                let watchers = lock.withLock {
                    holdsNext = false
                    held = continuation
                    defer { heldWatchers.removeAll() }
                    return heldWatchers
                }
                for watcher in watchers { watcher.resume() }
            }
        }
        return Data(read.utf8)
    }

    func waitUntilAFetchIsHeld() async {
        await withCheckedContinuation { continuation in
            let isHeld = lock.withLock {
                if held == nil { heldWatchers.append(continuation) }
                return held != nil
            }
            if isHeld { continuation.resume() }
        }
    }

    func release() {
        lock.withLock {
            defer { held = nil }
            return held
        }?.resume()
    }
}
