import Foundation
import Testing

@testable import SuperwallCore

@Suite struct PageRuntimeTests {
    @Test func aPingGetsTheTrackingBehaviourTheTemplatesAndTheEditorsTextThenTheHeldOpen() async throws {
        let (harness, shown, _) = try await showingPage()
        // Before the page is ready, `paywall_open` waits.
        #expect(harness.presenter.pageEventNames.isEmpty)
        try await ping(harness, shown)
        let names = harness.presenter.pageEventNames
        #expect(
            Array(names.prefix(5)) == [
                "event_tracking_behavior", "products", "template_variables", "template_substitutions_prefix",
                "experiment",
            ]
        )
        #expect(names.last == "paywall_open")
        #expect(names.contains("template_substitutions"))
        #expect(harness.delegate.event("paywallWebviewLoad_complete") != nil)
        let open = try #require(harness.presenter.pageEvents.last)
        #expect(open["paywall_identifier"] == "pro-workouts-gated")
        // A second ping repeats the injection; `paywall_open` is not held again.
        harness.presenter.clearPageEvents()
        try await ping(harness, shown)
        #expect(harness.presenter.pageEventNames.count == names.count - 1)
    }

    /// `$paywalljs_version` stayed `""` after the page said its version.
    @Test func thePagesVersionAndLoadTimesReachThePaywallInfoAndItsEvents() async throws {
        let (harness, shown, register) = try await showingPage()
        harness.clock.advance(by: 2)
        try await ping(harness, shown)
        let complete = try #require(harness.delegate.event("paywallWebviewLoad_complete")).superwallParameters
        #expect(complete["paywalljs_version"] == "2023-01-12")
        #expect(complete["paywall_webview_load_duration"] == 2.0)
        #expect(complete["paywall_response_load_start_time"]?.stringValue?.isEmpty == false)
        #expect(complete["intro_offer_eligibility"] == "AUTOMATIC")
        #expect(complete["shimmerView_load_start_time"] == "")
        _ = try await harness.superwall.perform(.close, inSession: shown.sessionId)
        let outcome = try await register.value
        guard case .dismissed(let info, _) = outcome.ending else {
            Issue.record("expected a dismissal, got \(outcome.ending)")
            return
        }
        #expect(info.paywalljsVersion == "2023-01-12")
        #expect(harness.delegate.event("paywall_close")?.superwallParameters["paywalljs_version"] == "2023-01-12")
    }

    @Test func theTemplatesCarryTheDescribedProductsTheTrialPrefixTheParamsAndTheExperiment() async throws {
        let (harness, shown, _) = try await showingPage()
        try await ping(harness, shown)
        let events = harness.presenter.pageEvents
        let products = try #require(events.first { $0["event_name"] == "products" })
        #expect(
            products["products"] == [
                ["product": "primary", "productId": .string(annual)],
                ["product": "secondary", "productId": "com.pockettrainer.pro.monthly"],
            ]
        )
        let variables = try #require(events.first { $0["event_name"] == "template_variables" }?["variables"])
        #expect(variables["primary"]?["price"] == "$59.99")
        #expect(variables["primary"]?["trialPeriodText"] == "7-day")
        #expect(variables["primary"]?["isSubscribed"] == false)
        // The monthly product was not described by the store: no variables for it.
        #expect(variables["secondary"] == .object([:]))
        #expect(variables["products"] == [["primary": try #require(variables["primary"])]])
        #expect(variables["params"]?["source"] == "settings")
        #expect(variables["params"]?["$event_name"] == "gated")
        #expect(variables["user"]?["aliasId"] != nil)
        #expect(variables["device"]?["deviceLocale"] != nil)
        #expect(events.first { $0["event_name"] == "template_substitutions_prefix" }?["prefix"] == "freeTrial")
        let experiment = try #require(events.first { $0["event_name"] == "experiment" })
        #expect(experiment["experimentId"] == "e2" && experiment["variantId"] == "v2")
    }

    @Test func aPurchaseFromThePageGoesThroughTheControllerAndThePageHearsEachStep() async throws {
        let controller = ScriptedPurchaseController(.purchase(.purchased))
        let (harness, shown, register) = try await showingPage(controller: controller)
        controller.beforeAnswering = {
            _ = try? await harness.superwall.setSubscriptionStatus(.active([Entitlement(id: "pro")]))
        }
        try await ping(harness, shown)
        harness.presenter.clearPageEvents()
        try await harness.superwall.handlePageMessage(
            envelope(["event_name": "purchase", "product_identifier": .string(annual)]),
            inSession: shown.sessionId
        )
        #expect(controller.asked == ["\(annual) from pro-workouts-gated"])
        #expect(
            harness.presenter.pageEventNames == [
                "transaction_start", "transaction_complete", "freeTrial_start", "paywall_close",
            ]
        )
        let trial = harness.presenter.pageEvents[2]
        #expect(trial["product_identifier"] == .string(annual))
        #expect(trial["trial_end_date"] != nil)
        let outcome = try await register.value
        #expect(outcome.featureGranted)
    }

    @Test func shouldDismissFalseKeepsThePaywallUpAfterAPurchase() async throws {
        let controller = ScriptedPurchaseController(.purchase(.purchased))
        let (harness, shown, _) = try await showingPage(controller: controller)
        try await ping(harness, shown)
        try await harness.superwall.handlePageMessage(
            envelope(["eventName": "purchase", "productIdentifier": .string(annual), "shouldDismiss": false]),
            inSession: shown.sessionId
        )
        #expect(controller.asked.count == 1)
        #expect(await harness.superwall.openSessionId == shown.sessionId)
        #expect(harness.presenter.dismissed.isEmpty)
    }

    @Test func aPurchaseOfAProductThePaywallDoesNotHaveTellsThePageItFailed() async throws {
        let controller = ScriptedPurchaseController(.purchase(.purchased))
        let (harness, shown, _) = try await showingPage(controller: controller)
        try await ping(harness, shown)
        harness.presenter.clearPageEvents()
        try await harness.superwall.handlePageMessage(
            envelope(["event_name": "purchase", "product_identifier": "com.unknown"]),
            inSession: shown.sessionId
        )
        #expect(controller.asked.isEmpty)
        #expect(harness.presenter.pageEventNames == ["transaction_fail"])
    }

    @Test func aCancelledPurchaseIsAnAbandonInThePage() async throws {
        let controller = ScriptedPurchaseController(.purchase(.cancelled))
        let (harness, shown, _) = try await showingPage(controller: controller)
        try await ping(harness, shown)
        harness.presenter.clearPageEvents()
        try await harness.superwall.handlePageMessage(
            envelope(["event_name": "purchase", "product_identifier": .string(annual)]),
            inSession: shown.sessionId
        )
        #expect(harness.presenter.pageEventNames.prefix(2) == ["transaction_start", "transaction_abandon"])
    }

    @Test func aRestoreFromThePageTellsItStartRestoreAndCompleteThenCloses() async throws {
        let controller = ScriptedPurchaseController(.purchase(.purchased), restoration: .restored)
        let (harness, shown, register) = try await showingPage(controller: controller)
        controller.beforeAnswering = {
            _ = try? await harness.superwall.setSubscriptionStatus(.active([Entitlement(id: "pro")]))
        }
        try await ping(harness, shown)
        harness.presenter.clearPageEvents()
        try await harness.superwall.handlePageMessage(envelope(["event_name": "restore"]), inSession: shown.sessionId)
        #expect(
            harness.presenter.pageEventNames == [
                "restore_start", "transaction_restore", "restore_complete", "paywall_close",
            ]
        )
        #expect(try await register.value.featureGranted)
    }

    @Test func aFailedRestoreTellsThePage() async throws {
        let controller = ScriptedPurchaseController(.purchase(.purchased), restoration: .failed("nothing to restore"))
        let (harness, shown, _) = try await showingPage(controller: controller)
        try await ping(harness, shown)
        harness.presenter.clearPageEvents()
        try await harness.superwall.handlePageMessage(envelope(["event_name": "restore"]), inSession: shown.sessionId)
        #expect(harness.presenter.pageEventNames == ["restore_start", "restore_fail"])
    }

    @Test func closeDeclinesTheGatedPaywallAndThePageHearsItClose() async throws {
        let (harness, shown, register) = try await showingPage()
        try await ping(harness, shown)
        harness.presenter.clearPageEvents()
        try await harness.superwall.handlePageMessage(envelope(["event_name": "close"]), inSession: shown.sessionId)
        #expect(harness.presenter.dismissed.map(\.closeReason) == [.manualClose])
        #expect(harness.presenter.pageEventNames == ["paywall_close"])
        #expect(try await register.value.featureGranted == false)
    }

    @Test func customActionsPlacementsAttributesAndPageViewsReachTheApp() async throws {
        let (harness, shown, _) = try await showingPage()
        try await harness.superwall.handlePageMessage(
            envelope(
                ["event_name": "custom", "data": "open_faq"],
                ["event_name": "custom_placement", "name": "faq_opened", "params": ["section": "billing"]],
                [
                    "event_name": "user_attribute_updated",
                    "attributes": [["key": "plan", "value": "trial"], ["key": "$is_standard_event", "value": true]],
                ],
                [
                    "event_name": "page_view", "page_node_id": "n1", "flow_position": 0, "page_name": "Intro",
                    "navigation_node_id": "nav", "type": "entry",
                ],
                ["event_name": "stripe_checkout_start", "checkout_context_id": "c1", "product_identifier": "price_1"],
                ["event_name": "initiate_web_checkout", "checkout_context_id": "c1"]
            ),
            inSession: shown.sessionId
        )
        #expect(harness.delegate.calls.contains("custom open_faq"))
        #expect(harness.delegate.event("faq_opened")?.customParameters["section"] == "billing")
        #expect(try await harness.superwall.userAttributes()["plan"] == "trial")
        #expect(try await harness.superwall.userAttributes()["$is_standard_event"] == nil)
        #expect(harness.delegate.event("paywall_page_view")?.delegateParameters["page_name"] == "Intro")
        #expect(harness.delegate.event("stripeCheckout_start")?.delegateParameters["product_identifier"] == "price_1")
    }

    @Test func aCallbackRequestIsAnsweredIntoThePage() async throws {
        let (harness, shown, _) = try await showingPage()
        try await ping(harness, shown)
        harness.presenter.clearPageEvents()
        try await harness.superwall.handlePageMessage(
            envelope(
                ["event_name": "request_callback", "request_id": "r1", "name": "validate", "behavior": "blocking"]),
            inSession: shown.sessionId
        )
        let result = try #require(harness.presenter.pageEvents.first)
        #expect(result["event_name"] == "callback_result")
        #expect(result["request_id"] == "r1" && result["name"] == "validate")
        // No handler for custom callbacks: a failure at once.
        #expect(result["status"] == "failure")
        #expect(result["paywall_id"] == nil)
    }

    @Test func linksReachTheDelegateAndADeepLinkClosesThePaywall() async throws {
        let (harness, shown, _) = try await showingPage()
        try await harness.superwall.handlePageMessage(
            envelope(
                ["event_name": "open_url", "url": "https://example.com/terms"],
                ["event_name": "open_url_external", "url": "https://example.com/privacy"]
            ),
            inSession: shown.sessionId
        )
        #expect(
            harness.delegate.calls.filter { $0.hasPrefix("openURL") } == [
                "openURL https://example.com/terms", "openURL https://example.com/privacy",
            ]
        )
        try await harness.superwall.handlePageMessage(
            envelope(["event_name": "open_deep_link", "link": "pockettrainer://workouts"]),
            inSession: shown.sessionId
        )
        #expect(harness.delegate.calls.contains("openDeepLink pockettrainer://workouts"))
        #expect(harness.presenter.dismissed.map(\.closeReason) == [.systemLogic])
    }

    @Test func aMessageWithOneBadEventIsRefusedWholeAndTheSessionStaysUsable() async throws {
        let (harness, shown, _) = try await showingPage()
        let bad = envelope(["event_name": "custom", "data": "first"], ["event_name": "purchase"])
        await #expect(
            throws: SuperwallError.invalidPageMessage(
                PageMessageError(eventIndex: 1, reason: "product_identifier is required")
            )
        ) {
            try await harness.superwall.handlePageMessage(bad, inSession: shown.sessionId)
        }
        #expect(!harness.delegate.calls.contains("custom first"))
        for refused: JSON in [
            "not json", ["payload": ["events": []]], ["version": 1], envelope(["event_name": "teleport"]),
            envelope(["event_name": "haptic_feedback"]),
            envelope(["event_name": "request_permission", "permission_type": "bluetooth", "request_id": "r"]),
        ] {
            await #expect(throws: SuperwallError.self) {
                try await harness.superwall.handlePageMessage(refused, inSession: shown.sessionId)
            }
        }
        // The page's text form of the envelope works, and the session is still there.
        let text =
            #"{"version":1,"payload":{"events":[{"event_name":"custom","data":"second"}]},"direction":"from_paywall"}"#
        #expect(try await harness.superwall.handlePageMessage(.string(text), inSession: shown.sessionId) == 1)
        #expect(harness.delegate.calls.contains("custom second"))
    }

    /// paywall.js sends `ping`'s version as a string; a host that writes it by hand may send a number.
    @Test func aPingsVersionMayBeANumber() async throws {
        let (harness, shown, _) = try await showingPage()
        #expect(
            try await harness.superwall.handlePageMessage(
                envelope(["event_name": "ping", "version": 2]),
                inSession: shown.sessionId
            ) == 1
        )
        // The page is ready: it is given its templates.
        try await eventually { harness.presenter.pageEvents.contains { $0["event_name"] == "template_variables" } }
    }

    @Test func aMessageForAPaywallNotOnScreenIsRefused() async throws {
        let (harness, _, _) = try await showingPage()
        await #expect(throws: SuperwallError.paywallSessionNotFound("gone")) {
            try await harness.superwall.handlePageMessage(envelope(["event_name": "close"]), inSession: "gone")
        }
    }
}
