import Foundation
import Testing

@testable import SuperwallCore

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

    /// SuperwallKit reads `window.app.getAllState()` as the paywall goes and keeps it as
    /// `PaywallInfo.state`: here the host answers it to `dismiss`.
    @Test func thePagesStateReadAtDismissalIsThePaywallInfosState() async throws {
        let (harness, _, _) = try await showingPage()
        #expect(await harness.superwall.latestPaywallInfo?.state == [:])
        harness.presenter.pageState = ["plan": "annual", "step": 2]
        try await harness.superwall.dismiss()
        #expect(await harness.superwall.latestPaywallInfo?.state == ["plan": "annual", "step": 2])
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

    /// SuperwallKit's scheduler shortens a sandbox device's trial reminder by 24 × 60, so that a
    /// day's reminder arrives in a minute while testing; the client may give `isSandbox` as a
    /// boolean or as SuperwallKit's string.
    @Test func aSandboxDevicesTrialReminderComesInAMinuteForADay() async throws {
        for given: JSON in [true, "true"] {
            let (harness, shown, _) = try await showingPage(device: ["isSandbox": given])
            try await harness.superwall.handlePageMessage(
                envelope([
                    "event_name": "schedule_notification", "type": "TRIAL_STARTED", "title": "Trial ends",
                    "body": "Tomorrow", "delay": 86_400_000,
                ]),
                inSession: shown.sessionId
            )
            try await eventually { !harness.presenter.effects.isEmpty }
            let reminder = harness.presenter.effects.compactMap { effect -> PageNotification? in
                if case .scheduleNotification(let notification) = effect { return notification }
                return nil
            }
            #expect(reminder.map(\.delayMs) == [60_000])
        }
    }

    /// SuperwallKit's `notificationPermissionsDenied`: its alert when the OS refused the trial
    /// reminder, none without the option.
    @Test func aTrialReminderTheOSRefusedShowsTheConfiguredAlertAndNoneWithoutIt() async throws {
        for configured in [true, false] {
            let presenter = FakePresenter()
            presenter.notificationAnswer = .denied
            let harness = try await PresentationHarness.make(
                try await presentationConfig(pageTriggers),
                presenter: presenter,
                storeProducts: [annualDetails]
            ) { options in
                guard configured else { return }
                options.notificationPermissionsDeniedAlert = .notificationPermissionsDenied(title: "Mitteilungen aus")
            }
            _ = harness.registerInBackground("gated", params: [:])
            let shown = try await harness.waitForPresentation()
            try await harness.superwall.handlePageMessage(
                envelope(
                    [
                        "event_name": "schedule_notification", "type": "TRIAL_STARTED", "title": "Trial ends",
                        "body": "Tomorrow", "delay": 86_400_000,
                    ],
                    // Effects run in order: once the haptic is asked, the reminder's alert is done.
                    ["event_name": "haptic_feedback", "haptic_type": "success"]
                ),
                inSession: shown.sessionId
            )
            try await eventually { presenter.effects.contains(.haptic("success")) }
            #expect(presenter.alerts.map(\.title) == (configured ? ["Mitteilungen aus"] : []))
            #expect(presenter.alerts.allSatisfy { $0 == .notificationPermissionsDenied(title: "Mitteilungen aus") })
            #expect(presenter.alerts.first?.actionURL ?? "app-settings:" == "app-settings:")
        }
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
func showingLoadablePage(
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
    let harness = try await PresentationHarness.make(config)
    let register = harness.registerInBackground("gated")
    return (harness, try await harness.waitForPresentation(), register)
}
