import FakeAPI
import Foundation
import Testing

@testable import SuperwallCore

/// The fake Superwall API's default answers, as the `http` source reads them.
@Suite struct FakeAPITests {
    private static let request = ConfigRequest(apiKey: "pk_fake")

    /// Runs `body` with the `http` source of a fake API serving the demo config and `script`.
    private func withFakeAPI(
        _ script: FakeAPIScript = FakeAPIScript(),
        _ body: (FakeAPIServer, HTTPConfigSource) async throws -> Void
    ) async throws {
        let config = Data(EmbeddedDemoConfig.json.utf8)
        let server = try await FakeAPIServer.start(try FakeAPI(config: { config }, script: script))
        try await body(server, HTTPConfigSource(baseURL: server.baseURL))
        await server.close()
    }

    @Test func confirmedAssignmentsAreServedBackBesideTheScriptsOwn() async throws {
        var script = FakeAPIScript()
        script.assignments = [("2001", "3001")]
        try await withFakeAPI(script) { _, source in
            try await source.confirmAssignments(
                [
                    AssignmentConfirmation(experimentId: "2001", variantId: "3002"),
                    AssignmentConfirmation(experimentId: "2002", variantId: "3004"),
                ],
                request: Self.request
            )
            let served = try await source.fetchAssignments(request: Self.request)
            #expect(served.map { "\($0.experimentId)=\($0.variantId)" } == ["2001=3002", "2002=3004"])
        }
    }

    @Test func aPaywallIsServedInTheScriptsLocaleElseAsTheConfigHasIt() async throws {
        var script = FakeAPIScript()
        script.localizedPaywalls = [
            "coach-upsell-gated": ["de": Data(#"{"identifier": "coach-upsell-gated", "name": "Coach (de)"}"#.utf8)]
        ]
        try await withFakeAPI(script) { _, source in
            func name(_ locale: String?) async throws -> String? {
                let body = try await source.fetchPaywall(
                    identifier: "coach-upsell-gated",
                    locale: locale,
                    request: Self.request
                )
                return (try JSONSerialization.jsonObject(with: body) as? [String: Any])?["name"] as? String
            }
            let german = try await name("de")
            let french = try await name("fr")
            #expect(german == "Coach (de)")
            #expect(french == "Coach chat upsell (gated)", "a locale the script lacks: the config's own")
            await #expect(throws: (any Error).self) {
                try await source.fetchPaywall(
                    identifier: "no-such-paywall",
                    locale: nil,
                    request: ConfigRequest(apiKey: "pk", retryPolicy: RetryPolicy(maxRetries: 0))
                )
            }
        }
    }

    @Test func aRedeemedCodesCustomerInfoBecomesTheDevicesWebEntitlements() async throws {
        var script = FakeAPIScript()
        script.redemptions = [
            "WEB-1": .init(
                status: "SUCCESS",
                customerInfo: Data(
                    #"{"subscriptions": [], "nonSubscriptions": [], "entitlements": [{"identifier": "pro", "type": "SERVICE_LEVEL", "isActive": true, "store": "STRIPE", "productIds": []}]}"#
                        .utf8
                )
            )
        ]
        try await withFakeAPI(script) { _, source in
            #expect(
                try await source.fetchWebCustomerInfo(userId: "d1", deviceId: "d1", request: Self.request).entitlements
                    .isEmpty
            )
            let answer = try await source.redeem(
                ["deviceId": "d1", "codes": [["code": "WEB-1"], ["code": "NOPE"]]],
                request: Self.request
            )
            let codes = try #require(
                (try JSONSerialization.jsonObject(with: answer) as? [String: Any])?["codes"] as? [[String: Any]]
            )
            #expect(codes.map { $0["status"] as? String } == ["SUCCESS", "INVALID_CODE"])
            let info = try await source.fetchWebCustomerInfo(userId: "d1", deviceId: "d1", request: Self.request)
            #expect(info.entitlements.map(\.id) == ["pro"])
        }
    }

    @Test func aScriptedSequenceIsServedInOrderItsLastRepeatingAndABodylessSuccessIsTheDefault() async throws {
        var script = FakeAPIScript()
        script.answers["/api/v1/assignments"] = [
            .init(status: 200, body: Data(#"{"assignments": []}"#.utf8)), .init(status: 200, delayMilliseconds: 1),
        ]
        script.assignments = [("2001", "3001")]
        try await withFakeAPI(script) { server, source in
            var counts: [Int] = []
            for _ in 0..<3 { counts.append(try await source.fetchAssignments(request: Self.request).count) }
            #expect(counts == [0, 1, 1])
            #expect(server.api.requests.count == 3)
        }
    }

    @Test func aScriptIsReadFromItsJSONAndAMistakeNamesItsPath() throws {
        let script = try FakeAPIScript(
            json: Data(
                #"{"answers": {"/api/v1/events": {"status": 503, "delayMs": 20}, "/api/v1/paywall/*": [{"status": 500}, {"status": 200, "bodyText": "nope"}]}, "assignments": [{"experimentId": "1", "variantId": "2"}]}"#
                    .utf8
            )
        )
        #expect(script.answers["/api/v1/events"] == [.init(status: 503, delayMilliseconds: 20)])
        #expect(script.answers["/api/v1/paywall/*"]?.last?.body == Data("nope".utf8))
        #expect(script.assignments.map(\.variantId) == ["2"])
        #expect(throws: FakeAPIScript.Invalid.self) { try FakeAPIScript(json: Data(#"{"answer": {}}"#.utf8)) }
        do {
            _ = try FakeAPIScript(json: Data(#"{"assignments": [{"experimentId": 1}]}"#.utf8))
            Issue.record("expected a refusal")
        } catch {
            #expect(error.path == "$.assignments[0]")
        }
    }
}
