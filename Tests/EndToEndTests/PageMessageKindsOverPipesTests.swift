import Foundation
import JSONRPC
import TestSupport
import Testing

@Suite struct PageMessageKindsOverPipesTests {
    @Test func everyMessageKindPostedThroughPageMessageHasItsEffectOnTheWire() async throws {
        var client = try await PaywallClient.start()
        let sessionId = try await client.registerAndShow("register", "open_coach_chat")
        let session = JSONValue.string(sessionId)
        let events: [JSONValue] = [
            ["event_name": "ping", "version": "2023-01-12"],
            ["event_name": "custom", "data": "faq"],
            ["event_name": "custom_placement", "name": "faq_opened", "params": ["section": "billing"]],
            ["event_name": "user_attribute_updated", "attributes": [["key": "plan", "value": "trial"]]],
            ["event_name": "open_url", "url": "https://example.com/terms"],
            ["event_name": "open_url_external", "url": "https://example.com/privacy"],
            ["event_name": "open_url", "url": "https://checkout.example.com", "browser_type": "payment_sheet"],
            ["event_name": "request_store_review", "review_type": "in-app"],
            ["event_name": "request_permission", "permission_type": "camera", "request_id": "p1"],
            [
                "event_name": "request_callback", "request_id": "r1", "name": "validate", "behavior": "blocking",
                "variables": ["code": "X"],
            ],
            [
                "event_name": "schedule_notification", "type": "TRIAL_STARTED", "title": "Ends soon",
                "body": "Tomorrow", "delay": 60000,
            ],
            ["event_name": "haptic_feedback", "haptic_type": "success"],
            [
                "event_name": "page_view", "page_node_id": "n1", "flow_position": 0, "page_name": "Intro",
                "navigation_node_id": "v", "type": "entry",
            ],
            ["event_name": "stripe_checkout_start", "checkout_context_id": "c1", "product_identifier": "price_1"],
            ["event_name": "initiate_web_checkout", "checkout_context_id": "c1"],
        ]
        for (index, event) in events.enumerated() {
            client.request(
                .string("m\(index)"),
                "paywall/pageMessage",
                ["sessionId": session, "message": envelope(event)]
            )
        }
        var seen: [JSONValue] = []
        var pageEvents: [JSONValue] = []
        func has(_ method: String, _ check: (JSONValue) -> Bool = { _ in true }) -> Bool {
            seen.contains { $0["method"] == .string(method) && check($0["params"] ?? .null) }
        }
        func tracked(_ name: String) -> Bool {
            has("delegate/handleSuperwallEvent") { $0["event"]?["name"] == .string(name) }
        }
        func passed(_ name: String, _ check: (JSONValue) -> Bool = { _ in true }) -> Bool {
            pageEvents.contains { $0["event_name"] == .string(name) && check($0) }
        }
        func everyEffectSeen() -> Bool {
            (0..<events.count).allSatisfy { index in
                seen.contains { $0["id"] == .string("m\(index)") && $0["method"] == nil }
            }
                && passed("template_variables") && has("delegate/handleCustomPaywallAction") { $0["name"] == "faq" }
                && tracked("faq_opened")
                && has("delegate/userAttributesDidChange") && has("paywall/openUrl") { $0["mode"] == "inApp" }
                && has("paywall/openUrl") { $0["mode"] == "external" }
                && has("paywall/openUrl") { $0["mode"] == "paymentSheet" }
                && has("paywall/loadingState") { $0["state"] == "loadingPurchase" }
                && has("paywall/requestReview") { $0["type"] == "inApp" }
                && has("paywall/requestPermission") { $0["permission"] == "camera" }
                && passed("permission_result") { $0["status"] == "granted" }
                && has("handler/onCustomCallback") { $0["name"] == "validate" }
                && passed("callback_result") { $0["status"] == "success" }
                && has("paywall/scheduleNotification") { $0["title"] == "Ends soon" }
                && has("paywall/haptic") { $0["type"] == "success" }
                && tracked("paywall_page_view") && tracked("stripeCheckout_start")
        }
        // Fifteen round trips and the host's answers to the requests they make, in one wait.
        let deadline = ContinuousClock.now + slowExpectationTimeout
        while !everyEffectSeen(), ContinuousClock.now < deadline, let message = await client.bridge.client.next() {
            seen.append(message)
            if let method = message["method"]?.stringValue {
                if method == "paywall/pageEvent" { pageEvents += try PageOverPipesTests.decodedEvents(message) }
                if message["id"] != nil { client.answer(message, hostAnswer(method)) }
            }
        }
        #expect(everyEffectSeen())
        // Every message was taken whole: one event each.
        #expect(seen.filter { $0["method"] == nil && $0["result"]?["events"] == 1 }.count == events.count)

        // Last, the page's close: the gated paywall goes and the feature is not granted.
        client.request(
            "close",
            "paywall/pageMessage",
            ["sessionId": session, "message": envelope(["event_name": "close"])]
        )
        while let message = await client.bridge.client.next() {
            if let method = message["method"]?.stringValue, message["id"] != nil {
                client.answer(message, hostAnswer(method))
            }
            if message["method"] == "paywall/dismiss" { break }
        }
        let result = try #require(await client.reply(to: "register")?["result"])
        #expect(result["featureGranted"] == false)
        #expect(result["paywallInfo"]?["closeReason"] == "manualClose")
    }
}

extension PageMessageKindsOverPipesTests {
    /// The demo config has a web restore page: a restore that leaves the paywall's entitlements
    /// locked offers it (SuperwallKit's web-restore branch: the page hears only `restore_start`).
    @Test func aRestoreThatFindsNothingOffersTheWebRestoreAndADeepLinkClosesThePaywall() async throws {
        var client = try await PaywallClient.start(testModeBehavior: "always")
        let sessionId = try await client.registerAndShow("register", "open_coach_chat")
        let session = JSONValue.string(sessionId)
        client.request(
            "ping",
            "paywall/pageMessage",
            ["sessionId": session, "message": envelope(["event_name": "ping", "version": "1"])]
        )
        client.request(
            "restore",
            "paywall/pageMessage",
            ["sessionId": session, "message": envelope(["event_name": "restore"])]
        )
        var names: [String] = []
        var alert: JSONValue?
        while alert == nil, let message = await client.bridge.client.next() {
            if message["method"] == "paywall/pageEvent" {
                names += try PageOverPipesTests.decodedEvents(message).compactMap { $0["event_name"]?.stringValue }
            }
            if message["method"] == "paywall/showAlert" { alert = message["params"] }
            if let method = message["method"]?.stringValue, message["id"] != nil {
                client.answer(message, hostAnswer(method))
            }
        }
        #expect(names.contains("restore_start") && !names.contains("restore_complete"))
        #expect(alert?["actionTitle"] == "Restore on the web")
        #expect(alert?["actionUrl"]?.stringValue?.hasPrefix("https://") == true)

        client.request(
            "link",
            "paywall/pageMessage",
            [
                "sessionId": session,
                "message": envelope(["event_name": "open_deep_link", "link": "pockettrainer://workouts"]),
            ]
        )
        var opened: JSONValue?
        var registered: JSONValue?
        while opened == nil || registered == nil, let message = await client.bridge.client.next() {
            if message["method"] == "paywall/openUrl" { opened = message["params"] }
            if message["id"] == "register", message["method"] == nil { registered = message["result"] }
            if let method = message["method"]?.stringValue, message["id"] != nil {
                client.answer(message, hostAnswer(method))
            }
        }
        // The paywall closes first, then the host opens the app's link.
        #expect(opened?["url"] == "pockettrainer://workouts" && opened?["mode"] == "deepLink")
        #expect(registered?["paywallInfo"]?["closeReason"] == "systemLogic")
    }
}

extension PageOverPipesTests {
    static func decodedEvents(_ notification: JSONValue) throws -> [JSONValue] {
        try pageEvents(notification)
    }
}
