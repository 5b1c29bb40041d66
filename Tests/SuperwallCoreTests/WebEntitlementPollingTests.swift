import Foundation
import Testing

@testable import SuperwallCore

/// SuperwallKit's `pollWebEntitlements` with the `http` source: at the first config, then on
/// foregrounds once `entitlements_max_age_ms` has passed.
@Suite struct WebEntitlementPollingTests {
    private static let usersPath = "/subscriptions-api/public/v1/users/"

    private static func customerInfo(entitlementExpiringAt expiresAt: Int64?) -> String {
        let expiry = expiresAt.map { #", "expiresAt": \#($0)"# } ?? ""
        return #"""
            {"customerInfo": {"subscriptions": [], "nonSubscriptions": [],
             "entitlements": [{"identifier": "pro", "type": "SERVICE_LEVEL", "isActive": true, "store": "STRIPE",
                               "productIds": ["com.pockettrainer.pro.annual"]\#(expiry)}]}}
            """#
    }

    private static let noEntitlements =
        #"{"customerInfo": {"subscriptions": [], "nonSubscriptions": [], "entitlements": []}}"#

    private func configured(
        _ server: ScriptedAPIServer,
        clock: FakeClock = FakeClock(),
        testMode: TestModeBehavior = .automatic
    ) async throws -> Superwall {
        let superwall = Superwall(clock: clock, random: CountingRandomSource(), delegate: RedemptionRecorder())
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("web-ent-\(UUID().uuidString)")
            .path
        _ = try await superwall.configure(
            apiKey: "pk",
            options: Superwall.ConfigureOptions(
                configSource: HTTPConfigSource(baseURL: server.baseURL),
                dataDirectory: directory,
                maxConfigRetryCount: 0,
                testModeBehavior: testMode
            )
        )
        await superwall.awaitRedemptions()
        return superwall
    }

    private func entitlementFetches(_ server: ScriptedAPIServer) -> [(path: String, query: String)] {
        server.requests.filter { $0.path.hasPrefix(Self.usersPath) }.map { ($0.path, $0.query) }
    }

    @Test func theFirstConfigFetchesTheDevicesWebEntitlementsIntoTheStatus() async throws {
        let server = try await ScriptedAPIServer.start(
            [.init(status: 200, body: EmbeddedDemoConfig.json)],
            paths: [Self.usersPath + "*": .init(status: 200, body: Self.customerInfo(entitlementExpiringAt: nil))]
        )
        let superwall = try await configured(server)
        let fetch = try #require(entitlementFetches(server).first)
        let deviceId = await superwall.webDeviceId
        #expect(fetch.path == Self.usersPath + deviceId + "/entitlements")
        #expect(
            fetch.query == "deviceId=" + (deviceId.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? "")
        )
        #expect(try await superwall.subscriptionStatus().activeEntitlements.map(\.id) == ["pro"])
        #expect(try await superwall.entitlements().web.map(\.id) == ["pro"])
    }

    @Test func aForegroundFetchesAgainOnlyOnceTheMaxAgeHasPassed() async throws {
        let server = try await ScriptedAPIServer.start(
            [.init(status: 200, body: EmbeddedDemoConfig.json)],
            paths: [Self.usersPath + "*": .init(status: 200, body: Self.noEntitlements)]
        )
        let clock = FakeClock()
        let superwall = try await configured(server, clock: clock)
        #expect(entitlementFetches(server).count == 1)
        clock.advance(by: 3600)
        try await superwall.appDidBecomeActive()
        await superwall.awaitRedemptions()
        #expect(entitlementFetches(server).count == 1)
        clock.advance(by: 86_400)
        try await superwall.appDidBecomeActive()
        await superwall.awaitRedemptions()
        #expect(entitlementFetches(server).count == 2)
    }

    @Test func theFetchIsForTheIdentifiedUserOnceThereIsOne() async throws {
        let server = try await ScriptedAPIServer.start(
            [.init(status: 200, body: EmbeddedDemoConfig.json)],
            paths: [Self.usersPath + "*": .init(status: 200, body: Self.noEntitlements)]
        )
        let clock = FakeClock()
        let superwall = try await configured(server, clock: clock)
        _ = try await superwall.identify(userId: "runner", restorePaywallAssignments: false)
        clock.advance(by: 86_401)
        try await superwall.appDidBecomeActive()
        await superwall.awaitRedemptions()
        #expect(entitlementFetches(server).last?.path == Self.usersPath + "runner/entitlements")
    }

    @Test func anEmptyAnswerKeepsWebEntitlementsThatHaveNotExpired() async throws {
        let clock = FakeClock()
        let inThreeDaysMs = Int64(clock.now().timeIntervalSince1970 * 1000) + 86_400_000 * 3
        let server = try await ScriptedAPIServer.start(
            [.init(status: 200, body: EmbeddedDemoConfig.json)],
            pathSequences: [
                Self.usersPath + "*": [
                    .init(status: 200, body: Self.customerInfo(entitlementExpiringAt: inThreeDaysMs)),
                    .init(status: 200, body: Self.noEntitlements),
                ]
            ]
        )
        let superwall = try await configured(server, clock: clock)
        #expect(try await superwall.entitlements().web.map(\.id) == ["pro"])
        clock.advance(by: 86_401)
        try await superwall.appDidBecomeActive()
        await superwall.awaitRedemptions()
        #expect(entitlementFetches(server).count == 2)
        #expect(try await superwall.entitlements().web.map(\.id) == ["pro"])
        #expect(try await superwall.subscriptionStatus().activeEntitlements.map(\.id) == ["pro"])
    }

    @Test func anEmptyAnswerRevokesWebEntitlementsWithoutAnExpiry() async throws {
        let server = try await ScriptedAPIServer.start(
            [.init(status: 200, body: EmbeddedDemoConfig.json)],
            pathSequences: [
                Self.usersPath + "*": [
                    .init(status: 200, body: Self.customerInfo(entitlementExpiringAt: nil)),
                    .init(status: 200, body: Self.noEntitlements),
                ]
            ]
        )
        let clock = FakeClock()
        let superwall = try await configured(server, clock: clock)
        #expect(try await superwall.entitlements().web.map(\.id) == ["pro"])
        clock.advance(by: 86_401)
        try await superwall.appDidBecomeActive()
        await superwall.awaitRedemptions()
        #expect(try await superwall.entitlements().web.isEmpty)
        #expect(try await superwall.subscriptionStatus() == .inactive)
    }

    @Test func testModeFetchesNoWebEntitlements() async throws {
        let server = try await ScriptedAPIServer.start(
            [.init(status: 200, body: EmbeddedDemoConfig.json)],
            paths: [Self.usersPath + "*": .init(status: 200, body: Self.customerInfo(entitlementExpiringAt: nil))]
        )
        let superwall = try await configured(server, testMode: .always)
        #expect(entitlementFetches(server).isEmpty)
        #expect(try await superwall.entitlements().web.isEmpty)
    }
}
