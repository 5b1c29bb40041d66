import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

@Suite struct PaywallActionTests {
    @Test func customActionsReachTheDelegate() async throws {
        let (harness, shown, _) = try await showing("nongated")
        _ = try await harness.superwall.perform(.custom(name: "show_terms"), inSession: shown.sessionId)
        _ = try await harness.superwall.perform(.openURL("https://example.com/terms"), inSession: shown.sessionId)
        #expect(harness.delegate.calls.suffix(2) == ["custom show_terms", "openURL https://example.com/terms"])
        #expect(await harness.superwall.openSessionId == shown.sessionId)
        try await harness.superwall.dismiss()
    }

    /// A deep link dismisses the paywall (declined by the SDK, so no `paywall_decline`, and a
    /// non-gated feature is granted) before the delegate opens it.
    @Test func openingADeepLinkDismissesThePaywall() async throws {
        let (harness, shown, register) = try await showing("nongated")
        _ = try await harness.superwall.perform(
            .openDeepLink("pockettrainer://workouts/42"),
            inSession: shown.sessionId
        )
        let outcome = try await register.value
        #expect(outcome.featureGranted)
        #expect(harness.presenter.dismissed.map(\.closeReason) == [.systemLogic])
        #expect(harness.delegate.calls.last == "openDeepLink pockettrainer://workouts/42")
        #expect(!harness.delegate.names.contains("paywall_decline"))
    }

    @Test func aRedemptionLinkLeavesThePaywallUp() async throws {
        let (harness, shown, _) = try await showing("nongated")
        _ = try await harness.superwall.perform(
            .openDeepLink("pockettrainer://superwall/redeem?code=ABC"),
            inSession: shown.sessionId
        )
        #expect(await harness.superwall.openSessionId == shown.sessionId)
        try await harness.superwall.dismiss()
    }

    @Test func attributesSetByThePaywallMergeAndNotifyTheDelegate() async throws {
        let (harness, shown, _) = try await showing("nongated")
        _ = try await harness.superwall.perform(
            .setUserAttributes(["plan": "trial", "goal": nil]),
            inSession: shown.sessionId
        )
        #expect(try await harness.superwall.userAttributes()["plan"] == "trial")
        #expect(harness.delegate.calls.last == "attributes trial")
        #expect(harness.delegate.names.last == "user_attributes")
        try await harness.superwall.dismiss()
    }

    @Test func aPageViewIsTrackedWithThePaywallsParams() async throws {
        let (harness, shown, _) = try await showing("nongated")
        _ = try await harness.superwall.perform(
            .pageView(["page_node_id": "n2", "flow_position": 1]),
            inSession: shown.sessionId
        )
        let view = try #require(harness.delegate.event("paywall_page_view"))
        #expect(view.delegateParameters["page_node_id"] == "n2")
        #expect(view.delegateParameters["paywall_identifier"] == "onboarding-annual")
        try await harness.superwall.dismiss()
    }

    @Test func anActionForASessionNotOnScreenIsRefused() async throws {
        let (harness, shown, register) = try await showing("nongated")
        await #expect(throws: SuperwallError.paywallSessionNotFound("nope")) {
            try await harness.superwall.perform(.close, inSession: "nope")
        }
        try await harness.superwall.dismiss()
        _ = try await register.value
        await #expect(throws: SuperwallError.paywallSessionNotFound(shown.sessionId)) {
            try await harness.superwall.perform(.close, inSession: shown.sessionId)
        }
    }

    /// A custom placement may present the next paywall: the first closes `forNextPaywall`
    /// and the `register` waits for the second, keeping the first one's gating.
    @Test func aCustomPlacementReplacesThePaywallAndTheRegisterFollowsIt() async throws {
        let handler = RecordingHandler()
        let (harness, first, register) = try await showing("gated", handler: handler)
        _ = try await harness.superwall.perform(
            .customPlacement(name: "summer_offer", params: ["offer": "summer"]),
            inSession: first.sessionId
        )
        let second = try await harness.waitForPresentation(2)
        #expect(second.info.identifier == "summer-sale")
        #expect(second.info.presentationSourceType == "implicit")
        #expect(second.info.featureGating == .gated)
        #expect(harness.presenter.dismissed.map(\.closeReason) == [.forNextPaywall])
        // SuperwallKit protects a paywall by the name of the placement that presented it, and
        // a custom placement's name is its own: the replacement may be replaced in turn.
        _ = try await harness.superwall.perform(
            .customPlacement(name: "summer_offer", params: ["offer": "summer"]),
            inSession: second.sessionId
        )
        let third = try await harness.waitForPresentation(3)
        #expect(third.info.presentedByPlacementWithName == "summer_offer")
        _ = try await harness.superwall.perform(.close, inSession: third.sessionId)
        let outcome = try await register.value
        guard case .dismissed(let info, .declined) = outcome.ending else {
            Issue.record("expected the second paywall's decline")
            return
        }
        #expect(info.identifier == "summer-sale")
        #expect(!outcome.featureGranted)
        #expect(
            handler.calls == [
                "present pro-workouts-gated", "willDismiss pro-workouts-gated forNextPaywall",
                "dismiss pro-workouts-gated forNextPaywall",
                "present summer-sale", "willDismiss summer-sale forNextPaywall", "dismiss summer-sale forNextPaywall",
                "present summer-sale", "willDismiss summer-sale manualClose", "dismiss summer-sale manualClose",
            ]
        )
        let event = try #require(harness.delegate.events.first { $0.name == "summer_offer" })
        #expect(event.delegateParameters["name"] == "summer_offer")
        #expect(event.delegateParameters["offer"] == "summer")
    }
}
