import Foundation
import Testing

@testable import SuperwallCore

@Suite struct CollectorDeliveryTests {
    @Test func theHTTPSourcesEventsArePostedToTheCollectorRetriedAndPartlyRefused() async throws {
        let server = try await ScriptedAPIServer.start(
            [.init(status: 200, body: EmbeddedDemoConfig.json)],
            pathSequences: [
                "/api/v1/events": [
                    .init(status: 503),
                    .init(status: 200, body: #"{"status": "partial_success", "invalid_indexes": [0]}"#),
                ]
            ]
        )
        let superwall = Superwall(retryDelay: { _, _ in .milliseconds(10) })
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("collector-\(UUID().uuidString)")
            .path
        _ = try await superwall.configure(
            apiKey: "pk_collector",
            options: Superwall.ConfigureOptions(
                configSource: HTTPConfigSource(baseURL: server.baseURL),
                dataDirectory: directory,
                maxConfigRetryCount: 0,
                // No preload: its events come when it has run, and on a busy machine that can be
                // after the flush took the launch's, in a batch of their own.
                shouldPreload: false,
                eventFlushInterval: .seconds(3600)
            )
        )
        await superwall.awaitPresentationQueue()
        await superwall.flushEvents(within: .seconds(5))
        let posts = server.posts.filter { $0.path == "/api/v1/events" }
        #expect(posts.count == 2, "one refused with 503, then retried")
        let last = try #require(posts.last)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(last.body.utf8)) as? [String: Any])
        let events = try #require(body["events"] as? [[String: Any]])
        #expect(events.first?["event_name"] as? String == "app_install")
        #expect(
            events.allSatisfy {
                $0["event_id"] is String && $0["created_at"] is String && $0["parameters"] is [String: Any]
            }
        )
        #expect(await superwall.droppedEventCount == 1)
    }
}
