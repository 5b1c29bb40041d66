import Foundation
import Testing

@testable import SuperwallCore

/// Records the redemption callbacks.
final class RedemptionRecorder: SuperwallDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var events: [String] = []
    private var results: [RedemptionResult] = []
    func handleSuperwallEvent(_ event: TrackedEvent) { lock.withLock { events.append(event.name) } }
    func willRedeemLink() { lock.withLock { events.append("willRedeemLink") } }
    func didRedeemLink(_ result: RedemptionResult) { lock.withLock { results.append(result) } }
    var names: [String] { lock.withLock { events } }
    var redemptions: [RedemptionResult] { lock.withLock { results } }
}

@Suite struct RedemptionTests {
    private static let redeemPath = "/subscriptions-api/public/v1/redeem"
    private static let success = #"""
        {"codes": [{"status": "SUCCESS", "code": "WEB-1", "redemptionInfo": {"ownership": {"type": "APP_USER", "appUserId": "runner"}}}],
         "customerInfo": {"subscriptions": [{"transactionId": "stripe-1", "productId": "com.pockettrainer.pro.annual",
                                             "purchaseDate": 1790000000000, "isActive": true, "willRenew": true, "isRevoked": false,
                                             "isInGracePeriod": false, "isInBillingRetryPeriod": false, "store": "STRIPE"}],
                          "entitlements": [{"identifier": "pro", "type": "SERVICE_LEVEL", "isActive": true, "store": "STRIPE",
                                            "productIds": ["com.pockettrainer.pro.annual"]}]}}
        """#

    private func configured(_ server: ScriptedAPIServer, delegate: RedemptionRecorder) async throws -> Superwall {
        let superwall = Superwall(delegate: delegate)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("redeem-\(UUID().uuidString)")
            .path
        _ = try await superwall.configure(
            apiKey: "pk",
            options: Superwall.ConfigureOptions(
                configSource: HTTPConfigSource(baseURL: server.baseURL),
                dataDirectory: directory,
                maxConfigRetryCount: 0
            )
        )
        // The first config's fetch of the web entitlements, which a redemption must come after.
        await superwall.awaitRedemptions()
        return superwall
    }

    @Test func aRedeemedCodeBringsTheWebsEntitlementsIntoTheStatus() async throws {
        let server = try await ScriptedAPIServer.start(
            [.init(status: 200, body: EmbeddedDemoConfig.json)],
            paths: [Self.redeemPath: .init(status: 200, body: Self.success)]
        )
        let delegate = RedemptionRecorder()
        let superwall = try await configured(server, delegate: delegate)
        #expect(try await superwall.handleDeepLink("pockettrainer://superwall/redeem?code=WEB-1"))
        await superwall.awaitRedemptions()
        #expect(delegate.redemptions.map(\.status) == [.success])
        #expect(
            delegate.names.filter { $0.hasPrefix("redemption_") || $0 == "willRedeemLink" } == [
                "redemption_start", "willRedeemLink", "redemption_complete",
            ]
        )
        #expect(!delegate.names.contains("deepLink_open"))
        #expect(try await superwall.subscriptionStatus().activeEntitlements.map(\.id) == ["pro"])
        #expect(try await superwall.entitlements().web.map(\.id) == ["pro"])
        // The event queue's timer may have posted events first, on a slow run.
        let post = try #require(server.posts.first { $0.path == "/subscriptions-api/public/v1/redeem" })
        let body = try #require(try JSONSerialization.jsonObject(with: Data(post.body.utf8)) as? [String: Any])
        let codes = try #require(body["codes"] as? [[String: Any]])
        #expect(codes.first?["code"] as? String == "WEB-1")
        #expect(codes.first?["firstRedemption"] as? Bool == true)
        #expect((body["aliasId"] as? String)?.hasPrefix("$SuperwallAlias:") == true)
        #expect((body["deviceId"] as? String)?.hasPrefix("$SuperwallDevice:") == true)

        #expect(try await superwall.handleDeepLink("pockettrainer://superwall/redeem?code=WEB-1"))
        await superwall.awaitRedemptions()
        let last = try #require(server.posts.last { $0.path == "/subscriptions-api/public/v1/redeem" })
        let again = try #require(try JSONSerialization.jsonObject(with: Data(last.body.utf8)) as? [String: Any])
        #expect((again["codes"] as? [[String: Any]])?.first?["firstRedemption"] as? Bool == false)
    }

    /// SuperwallKit's `shouldShowWebPurchaseConfirmationAlert`: a redeemed web purchase is
    /// confirmed over the paywall on screen, unless the option is off.
    @Test(arguments: [true, false])
    func aRedeemedWebPurchaseIsConfirmedOverThePaywall(showingTheAlert: Bool) async throws {
        let server = try await ScriptedAPIServer.start(
            [.init(status: 200, body: try await presentationConfig(purchaseTriggers))],
            paths: [Self.redeemPath: .init(status: 200, body: Self.success)]
        )
        let harness = try await PresentationHarness.make(
            "",
            source: HTTPConfigSource(baseURL: server.baseURL),
            adjusting: { $0.showsWebPurchaseConfirmationAlert = showingTheAlert }
        )
        await harness.superwall.awaitRedemptions()
        _ = harness.registerInBackground("gated")
        _ = try await harness.waitForPresentation()
        #expect(try await harness.superwall.handleDeepLink("pockettrainer://superwall/redeem?code=WEB-1"))
        await harness.superwall.awaitRedemptions()
        // Alerts are asked in turn with the page's effects: a haptic asked after the redemption
        // comes after its alert, if any.
        try await harness.superwall.handlePageMessage(
            envelope(["event_name": "haptic_feedback", "haptic_type": "light"]),
            inSession: try #require(await harness.superwall.openSessionId)
        )
        try await eventually { harness.presenter.effects.contains(.haptic("light")) }
        #expect(harness.presenter.alerts.map(\.title) == (showingTheAlert ? ["You're all set."] : []))
        try await harness.superwall.dismiss()
    }

    /// SuperwallKit's `expiredCode(code, info)`: whether the email went out again, and to whom.
    @Test func anExpiredCodeSaysWhetherTheEmailWasResent() async throws {
        let expired =
            #"{"codes": [{"status": "CODE_EXPIRED", "code": "OLD", "expired": {"resent": true, "obfuscatedEmail": "r***@example.com"}}]}"#
        let server = try await ScriptedAPIServer.start(
            [.init(status: 200, body: EmbeddedDemoConfig.json)],
            paths: [Self.redeemPath: .init(status: 200, body: expired)]
        )
        let delegate = RedemptionRecorder()
        let superwall = try await configured(server, delegate: delegate)
        #expect(try await superwall.handleDeepLink("pockettrainer://superwall/redeem?code=OLD"))
        await superwall.awaitRedemptions()
        let result = try #require(delegate.redemptions.first)
        #expect(result.status == .codeExpired)
        #expect(result.status.caseName == "expiredCode")
        #expect(result.expiredInfo == ["resent": true, "obfuscatedEmail": "r***@example.com"])
    }

    @Test func aCodeTheServerRefusesFailsWithItsMessage() async throws {
        let refusal = #"{"codes": [{"status": "INVALID_CODE", "code": "BAD", "error": {"message": "no such code"}}]}"#
        let server = try await ScriptedAPIServer.start(
            [.init(status: 200, body: EmbeddedDemoConfig.json)],
            paths: [Self.redeemPath: .init(status: 200, body: refusal)]
        )
        let delegate = RedemptionRecorder()
        let superwall = try await configured(server, delegate: delegate)
        #expect(
            try await superwall.handleDeepLink("https://pockettrainer.superwall.app/app-link/superwall/redeem?code=BAD")
        )
        await superwall.awaitRedemptions()
        #expect(
            delegate.redemptions == [
                RedemptionResult(code: "BAD", status: .invalidCode, message: "no such code", redemptionInfo: nil)
            ]
        )
        #expect(delegate.names.contains("redemption_fail"))
        #expect(try await superwall.subscriptionStatus() == .inactive)
    }

    @Test func aServerThatFailsIsARedemptionFailure() async throws {
        let server = try await ScriptedAPIServer.start(
            [.init(status: 200, body: EmbeddedDemoConfig.json)],
            paths: [Self.redeemPath: .init(status: 404)]
        )
        let delegate = RedemptionRecorder()
        let superwall = try await configured(server, delegate: delegate)
        #expect(try await superwall.handleDeepLink("pockettrainer://superwall/redeem?code=WEB-2"))
        await superwall.awaitRedemptions()
        #expect(delegate.redemptions.first?.status == .error)
        #expect(delegate.redemptions.first?.message?.contains("failed") == true)
    }
}

extension RedemptionTests {
    @Test func identifyRedeemsTheCodesAlreadyRedeemedForTheIdentifiedUser() async throws {
        let server = try await ScriptedAPIServer.start(
            [.init(status: 200, body: EmbeddedDemoConfig.json)],
            paths: [Self.redeemPath: .init(status: 200, body: Self.success)]
        )
        let delegate = RedemptionRecorder()
        let superwall = try await configured(server, delegate: delegate)
        #expect(try await superwall.handleDeepLink("pockettrainer://superwall/redeem?code=WEB-1"))
        await superwall.awaitRedemptions()
        _ = try await superwall.identify(userId: "runner", restorePaywallAssignments: false)
        await superwall.awaitRedemptions()
        let posts = server.posts.filter { $0.path == "/subscriptions-api/public/v1/redeem" }
        #expect(posts.count == 2)
        let last = try #require(posts.last)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(last.body.utf8)) as? [String: Any])
        #expect(body["appUserId"] as? String == "runner")
        #expect((body["codes"] as? [[String: Any]])?.map { $0["code"] as? String } == ["WEB-1"])
        #expect((body["codes"] as? [[String: Any]])?.first?["firstRedemption"] as? Bool == false)
        // Quiet: one redemption's events, not two.
        #expect(delegate.names.filter { $0 == "redemption_start" }.count == 1)
        #expect(try await superwall.subscriptionStatus().activeEntitlements.map(\.id) == ["pro"])
    }

    @Test func identifyWithNoRedeemedCodesPostsNothing() async throws {
        let server = try await ScriptedAPIServer.start(
            [.init(status: 200, body: EmbeddedDemoConfig.json)],
            paths: [Self.redeemPath: .init(status: 200, body: Self.success)]
        )
        let superwall = try await configured(server, delegate: RedemptionRecorder())
        _ = try await superwall.identify(userId: "runner", restorePaywallAssignments: true)
        await superwall.awaitRedemptions()
        #expect(!server.posts.contains { $0.path == "/subscriptions-api/public/v1/redeem" })
    }
}

extension RedemptionTests {
    @Test func identifyingAnotherUserForgetsTheWebsEntitlementsOfTheOneBefore() async throws {
        let server = try await ScriptedAPIServer.start(
            [.init(status: 200, body: EmbeddedDemoConfig.json)],
            paths: [Self.redeemPath: .init(status: 200, body: Self.success)]
        )
        let superwall = try await configured(server, delegate: RedemptionRecorder())
        _ = try await superwall.identify(userId: "runner")
        #expect(try await superwall.handleDeepLink("pockettrainer://superwall/redeem?code=WEB-1"))
        await superwall.awaitRedemptions()
        #expect(try await superwall.entitlements().web.map(\.id) == ["pro"])
        _ = try await superwall.identify(userId: "walker")
        await superwall.awaitRedemptions()
        #expect(try await superwall.entitlements().web.isEmpty)
        #expect(try await superwall.subscriptionStatus().activeEntitlements.isEmpty)
    }

    @Test func aResetTakesTheWebsEntitlementsOutOfTheStatus() async throws {
        let server = try await ScriptedAPIServer.start(
            [.init(status: 200, body: EmbeddedDemoConfig.json)],
            paths: [Self.redeemPath: .init(status: 200, body: Self.success)]
        )
        let superwall = try await configured(server, delegate: RedemptionRecorder())
        #expect(try await superwall.handleDeepLink("pockettrainer://superwall/redeem?code=WEB-1"))
        await superwall.awaitRedemptions()
        #expect(try await superwall.subscriptionStatus().activeEntitlements.map(\.id) == ["pro"])
        _ = try await superwall.reset()
        await superwall.awaitRedemptions()
        #expect(try await superwall.entitlements().web.isEmpty)
        #expect(try await superwall.subscriptionStatus() == .inactive)
    }
}
