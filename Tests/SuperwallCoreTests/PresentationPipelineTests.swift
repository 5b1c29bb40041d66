import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

@Suite struct PresentationPipelineTests {
    @Test func aPresentedPaywallClosedByTheUserIsDeclinedAndGrantsANonGatedFeature() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig(demoTriggers))
        let handler = RecordingHandler()
        let register = harness.registerInBackground("nongated", handler: handler)
        let shown = try await harness.waitForPresentation()
        #expect(shown.info.identifier == "onboarding-annual")
        #expect(shown.info.experiment?.id == "e1")
        #expect(shown.info.presentedByPlacementWithName == "nongated")
        #expect(shown.info.presentationSourceType == "register")
        #expect(try await harness.superwall.perform(.close, inSession: shown.sessionId) == nil)
        let outcome = try await register.value
        guard case .dismissed(let info, .declined) = outcome.ending else {
            Issue.record("expected a decline, got \(outcome.ending)")
            return
        }
        #expect(info.closeReason == .manualClose)
        #expect(outcome.featureGranted)
        #expect(
            handler.calls == [
                "present onboarding-annual", "willDismiss onboarding-annual manualClose",
                "dismiss onboarding-annual manualClose",
            ]
        )
        #expect(
            harness.delegate.calls == [
                "willPresent onboarding-annual", "didPresent onboarding-annual", "willDismiss onboarding-annual",
                "didDismiss onboarding-annual",
            ]
        )
        #expect(harness.presenter.dismissed.map { $0.closeReason } == [.manualClose])
    }

    /// SuperwallKit's order; the registered placement is logged but, being the
    /// app's own, is not handed to the delegate.
    @Test func eventsFollowSuperwallKitsOrder() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig(demoTriggers))
        let register = harness.registerInBackground("nongated")
        let shown = try await harness.waitForPresentation()
        _ = try await harness.superwall.perform(.close, inSession: shown.sessionId)
        _ = try await register.value
        await harness.superwall.awaitPresentationQueue()
        #expect(
            harness.delegate.names == [
                "paywallResponseLoad_start", "paywallResponseLoad_complete", "trigger_fire",
                "paywallPresentationRequest",
                "paywallWebviewLoad_start", "paywall_open", "paywall_decline", "paywall_close",
            ]
        )
        let fire = try #require(harness.delegate.event("trigger_fire"))
        #expect(fire.delegateParameters["result"] == "present")
        #expect(fire.delegateParameters["experiment_id"] == "e1")
        #expect(fire.delegateParameters["variant_id"] == "v1")
        #expect(fire.delegateParameters["paywall_identifier"] == "onboarding-annual")
        let request = try #require(harness.delegate.event("paywallPresentationRequest"))
        #expect(request.delegateParameters["status"] == "presentation")
        #expect(request.delegateParameters["pipeline_type"] == "presentation")
        let open = try #require(harness.delegate.event("paywall_open"))
        #expect(open.audienceParameters["$paywall_identifier"] == "onboarding-annual")
        #expect(open.audienceParameters["paywall_id"] == .string(shown.info.databaseId))
        #expect(open.audienceParameters["$presentation_id"] == .string(shown.info.presentationId))
        let history = try #require(await harness.superwall.session?.store).placementNames()
        #expect(history.contains("nongated"))
    }

    @Test func aGatedPaywallClosedByTheUserDoesNotGrantTheFeature() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig(demoTriggers))
        let register = harness.registerInBackground("gated")
        let shown = try await harness.waitForPresentation()
        #expect(shown.info.featureGating == .gated)
        _ = try await harness.superwall.perform(.close, inSession: shown.sessionId)
        #expect(try await register.value.featureGranted == false)
    }

    @Test func dismissClosesBySystemLogicWithoutADecline() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig(demoTriggers))
        let register = harness.registerInBackground("nongated")
        _ = try await harness.waitForPresentation()
        try await harness.superwall.dismiss()
        let outcome = try await register.value
        guard case .dismissed(let info, .declined) = outcome.ending else {
            Issue.record("expected a dismissal")
            return
        }
        #expect(info.closeReason == .systemLogic)
        #expect(outcome.featureGranted)
        #expect(!harness.delegate.names.contains("paywall_decline"))
        try await harness.superwall.dismiss()
    }

    @Test func aHoldoutSkipsGrantsAndIsReported() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig(demoTriggers))
        let handler = RecordingHandler()
        let outcome = try await harness.superwall.register(placement: "held", handler: handler)
        guard case .skipped(.holdout(let experiment)) = outcome.ending else {
            Issue.record("expected a holdout")
            return
        }
        #expect(experiment.variant.id == "v3")
        #expect(outcome.featureGranted)
        #expect(handler.calls == ["skip holdout"])
        #expect(harness.delegate.event("trigger_fire")?.delegateParameters["result"] == "holdout")
        #expect(harness.delegate.event("paywallPresentationRequest")?.delegateParameters["status_reason"] == "holdout")
        #expect(harness.presenter.presentations.isEmpty)
    }

    @Test func noMatchAndAnUnknownPlacementSkipAndGrant() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig(demoTriggers))
        let noMatch = try await harness.superwall.register(placement: "nomatch")
        #expect(noMatch.ending == .skipped(.noAudienceMatch))
        #expect(noMatch.featureGranted)
        harness.delegate.clear()
        let unknown = try await harness.superwall.register(placement: "not_in_config")
        #expect(unknown.ending == .skipped(.placementNotFound))
        #expect(unknown.featureGranted)
        #expect(harness.delegate.names == ["paywallPresentationRequest"])
        #expect(
            harness.delegate.event("paywallPresentationRequest")?.delegateParameters["status_reason"]
                == "event_not_found"
        )
    }

    @Test func aPaywallMissingFromTheConfigIs404AndDoesNotGrant() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig(demoTriggers))
        let handler = RecordingHandler()
        let outcome = try await harness.superwall.register(placement: "missing", handler: handler)
        #expect(errorCode(outcome) == .paywallNotFound)
        #expect(!outcome.featureGranted)
        #expect(handler.calls == ["error 404"])
        #expect(harness.delegate.names.contains("paywallResponseLoad_notFound"))
        #expect(
            harness.delegate.event("paywallPresentationRequest")?.delegateParameters["status_reason"]
                == "no_paywall_view_controller"
        )
    }

    @Test func withoutAPresenterThePipelineFailsWith103BeforeTriggerFire() async throws {
        let harness = try await PresentationHarness.make(
            try await presentationConfig(demoTriggers),
            presenter: FakePresenter(canPresent: false)
        )
        let outcome = try await harness.superwall.register(placement: "nongated")
        #expect(errorCode(outcome) == .noPresenter)
        #expect(!outcome.featureGranted)
        #expect(!harness.delegate.names.contains("trigger_fire"))
        #expect(
            harness.delegate.event("paywallPresentationRequest")?.delegateParameters["status_reason"] == "no_presenter"
        )
    }

    @Test func aHostThatRefusesOrNeverShowsIsAnErrorWithinTheDeadline() async throws {
        let refusing = try await PresentationHarness.make(
            try await presentationConfig(demoTriggers),
            presenter: FakePresenter(behavior: .refuse)
        )
        #expect(errorCode(try await refusing.superwall.register(placement: "nongated")) == .noPresenter)
        #expect(await refusing.superwall.openSessionId == nil)
        var timeouts = Superwall.Timeouts()
        timeouts.presentation = .milliseconds(100)
        let silent = try await PresentationHarness.make(
            try await presentationConfig(demoTriggers),
            presenter: FakePresenter(behavior: .hang),
            timeouts: timeouts
        )
        let (outcome, elapsed) = try await measuredOffThePool {
            try await silent.superwall.register(placement: "nongated")
        }
        #expect(errorCode(outcome) == .noPresenter)
        #expect(elapsed < .seconds(20), "the presenter never answers")
        // The slot is free again.
        #expect(errorCode(try await silent.superwall.register(placement: "nongated")) == .noPresenter)
    }

    @Test func aFailedConfigIs104() async throws {
        let harness = try await PresentationHarness.make("not json")
        let outcome = try await harness.superwall.register(placement: "nongated")
        #expect(errorCode(outcome) == .noConfig)
        #expect(
            harness.delegate.event("paywallPresentationRequest")?.delegateParameters["status_reason"] == "no_config"
        )
        #expect(try await harness.superwall.presentationResult(for: "nongated") == .paywallNotAvailable)
    }

    /// With a purchase controller the status starts unknown; presentation waits for it
    /// (bounded), and fails with 105 and a `timeout` request event when it never comes.
    @Test func anUnknownSubscriptionStatusTimesOutWith105() async throws {
        var timeouts = Superwall.Timeouts()
        timeouts.subscriptionStatus = .milliseconds(100)
        let harness = try await PresentationHarness.make(
            try await presentationConfig(demoTriggers),
            usingPurchaseController: true,
            timeouts: timeouts
        )
        #expect(try await harness.superwall.subscriptionStatus() == .unknown)
        let outcome = try await harness.superwall.register(placement: "held")
        #expect(errorCode(outcome) == .subscriptionStatusTimeout)
        let request = try #require(harness.delegate.event("paywallPresentationRequest"))
        #expect(request.delegateParameters["status"] == "timeout")
        #expect(request.delegateParameters["status_reason"] == "subscriptionStatus_timeout")
        #expect(harness.delegate.names.filter { $0 == "paywallPresentationRequest" }.count == 1)
    }

    /// The bound counts from the call: a placement queued behind another that is waiting for
    /// the status shares that wait instead of adding its own (so the first `register` after
    /// `configure` does not wait twice, once behind `session_start`).
    @Test func placementsQueuedBehindAStatusWaitShareItsBound() async throws {
        var timeouts = Superwall.Timeouts()
        timeouts.subscriptionStatus = .seconds(3)
        let harness = try await PresentationHarness.make(
            try await presentationConfig(demoTriggers),
            usingPurchaseController: true,
            timeouts: timeouts
        )
        let first = Task { try await harness.superwall.register(placement: "held") }
        let second = Task { try await harness.superwall.register(placement: "held") }
        #expect(errorCode(try await first.value) == .subscriptionStatusTimeout)
        let (secondOutcome, elapsed) = try await measuredOffThePool { try await second.value }
        #expect(errorCode(secondOutcome) == .subscriptionStatusTimeout)
        #expect(elapsed < .milliseconds(1500), "a second bound would be 3 s more")
    }

    @Test func aStatusSetWhileWaitingLetsThePresentationProceed() async throws {
        let harness = try await PresentationHarness.make(
            try await presentationConfig(demoTriggers),
            usingPurchaseController: true,
            timeouts: .statusTheTestSets
        )
        let register = Task { try await harness.superwall.register(placement: "held") }
        try await eventually { await harness.superwall.waitsForTheSubscriptionStatus }
        try await harness.superwall.setSubscriptionStatus(.active([Entitlement(id: "pro")]))
        guard case .skipped(.holdout) = try await register.value.ending else {
            Issue.record("expected the holdout once the status was known")
            return
        }
        #expect(harness.delegate.calls.contains("status UNKNOWN -> ACTIVE"))
        #expect(
            harness.delegate.event("subscriptionStatus_didChange")?.delegateParameters["active_entitlement_ids"]
                == "pro"
        )
    }

    @Test func oneActiveEntitlementlessStatusIsInactiveAndRepeatsAreNotChanges() async throws {
        let harness = try await PresentationHarness.make(
            try await presentationConfig(demoTriggers),
            usingPurchaseController: true
        )
        #expect(try await harness.superwall.setSubscriptionStatus(.active([])) == .inactive)
        #expect(try await harness.superwall.setSubscriptionStatus(.inactive) == .inactive)
        #expect(harness.delegate.calls == ["status UNKNOWN -> INACTIVE"])
        #expect(await harness.superwall.deviceAttributes()["subscriptionStatus"] == "INACTIVE")
    }

    @Test func onlyOnePaywallIsOnScreenAtATime() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig(demoTriggers))
        let first = harness.registerInBackground("nongated")
        let shown = try await harness.waitForPresentation()
        let second = try await harness.superwall.register(placement: "gated")
        #expect(errorCode(second) == .paywallAlreadyPresented)
        #expect(!second.featureGranted)
        #expect(
            harness.delegate.event("paywallPresentationRequest")?.delegateParameters["status_reason"]
                == "paywall_already_presented"
        )
        _ = try await harness.superwall.perform(.close, inSession: shown.sessionId)
        _ = try await first.value
        #expect(harness.presenter.presentations.count == 1)
    }

    /// Registers are serialised: two at once do not both present; the second runs after
    /// the first is on screen and finds it there.
    @Test func concurrentRegistersRunOneAfterAnother() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig(demoTriggers))
        async let first = harness.superwall.register(placement: "nongated")
        async let second = harness.superwall.register(placement: "gated")
        let shown = try await harness.waitForPresentation()
        try await eventually {
            harness.delegate.names.contains("paywallPresentationRequest") && harness.delegate.names.count >= 6
        }
        try await harness.superwall.dismiss()
        let outcomes = try await [first, second]
        #expect(outcomes.filter { errorCode($0) == .paywallAlreadyPresented }.count == 1)
        #expect(harness.presenter.presentations.map(\.sessionId) == [shown.sessionId])
    }

    @Test func superwallsOwnEventNamesCannotBeRegistered() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig(demoTriggers))
        await #expect(throws: SuperwallError.reservedPlacementName("paywall_open")) {
            try await harness.superwall.register(placement: "paywall_open")
        }
    }

    @Test func getPresentationResultTracksNoPlacementAndMapsEachOutcome() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig(demoTriggers))
        guard case .paywall(let experiment) = try await harness.superwall.presentationResult(for: "nongated") else {
            Issue.record("expected a paywall")
            return
        }
        #expect(experiment.variant.paywallIdentifier == "onboarding-annual")
        guard case .holdout = try await harness.superwall.presentationResult(for: "held") else {
            Issue.record("expected a holdout")
            return
        }
        #expect(try await harness.superwall.presentationResult(for: "nomatch") == .noAudienceMatch)
        #expect(try await harness.superwall.presentationResult(for: "unknown") == .placementNotFound)
        #expect(try await harness.superwall.presentationResult(for: "missing") == .paywallNotAvailable)
        let history = try #require(await harness.superwall.session?.store).placementNames()
        #expect(!history.contains("nongated"))
        #expect(!harness.delegate.names.contains("paywallPresentationRequest"))
        #expect(harness.presenter.presentations.isEmpty)
    }

    @Test func theFeatureGateFollowsSuperwallKitsTable() {
        func info(_ gating: Paywall.FeatureGating, _ reason: PaywallCloseReason) -> PaywallInfo {
            var info = samplePaywallInfo()
            info.featureGating = gating
            info.closeReason = reason
            return info
        }
        let experiment = Experiment(
            id: "e",
            groupId: "g",
            variant: Variant(id: "v", kind: .holdout, percentage: 100, paywallIdentifier: nil)
        )
        #expect(FeatureGate.isGranted(.skipped(.holdout(experiment))))
        #expect(FeatureGate.isGranted(.skipped(.noAudienceMatch)))
        #expect(FeatureGate.isGranted(.skipped(.placementNotFound)))
        for gating in [Paywall.FeatureGating.gated, .nonGated] {
            #expect(FeatureGate.isGranted(.dismissed(info(gating, .systemLogic), .purchased(productId: "p"))))
            #expect(FeatureGate.isGranted(.dismissed(info(gating, .systemLogic), .restored)))
            #expect(!FeatureGate.isGranted(.failed(.noPresenter)))
        }
        #expect(FeatureGate.isGranted(.dismissed(info(.nonGated, .manualClose), .declined)))
        #expect(FeatureGate.isGranted(.dismissed(info(.nonGated, .systemLogic), .declined)))
        #expect(!FeatureGate.isGranted(.dismissed(info(.nonGated, .forNextPaywall), .declined)))
        #expect(!FeatureGate.isGranted(.dismissed(info(.gated, .manualClose), .declined)))
    }

    @Test func theHostGoingAwayEndsThePresentation() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig(demoTriggers))
        let register = harness.registerInBackground("gated")
        _ = try await harness.waitForPresentation()
        try await harness.superwall.hostDisconnected()
        let outcome = try await register.value
        guard case .dismissed(_, .declined) = outcome.ending else {
            Issue.record("expected the paywall to close")
            return
        }
        #expect(await harness.superwall.openSessionId == nil)
    }
}

func errorCode(_ outcome: PresentationOutcome) -> PresentationError.Code? {
    if case .failed(let error) = outcome.ending { return error.code }
    return nil
}

func samplePaywallInfo() -> PaywallInfo {
    PaywallInfo(
        databaseId: "1",
        identifier: "p",
        name: "P",
        url: "https://example.com",
        cacheKey: "k",
        buildId: "b",
        experiment: nil,
        products: [],
        presentedByPlacementWithName: "x",
        presentedByPlacementWithId: nil,
        presentedByPlacementAt: nil,
        presentationSourceType: "register",
        isFreeTrialAvailable: false,
        featureGating: .nonGated,
        closeReason: .none,
        localNotifications: [],
        computedPropertyRequests: [],
        presentationStyle: PresentationStyle(kind: .modal, height: nil, width: nil, cornerRadius: nil),
        presentationDelayMs: 0,
        isScrollEnabled: true,
        presentationId: "id"
    )
}
