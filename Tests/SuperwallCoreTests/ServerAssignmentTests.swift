import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

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
        let (superwall, outcome) = try await configure(server)
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
        let (superwall, _) = try await configure(server)
        _ = try await superwall.identify(userId: "runner_10", restorePaywallAssignments: false)
        try await eventually {
            (try? await superwall.assignments().first { $0.experimentId == "2002" }?.variant.id) == "3004"
        }
        #expect(server.requests.contains { $0.path == "/api/v1/assignments" })
    }

    @Test func aLocalConfigSourceAsksNoServer() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig([]))
        _ = try await harness.superwall.identify(userId: "runner_11", restorePaywallAssignments: true)
        #expect(try await harness.superwall.identity().appUserId == "runner_11")
    }
}
