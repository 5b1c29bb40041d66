import FakeAPI
import Foundation
import Testing

@testable import SuperwallCore

#if canImport(Glibc)
import Glibc
#endif

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

/// What a client can make the fake API hold is bounded: 685 MiB stayed after three 200 MiB
/// posts, and 1,500 connections dripping a byte a second were all kept.
@Suite struct FakeAPILimitsTests {
    private static func connect(_ url: URL) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(url.port!).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(connected == 0)
        return descriptor
    }

    /// What the server sends until it closes the connection (within 10 s).
    private static func readToClose(_ descriptor: Int32) -> String {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            received += buffer[..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    @Test func aConnectionThatSendsNoWholeRequestInTimeIsClosedAndABodyOverTheLimitRefused() async throws {
        var limits = FakeAPIServer.Limits()
        limits.bodyBytes = 1_000
        limits.requestTimeout = .milliseconds(300)
        let server = try await FakeAPIServer.start(try FakeAPI(config: { Data("{}".utf8) }), limits: limits)
        let idle = try Self.connect(server.baseURL)
        defer { close(idle) }
        _ = write(idle, "GET /api/v1/static", 18)
        #expect(Self.readToClose(idle).isEmpty, "closed without an answer")

        let large = try Self.connect(server.baseURL)
        defer { close(large) }
        let request =
            "POST /api/v1/events HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n"
            + String(repeating: "x", count: 5000)
        _ = request.withCString { write(large, $0, strlen($0)) }
        #expect(Self.readToClose(large).hasPrefix("HTTP/1.1 413"))
        #expect(server.api.requests.isEmpty)
        await server.close()
    }

    @Test func aDelayThatIsNotAWholeNumberIsRefusedNamingItsPath() throws {
        for delay in [#""5""#, "1.5", "1e300"] {
            do {
                _ = try FakeAPIScript(
                    json: Data(#"{"answers": {"/api/v1/events": {"status": 200, "delayMs": \#(delay)}}}"#.utf8)
                )
                Issue.record("\(delay) was taken")
            } catch {
                #expect(error.path == "$.answers./api/v1/events[0].delayMs")
            }
        }
    }
}

extension FakeAPILimitsTests {
    /// Six 40 MiB event posts once kept 240 MiB in the server's memory; the newest stays whole.
    @Test func theKeptRequestsHoldAtMostTheirBudgetOfBodiesAndTheNewestWhole() throws {
        let api = try FakeAPI(config: { Data("{}".utf8) })
        let large = FakeAPI.keptBodyBytes / 3 + 1
        for index in 0..<6 {
            let body = Data(repeating: UInt8(ascii: "a") + UInt8(index), count: large)
            _ = api.answer(FakeAPIRequest(method: "POST", path: "/api/v1/events", query: "", headers: [:], body: body))
        }
        let kept = api.requests
        #expect(kept.count == 2)
        #expect(kept.reduce(0) { $0 + ($1.body?.count ?? 0) } <= FakeAPI.keptBodyBytes)
        #expect(kept.last?.body?.first == UInt8(ascii: "a") + 5)

        let huge = Data(count: FakeAPI.keptBodyBytes * 2)
        _ = api.answer(FakeAPIRequest(method: "POST", path: "/api/v1/events", query: "", headers: [:], body: huge))
        #expect(api.requests.map { $0.body?.count } == [huge.count])
    }
}
