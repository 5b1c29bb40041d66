import Foundation
import JSONRPC
import TestSupport
import Testing

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
func envelope(_ event: JSONValue) -> JSONValue {
    ["version": 1, "payload": ["events": [event]]]
}

/// What a host answers the bridge's requests with.
func hostAnswer(_ method: String) -> JSONValue {
    switch method {
    case "paywall/requestPermission": ["status": "granted"]
    case "handler/onCustomCallback": ["status": "success", "data": ["valid": true]]
    default: [:]
    }
}
