import Foundation
import JSONRPC
import TestSupport
import Testing

/// The events an `accept64` argument carries.
private func pageEvents(_ notification: JSONValue?) throws -> [JSONValue] {
    let text = try #require(notification?["params"]?["accept64"]?.stringValue)
    let data = try #require(Data(base64Encoded: text))
    return try #require(try JSONDecoding.decode([UInt8](data)).arrayValue)
}

@Suite struct PageOverPipesTests {
    @Test func thePagesPingOverTheWireGetsItsEventsAsPageEventNotificationsInOrder() async throws {
        var client = try await PaywallClient.start(storeProducts: [
            [
                "productIdentifier": "com.pockettrainer.coach.monthly", "price": 19.99, "currencyCode": "USD",
                "priceLocale": "en_US",
                "period": ["unit": "month"],
                "introductoryOffer": ["price": 0, "period": ["unit": "week"], "paymentMode": "freeTrial"],
            ]
        ])
        let sessionId = try await client.registerAndShow("register", "open_coach_chat")
        let session = JSONValue.string(sessionId)
        // The page posts its envelope as a string; the host forwards it as it is.
        client.request(
            "ping",
            "paywall/pageMessage",
            [
                "sessionId": session,
                "message": #"{"version":1,"payload":{"events":[{"event_name":"ping","version":"2023-01-12"}]}}"#,
            ]
        )
        #expect(try #require(await client.reply(to: "ping"))["result"] == ["events": 1])
        // Those that came before the reply, then the rest until `paywall_open`.
        var notifications = client.seen.filter { $0["method"] == "paywall/pageEvent" }
        var names: [String] = []
        var variables: JSONValue?
        while !names.contains("paywall_open") {
            let event =
                notifications.isEmpty
                ? try #require(await client.message("paywall/pageEvent")) : notifications.removeFirst()
            #expect(event["params"]?["sessionId"] == session)
            for decoded in try pageEvents(event) {
                names.append(decoded["event_name"]?.stringValue ?? "?")
                if decoded["event_name"] == "template_variables" { variables = decoded["variables"] }
            }
        }
        #expect(
            Array(names.prefix(5)) == [
                "event_tracking_behavior", "products", "template_variables", "template_substitutions_prefix",
                "experiment",
            ]
        )
        #expect(variables?["primary"]?["price"] == "$19.99")
        #expect(variables?["primary"]?["trialPeriodText"] == "7-day")
        #expect(variables?["primary"]?["periodly"] == "monthly")

        client.request("load", "paywall/pageLoad", ["sessionId": session, "outcome": "finished", "httpStatus": 200])
        #expect(try #require(await client.reply(to: "load"))["result"] == ["action": "wait"])
    }

    /// SuperwallKit's public `togglePaywallSpinner`, `isPaywallPresented` and `latestPaywallInfo`
    /// had no method: a wrapper had to track what was on screen itself.
    @Test func theSpinnerTogglesOverAReadyPageAndThePresentedPaywallIsKnown() async throws {
        var client = try await PaywallClient.start()
        client.request("before", "isPaywallPresented")
        #expect(try #require(await client.reply(to: "before"))["result"] == ["isPaywallPresented": false])
        client.request("none", "latestPaywallInfo")
        #expect(try #require(await client.reply(to: "none"))["result"] == ["paywallInfo": .null])
        let sessionId = try await client.registerAndShow("register", "open_coach_chat")
        client.request(
            "ping",
            "paywall/pageMessage",
            [
                "sessionId": .string(sessionId), "message": envelope(["event_name": "ping", "version": "2023-01-12"]),
            ]
        )
        _ = await client.reply(to: "ping")
        let ready = try #require(await client.message("paywall/loadingState"))
        #expect(ready["params"]?["state"] == "ready")
        client.answer(ready, [:])
        client.request("spin", "togglePaywallSpinner", ["isHidden": false])
        #expect(
            try #require(await client.reply(to: "spin"))["result"] == [
                "paywallPresented": true, "loadingState": "manualLoading",
            ]
        )
        let spinner = try #require(await client.message("paywall/loadingState"))
        #expect(spinner["params"]?["state"] == "manualLoading")
        client.answer(spinner, [:])
        client.request("hide", "togglePaywallSpinner", ["isHidden": true])
        #expect(try #require(await client.reply(to: "hide"))["result"]?["loadingState"] == "ready")
        let hidden = try #require(await client.message("paywall/loadingState"))
        client.answer(hidden, [:])
        client.request("up", "isPaywallPresented")
        #expect(try #require(await client.reply(to: "up"))["result"] == ["isPaywallPresented": true])
        client.request("info", "latestPaywallInfo")
        let info = try #require(await client.reply(to: "info"))["result"]?["paywallInfo"]
        #expect(info?["paywalljsVersion"] == "2023-01-12")
        let identifier = try #require(info?["identifier"])
        _ = try await client.close(sessionId, register: "register")
        client.request("after", "isPaywallPresented")
        #expect(try #require(await client.reply(to: "after"))["result"] == ["isPaywallPresented": false])
        client.request("last", "latestPaywallInfo")
        let last = try #require(await client.reply(to: "last"))["result"]?["paywallInfo"]
        #expect(last?["identifier"] == identifier)
        #expect(last?["closeReason"] == "manualClose")
        client.request("nothing", "togglePaywallSpinner", ["isHidden": false])
        #expect(
            try #require(await client.reply(to: "nothing"))["result"] == [
                "paywallPresented": false, "loadingState": .null,
            ]
        )
    }

    @Test func aMessageThatDoesNotDecodeIsAnInvalidParamsErrorNamingTheEvent() async throws {
        var client = try await PaywallClient.start()
        let sessionId = try await client.registerAndShow("register", "open_coach_chat")
        client.request(
            "bad",
            "paywall/pageMessage",
            [
                "sessionId": .string(sessionId),
                "message": [
                    "version": 1, "payload": ["events": [["event_name": "close"], ["event_name": "purchase"]]],
                ],
            ]
        )
        let error = try #require(await client.reply(to: "bad")?["error"])
        #expect(error["code"] == -32602)
        #expect(error["data"]?["kind"] == "invalidPageMessage")
        #expect(error["data"]?["eventIndex"] == 1)
        // Nothing was done: the close did not happen, and the session still answers.
        client.request("still", "paywall/pageLoad", ["sessionId": .string(sessionId), "outcome": "finished"])
        #expect(try #require(await client.reply(to: "still"))["result"] == ["action": "wait"])
        client.request("kind", "paywall/pageLoad", ["sessionId": .string(sessionId), "outcome": "teleported"])
        #expect(try #require(await client.reply(to: "kind"))["error"]?["code"] == -32602)
    }

    @Test func thePresentCarriesWhatTheHostNeedsToLoadThePage() async throws {
        var client = try await PaywallClient.start()
        client.request("register", "register", ["placement": "open_coach_chat"])
        let present = try #require(await client.message("paywall/present"))
        let page = present["params"]?["paywall"]?["page"]
        #expect(page?["load"]?["url"] == present["params"]?["paywall"]?["url"])
        #expect(page?["documentStartScript"]?.stringValue?.hasPrefix("window.__SW_DEVICE_PRELOAD__ = ") == true)
        #expect(page?["webView"]?["allowsZoom"] == false)
        #expect(page?["loadingControlsAfterMs"] == 5000)
        client.answer(present, [:])
    }
}

/// One envelope of one event.
private func envelope(_ event: JSONValue) -> JSONValue {
    ["version": 1, "payload": ["events": [event]]]
}

/// What a host answers the bridge's requests with.
private func hostAnswer(_ method: String) -> JSONValue {
    switch method {
    case "paywall/requestPermission": ["status": "granted"]
    case "handler/onCustomCallback": ["status": "success", "data": ["valid": true]]
    default: [:]
    }
}

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
        let deadline = ContinuousClock.now + expectationTimeout
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
