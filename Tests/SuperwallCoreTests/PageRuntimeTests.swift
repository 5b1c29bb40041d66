import Foundation
import Testing

@testable import SuperwallCore

private let annual = "com.pockettrainer.pro.annual"

private var pageTriggers: [[String: Any]] {
    [
        placement("gated", [audience("e2", rule: nil, variants: [treatment("v2", "pro-workouts-gated")])])
    ]
}

/// What the host's store says of the demo's annual product: 59.99 a year, a 7-day free trial.
private let annualDetails = StoreProductDetails(
    productIdentifier: annual,
    price: 59.99,
    currencyCode: "USD",
    period: .init(unit: .year),
    trialPeriodDays: 7,
    priceLocale: "en_US"
)

/// A page message envelope of `events`.
private func envelope(_ events: JSON...) -> JSON {
    ["version": 1, "payload": ["events": .array(events)]]
}

/// The gated paywall up, with a purchase controller when given, and its page not yet pinged.
private func showingPage(
    controller: ScriptedPurchaseController? = nil,
    automaticallyDismiss: Bool = true,
    showsPurchaseFailureAlert: Bool = true
) async throws -> (PresentationHarness, PaywallPresentation, Task<PresentationOutcome, any Error>) {
    let harness = await PresentationHarness.make(
        try await presentationConfig(pageTriggers),
        usingPurchaseController: controller != nil,
        purchaseController: controller,
        automaticallyDismiss: automaticallyDismiss,
        storeProducts: [annualDetails],
        showsPurchaseFailureAlert: showsPurchaseFailureAlert
    )
    if controller != nil { try await harness.superwall.setSubscriptionStatus(.inactive) }
    let register = harness.registerInBackground("gated", params: ["source": "settings"])
    let shown = try await harness.waitForPresentation()
    return (harness, shown, register)
}

private func ping(_ harness: PresentationHarness, _ shown: PaywallPresentation) async throws {
    try await harness.superwall.handlePageMessage(
        envelope(["event_name": "ping", "version": "2023-01-12"]),
        inSession: shown.sessionId
    )
}

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

    @Test func aMessageForAPaywallNotOnScreenIsRefused() async throws {
        let (harness, _, _) = try await showingPage()
        await #expect(throws: SuperwallError.paywallSessionNotFound("gone")) {
            try await harness.superwall.handlePageMessage(envelope(["event_name": "close"]), inSession: "gone")
        }
    }
}

@Suite struct PageEffectTests {
    @Test func aPermissionIsAskedOfTheHostTrackedAndAnsweredIntoThePage() async throws {
        let (harness, shown, _) = try await showingPage()
        try await ping(harness, shown)
        harness.presenter.clearPageEvents()
        try await harness.superwall.handlePageMessage(
            envelope(["event_name": "request_permission", "permission_type": "notification", "request_id": "p1"]),
            inSession: shown.sessionId
        )
        #expect(harness.presenter.effects.contains(.requestPermission("notification")))
        #expect(harness.delegate.event("permission_requested")?.delegateParameters["permission_name"] == "notification")
        #expect(harness.delegate.event("permission_granted") != nil)
        let result = try #require(harness.presenter.pageEvents.last)
        #expect(
            result["event_name"] == "permission_result" && result["request_id"] == "p1" && result["status"] == "granted"
        )
        #expect(result["permission_type"] == "notification")
    }

    @Test func aHostThatCannotAskAnswersUnsupportedWhichCountsAsDenied() async throws {
        let (harness, shown, _) = try await showingPage()
        harness.presenter.permissionAnswer = nil
        try await harness.superwall.handlePageMessage(
            envelope(["event_name": "request_permission", "permission_type": "camera", "request_id": "p2"]),
            inSession: shown.sessionId
        )
        #expect(harness.delegate.event("permission_denied") != nil)
        #expect(harness.presenter.pageEvents.last?["status"] == "unsupported")
    }

    @Test func reviewsNotificationsAndHapticsAreAskedOfTheHostInOrder() async throws {
        let (harness, shown, _) = try await showingPage()
        try await harness.superwall.handlePageMessage(
            envelope(
                ["event_name": "request_store_review", "review_type": "in-app"],
                // The demo config has no app id: there is no review page to open.
                ["event_name": "request_store_review", "review_type": "external"],
                [
                    "event_name": "schedule_notification", "type": "TRIAL_STARTED", "title": "Trial ends",
                    "body": "Tomorrow", "delay": 86_400_000,
                ],
                [
                    "event_name": "schedule_notification", "type": "TRIAL_STARTED", "title": "Now", "body": "No",
                    "delay": 0,
                ],
                ["event_name": "haptic_feedback", "haptic_type": "success"],
                ["event_name": "haptic_feedback", "haptic_type": "thunder"]
            ),
            inSession: shown.sessionId
        )
        let expected: [PageEffect] = [
            .requestReview(external: false, url: nil),
            .scheduleNotification(
                PageNotification(
                    id: "com.superwall.ios-pro-workouts-gated-TRIAL_STARTED",
                    title: "Trial ends",
                    subtitle: nil,
                    body: "Tomorrow",
                    delayMs: 86_400_000
                )
            ),
            .haptic("success"),
        ]
        try await eventually { harness.presenter.effects.count >= expected.count }
        #expect(harness.presenter.effects == expected)
        #expect(harness.delegate.event("review_requested")?.delegateParameters["count"] == 1)
    }

    @Test func linksOpenInTheWayThePageAskedAfterAMediumHaptic() async throws {
        let (harness, shown, _) = try await showingPage()
        try await harness.superwall.handlePageMessage(
            envelope(
                ["event_name": "open_url", "url": "https://example.com/terms"],
                ["event_name": "open_url_external", "url": "https://example.com/privacy"],
                ["event_name": "open_url", "url": "https://checkout.example.com", "browser_type": "payment_sheet"]
            ),
            inSession: shown.sessionId
        )
        let expected: [PageEffect] = [
            .haptic("medium"), .openURL("https://example.com/terms", mode: .inApp),
            .haptic("medium"), .openURL("https://example.com/privacy", mode: .external),
            .haptic("medium"), .loadingState(.loadingPurchase),
            .openURL("https://checkout.example.com", mode: .paymentSheet),
        ]
        try await eventually { harness.presenter.effects.count >= expected.count }
        #expect(harness.presenter.effects == expected)
    }

    /// `javascript:` and `file:` links reached the host's `paywall/openUrl` as the page gave them.
    @Test func linksThatRunCodeOrReadTheDeviceAreRefusedAndTheRestOpen() async throws {
        let (harness, shown, _) = try await showingPage()
        try await harness.superwall.handlePageMessage(
            envelope(
                ["event_name": "open_url", "url": "javascript:alert(document.cookie)"],
                ["event_name": "open_url_external", "url": "file:///etc/passwd"],
                ["event_name": "open_url", "url": "data:text/html,<script>x()</script>"],
                ["event_name": "open_url", "url": "mailto:help@example.com"],
                ["event_name": "open_url", "url": "https://checkout.example.com", "browser_type": "payment_sheet"],
                ["event_name": "open_url", "url": "JavaScript:void(0)", "browser_type": "payment_sheet"],
                ["event_name": "open_deep_link", "link": "file:///data/app"],
                ["event_name": "open_url_external", "url": "mailto:help@example.com"]
            ),
            inSession: shown.sessionId
        )
        let expected: [PageEffect] = [
            .haptic("medium"), .loadingState(.loadingPurchase),
            .openURL("https://checkout.example.com", mode: .paymentSheet),
            .haptic("medium"), .openURL("mailto:help@example.com", mode: .external),
        ]
        try await eventually { harness.presenter.effects.count >= expected.count }
        #expect(harness.presenter.effects == expected)
    }

    @Test func thePageIsRevealedAfterItsPingAndTheSpinnerFollowsAPurchase() async throws {
        let controller = ScriptedPurchaseController(.purchase(.failed("card declined")))
        let (harness, shown, _) = try await showingPage(controller: controller)
        try await ping(harness, shown)
        try await eventually { harness.presenter.effects.contains(.loadingState(.ready)) }
        try await harness.superwall.handlePageMessage(
            envelope(["event_name": "purchase", "product_identifier": .string(annual)]),
            inSession: shown.sessionId
        )
        try await eventually { harness.presenter.effects.filter { $0 == .loadingState(.ready) }.count == 2 }
        let states = harness.presenter.effects.compactMap { effect -> PageLoadingState? in
            if case .loadingState(let state) = effect { return state }
            return nil
        }
        #expect(states == [.ready, .loadingPurchase, .ready])
        #expect(harness.presenter.pageEventNames.suffix(2) == ["transaction_start", "transaction_fail"])
    }
}

/// The gated paywall with two endpoints of equal weight, and the multi-URL flag as given.
private func showingLoadablePage(
    multipleURLs: Bool
) async throws -> (PresentationHarness, PaywallPresentation, Task<PresentationOutcome, any Error>) {
    let base = try await presentationConfig(pageTriggers, toggles: ["enable_multiple_paywall_urls": multipleURLs])
    let config = try edited(base) { object in
        editPaywalls(&object) { paywall in
            guard paywall["identifier"] as? String == "pro-workouts-gated" else { return paywall }
            var changed = paywall
            changed["url_config"] = [
                "endpoints": [
                    ["url": "https://a.example/p", "timeout_ms": 1500, "percentage": 50],
                    ["url": "https://b.example/p", "timeout_ms": 2500, "percentage": 50],
                ],
                "max_attempts": 5,
            ]
            return changed
        }
    }
    let harness = await PresentationHarness.make(config)
    let register = harness.registerInBackground("gated")
    return (harness, try await harness.waitForPresentation(), register)
}

@Suite struct PageLoadingTests {
    @Test func theHostIsGivenWhatItNeedsToLoadThePage() async throws {
        let (harness, shown, _) = try await showingLoadablePage(multipleURLs: false)
        #expect(
            shown.page.load
                == PageLoadTarget(url: "https://paywalls.pockettrainer.example/pro-workouts-gated", timeoutMs: nil)
        )
        #expect(shown.page.documentStartScript.hasPrefix("window.__SW_DEVICE_PRELOAD__ = {\"deviceLocale\":"))
        #expect(shown.page.documentEndStyle.contains(".w-webflow-badge{display:none!important}"))
        #expect(shown.page.loadingControlsAfterMs == 5000)
        #expect(harness.delegate.names.contains("paywallWebviewLoad_start"))
    }

    @Test func withOneURLAFailedLoadClosesThePaywallAsWebViewFailedToLoad() async throws {
        let (harness, shown, register) = try await showingLoadablePage(multipleURLs: false)
        let next = try await harness.superwall.pageLoadDidEnd(.finished(httpStatus: 404), inSession: shown.sessionId)
        #expect(next == .close)
        #expect(harness.presenter.dismissed.map(\.closeReason) == [.webViewFailedToLoad])
        let failure = try #require(harness.delegate.event("paywallWebviewLoad_fail"))
        #expect(failure.delegateParameters["error_message"] == "The network failed with error code 404.")
        #expect(failure.delegateParameters["url_0"] == "https://paywalls.pockettrainer.example/pro-workouts-gated")
        #expect(try await register.value.featureGranted == false)
    }

    @Test func endpointsAreDrawnByWeightAndAFailedOneFallsBackToTheNext() async throws {
        let (harness, shown, _) = try await showingLoadablePage(multipleURLs: true)
        #expect(shown.page.load == PageLoadTarget(url: "https://a.example/p", timeoutMs: 1500))
        let next = try await harness.superwall.pageLoadDidEnd(.failed("timed out"), inSession: shown.sessionId)
        #expect(next == .load(PageLoadTarget(url: "https://b.example/p", timeoutMs: 2500)))
        #expect(harness.delegate.event("paywallWebviewLoad_fallback") != nil)
        #expect(
            try await harness.superwall.pageLoadDidEnd(.finished(httpStatus: 200), inSession: shown.sessionId) == .wait
        )
        #expect(try await harness.superwall.pageLoadDidEnd(.failed("offline"), inSession: shown.sessionId) == .close)
        let failures = harness.delegate.events.filter { $0.name == "paywallWebviewLoad_fail" }
        #expect(
            failures.map { $0.delegateParameters["url_0"] } == [
                "https://a.example/p", "https://b.example/p", "https://a.example/p",
            ]
        )
        #expect(harness.presenter.dismissed.map(\.closeReason) == [.webViewFailedToLoad])
    }

    @Test func aDeadWebContentProcessIsReloadedThreeTimesThenThePaywallCloses() async throws {
        let (harness, shown, _) = try await showingLoadablePage(multipleURLs: false)
        for _ in 0..<3 {
            #expect(
                try await harness.superwall.pageLoadDidEnd(.processTerminated, inSession: shown.sessionId) == .reload
            )
        }
        #expect(try await harness.superwall.pageLoadDidEnd(.processTerminated, inSession: shown.sessionId) == .close)
        #expect(harness.delegate.events.filter { $0.name == "paywallWebviewLoad_processTerminated" }.count == 4)
        #expect(harness.presenter.dismissed.map(\.closeReason) == [.webViewFailedToLoad])
    }

    @Test func theExitControlClosesThePaywallAsTheSDKsDoing() async throws {
        let (harness, shown, _) = try await showingLoadablePage(multipleURLs: false)
        #expect(try await harness.superwall.pageLoadDidEnd(.exit, inSession: shown.sessionId) == .close)
        #expect(harness.presenter.dismissed.map(\.closeReason) == [.systemLogic])
    }
}

@Suite struct TemplatesTests {
    /// The TEMPLATES for the worked example's paywall, decoded from their `accept64` text.
    private func decodedTemplates(currency: String, priceLocale: String, deviceLocale: String) throws -> [JSON] {
        let json = #"""
            {"id":"571","identifier":"annual-paywall","name":"Annual","cache_key":"k","build_id":"b","url":"https://example.com",
             "url_config":{"endpoints":[],"max_attempts":1},"paywalljs_event":"","presentation_style_v3":{"type":"MODAL"},
             "presentation_delay":0,"background_color_hex":"#FFF",
             "products_v2":[{"reference_name":"primary","store_product":{"store":"APP_STORE","product_identifier":"com.example.annual"},
                             "entitlements":[{"identifier":"pro","type":"SERVICE_LEVEL"}]}]}
            """#
        var paywall = try JSONDecoder().decode(Paywall.self, from: Data(json.utf8))
        paywall.products[0].storeDetails = annual(currency: currency, priceLocale: priceLocale)
        let templates = PaywallTemplates(
            paywall: paywall,
            userAttributes: ["aliasId": "$SuperwallAlias:1"],
            device: ["deviceLocale": .string(deviceLocale)],
            params: [:],
            experiment: nil,
            isFreeTrialAvailable: true,
            subscribedProductIds: [],
            deviceLocale: deviceLocale,
            now: shownOn,
            timeZone: utc
        )
        let data = try #require(Data(base64Encoded: templates.accept64))
        guard case .array(let events) = try JSONDecoder().decode(JSON.self, from: data) else {
            Issue.record("TEMPLATES is not a JSON array")
            return []
        }
        return events
    }

    @Test(arguments: [("USD", "en_US", workedExampleEnUS), ("EUR", "de_DE", workedExampleDeDE)])
    func theTemplatesOfAYearlyProductWithASevenDayTrialMatchTheWorkedExample(
        currency: String,
        locale: String,
        expected: [String: String]
    ) throws {
        let events = try decodedTemplates(currency: currency, priceLocale: locale, deviceLocale: locale)
        #expect(
            events.map { $0["event_name"]?.stringValue } == [
                "products", "template_variables", "template_substitutions_prefix", "experiment",
            ]
        )
        #expect(events[0]["products"] == [["product": "primary", "productId": "com.example.annual"]])
        let variables = try #require(events[1]["variables"]?.objectValue)
        let primary = try #require(variables["primary"]?.objectValue)
        for (key, value) in expected { #expect(primary[key] == .string(value), "\(key)") }
        #expect(primary["isSubscribed"] == false)
        #expect(primary.count == expected.count + 1)
        #expect(variables["products"] == [["primary": .object(primary)]])
        #expect(variables["secondary"] == .object([:]) && variables["tertiary"] == .object([:]))
        #expect(variables["params"] == .object([:]))
        #expect(events[2] == ["event_name": "template_substitutions_prefix", "prefix": "freeTrial"])
        // No experiment: its three ids are empty strings.
        #expect(events[3] == ["event_name": "experiment", "experimentId": "", "variantId": "", "campaignId": ""])
    }
}

@Suite struct StripeCheckoutMessageTests {
    @Test func eachStageIsTrackedAndAnAbandonIsATransactionAbandonNotPassedToThePage() async throws {
        let (harness, shown, _) = try await showingPage()
        try await ping(harness, shown)
        harness.presenter.clearPageEvents()
        try await harness.superwall.handlePageMessage(
            envelope(
                ["event_name": "stripe_checkout_submit", "checkout_context_id": "c1", "product_identifier": "price_1"],
                [
                    "event_name": "stripe_checkout_complete", "checkout_context_id": "c1",
                    "product_identifier": "price_1",
                ],
                ["event_name": "stripe_checkout_fail", "checkout_context_id": "c2", "product_identifier": "price_1"],
                ["event_name": "stripe_checkout_abandon", "checkout_context_id": "c3", "product_identifier": "price_1"]
            ),
            inSession: shown.sessionId
        )
        let names = harness.delegate.names
        #expect(
            ["stripeCheckout_submit", "stripeCheckout_complete", "stripeCheckout_fail", "transaction_abandon"]
                .allSatisfy(names.contains)
        )
        #expect(!names.contains("stripeCheckout_abandon"))
        #expect(harness.delegate.event("transaction_abandon")?.delegateParameters["store"] == "STRIPE")
        #expect(harness.presenter.pageEventNames.isEmpty)
        #expect(await harness.superwall.openSessionId == shown.sessionId)
    }
}

@Suite struct PurchaseAlertTests {
    @Test func aFailedPurchaseShowsSuperwallKitsAlertWithTheStoresMessage() async throws {
        let controller = ScriptedPurchaseController(.purchase(.failed("Your card was declined.")))
        let (harness, shown, _) = try await showingPage(controller: controller)
        try await harness.superwall.handlePageMessage(
            envelope(["event_name": "purchase", "product_identifier": .string(annual)]),
            inSession: shown.sessionId
        )
        try await eventually { !harness.presenter.alerts.isEmpty }
        #expect(
            harness.presenter.alerts == [
                PaywallAlert(title: "An error occurred", message: "Your card was declined.", closeActionTitle: "Done")
            ]
        )
    }

    @Test func withoutThePurchaseFailureAlertOptionAFailedPurchaseShowsNoAlert() async throws {
        let controller = ScriptedPurchaseController(
            .purchase(.failed("Your card was declined.")),
            restoration: .failed(nil)
        )
        let (harness, shown, _) = try await showingPage(controller: controller, showsPurchaseFailureAlert: false)
        try await harness.superwall.handlePageMessage(
            envelope(["event_name": "purchase", "product_identifier": .string(annual)]),
            inSession: shown.sessionId
        )
        // Alerts are asked in order: the restore's coming first means the purchase asked none.
        try await harness.superwall.handlePageMessage(envelope(["event_name": "restore"]), inSession: shown.sessionId)
        try await eventually { !harness.presenter.alerts.isEmpty }
        #expect(harness.presenter.alerts == [PaywallAlert.restoreFailed])
    }

    @Test func aPurchaseWaitingForApprovalShowsThePendingAlert() async throws {
        let controller = ScriptedPurchaseController(.purchase(.pending))
        let (harness, shown, _) = try await showingPage(controller: controller)
        try await harness.superwall.handlePageMessage(
            envelope(["event_name": "purchase", "product_identifier": .string(annual)]),
            inSession: shown.sessionId
        )
        try await eventually { !harness.presenter.alerts.isEmpty }
        #expect(harness.presenter.alerts.map(\.title) == ["Waiting for Approval"])
    }

    @Test func aRestoreThatFindsNothingShowsTheRestoreFailedAlert() async throws {
        let controller = ScriptedPurchaseController(.purchase(.purchased), restoration: .failed(nil))
        let (harness, shown, _) = try await showingPage(controller: controller)
        try await harness.superwall.handlePageMessage(envelope(["event_name": "restore"]), inSession: shown.sessionId)
        try await eventually { !harness.presenter.alerts.isEmpty }
        #expect(harness.presenter.alerts == [PaywallAlert.restoreFailed])
        #expect(harness.presenter.alerts.first?.actionTitle == nil)
    }

    @Test func aTransactionFailCampaignShowsItsPaywallInsteadOfTheAlert() async throws {
        let triggers =
            pageTriggers + [
                placement("transaction_fail", [audience("tf", rule: nil, variants: [treatment("tf-v", "summer-sale")])])
            ]
        let controller = ScriptedPurchaseController(.purchase(.failed("declined")))
        let harness = await PresentationHarness.make(
            try await presentationConfig(triggers),
            usingPurchaseController: true,
            purchaseController: controller,
            storeProducts: [annualDetails]
        )
        try await harness.superwall.setSubscriptionStatus(.inactive)
        _ = harness.registerInBackground("gated")
        let shown = try await harness.waitForPresentation()
        try await harness.superwall.handlePageMessage(
            envelope(["event_name": "purchase", "product_identifier": .string(annual)]),
            inSession: shown.sessionId
        )
        _ = try await harness.waitForPresentation(2)
        #expect(harness.presenter.presentations.last?.paywall.identifier == "summer-sale")
        #expect(harness.presenter.alerts.isEmpty)
    }
}
