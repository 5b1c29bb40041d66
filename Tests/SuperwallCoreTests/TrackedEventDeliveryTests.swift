import Foundation
import Testing

@testable import SuperwallCore

@Suite struct TrackedEventDeliveryTests {
    private func superwall(
        _ behavior: EventTrackingBehavior = .all,
        config: String = EmbeddedDemoConfig.json
    ) async throws -> (Superwall, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("events-\(UUID().uuidString)")
            .path
        let superwall = Superwall()
        _ = try await superwall.configure(
            apiKey: "pk",
            options: Superwall.ConfigureOptions(
                configSource: TextConfigSource(body: config),
                dataDirectory: directory,
                eventTrackingBehavior: behavior,
                eventFlushInterval: .seconds(3600)
            )
        )
        await superwall.awaitPresentationQueue()
        return (superwall, directory + "/events.jsonl")
    }

    private func sentNames(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { line in
            (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["event_name"] as? String
        }
    }

    /// `getEventQueueStatus` reported 191,311 waiting against a bound of 100,000: the bound
    /// was kept only when a flush came.
    @Test func theQueueKeepsItsBoundAsEventsArriveNotOnlyAtFlush() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("events-\(UUID().uuidString)")
            .path
        let superwall = Superwall()
        var options = Superwall.ConfigureOptions(
            configSource: TextConfigSource(body: EmbeddedDemoConfig.json),
            dataDirectory: directory,
            eventFlushInterval: .seconds(3600)
        )
        options.eventQueueBound = 50
        _ = try await superwall.configure(apiKey: "pk", options: options)
        for index in 0..<60 {
            _ = try await superwall.register(placement: "workout_shared", params: ["n": .int(Int64(index))])
        }
        let status = try await superwall.eventQueueStatus()
        #expect(status.waiting == 50)
        #expect(status.dropped > 0)
    }

    @Test func withALocalSourceEventsGoToTheDataDirectorysJSONLinesFile() async throws {
        let (superwall, path) = try await superwall()
        _ = try await superwall.register(placement: "workout_shared", params: ["n": 1])
        #expect(try await superwall.eventQueueStatus().waiting > 2)
        await superwall.flushEvents()
        #expect(try await superwall.eventQueueStatus() == (waiting: 0, dropped: 0))
        let names = try sentNames(path)
        #expect(names.prefix(2) == ["app_install", "app_launch"])
        #expect(names.contains("workout_shared") && names.contains("trigger_fire"))
        let line = try #require(
            try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").first {
                $0.contains("\"workout_shared\"")
            }
        )
        let row = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let parameters = try #require(row["parameters"] as? [String: Any])
        #expect(parameters["n"] as? Int == 1)
        #expect(parameters["$is_standard_event"] as? Bool == false)
    }

    @Test func superwallOnlyLeavesOutTriggerFireUserAttributesAndPlacements() async throws {
        let (superwall, path) = try await superwall(.superwallOnly)
        _ = try await superwall.register(placement: "workout_shared")
        _ = try await superwall.setUserAttributes(["plan": .string("free")])
        await superwall.flushEvents()
        let names = try sentNames(path)
        #expect(names.contains("app_launch"))
        #expect(
            !names.contains("workout_shared") && !names.contains("trigger_fire") && !names.contains("user_attributes")
        )
    }

    @Test func noneSendsNothing() async throws {
        let (superwall, path) = try await superwall(.none)
        _ = try await superwall.register(placement: "workout_shared")
        await superwall.flushEvents()
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func verboseEventsStayHomeWhenTheConfigDisablesThem() async throws {
        let verboseOff = try edited(EmbeddedDemoConfig.json) {
            $0["toggles"] = [["key": "disable_verbose_events", "enabled": true]]
        }
        let (superwall, path) = try await superwall(config: verboseOff)
        _ = try await superwall.register(placement: "workout_shared")
        await superwall.flushEvents()
        let names = try sentNames(path)
        #expect(!names.contains("paywallPresentationRequest"))
        #expect(names.contains("trigger_fire"))
    }

    /// The `expression_params` of each `paywallPresentationRequest` for `workout_shared` sent,
    /// in order; nil for one without them.
    private func expressionParams(_ path: String) throws -> [String?] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard let row = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                row["event_name"] as? String == "paywallPresentationRequest",
                let parameters = row["parameters"] as? [String: Any],
                parameters["$source_event_name"] as? String == "workout_shared"
            else { return nil }
            return .some(parameters["$expression_params"] as? String)
        }
    }

    @Test func presentationRequestsCarryThePlacementsParamsWhenTheConfigEnablesExpressionParams() async throws {
        let enabled = try edited(EmbeddedDemoConfig.json) {
            $0["toggles"] = [["key": "enable_expression_params", "enabled": true]]
        }
        let (withParams, path) = try await superwall(config: enabled)
        _ = try await withParams.register(placement: "workout_shared", params: ["n": 1])
        _ = try await withParams.register(placement: "workout_shared", params: ["n": 2])
        await withParams.flushEvents()
        // The placement's params as its event carries them, as a JSON text.
        let sent = try expressionParams(path).map { text in
            try text.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }?["n"] as? Int
        }
        #expect(sent == [1, 2])

        let (plain, plainPath) = try await superwall()
        _ = try await plain.register(placement: "workout_shared", params: ["n": 1])
        await plain.flushEvents()
        #expect(try expressionParams(plainPath) == [nil])
    }
}
