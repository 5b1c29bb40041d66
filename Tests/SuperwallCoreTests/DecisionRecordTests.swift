import Foundation
import Synchronization
import Testing

@testable import SuperwallCore

/// The decision record: each presentation's gates in the order they ran, with what they read
/// and how long they waited.
@Suite struct DecisionRecordTests {
    private func gate(
        _ name: PresentationDecision.Gate.Name,
        of decision: PresentationDecision?
    ) throws
        -> PresentationDecision.Gate
    {
        try #require(decision?.gates.first { $0.name == name }, "no \(name) gate in \(String(describing: decision))")
    }

    @Test func aPresentedPaywallsRecordRunsEveryGateInThePipelinesOrder() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig(demoTriggers))
        let receiver = DecisionReceiver()
        let register = Task { try await harness.superwall.register(placement: "nongated", decision: receiver) }
        _ = try await harness.waitForPresentation()
        try await harness.superwall.dismiss()
        _ = try await register.value
        let decision = try #require(receiver.decision)
        #expect(
            decision.gates.map(\.name) == [
                .config, .subscriptionStatus, .placement, .audiences, .experiment, .paywall, .presenter, .presentation,
            ]
        )
        #expect(decision.gates.filter { !$0.passed }.isEmpty)
        #expect(decision.outcome == "presented" && decision.reason == nil)
        #expect(decision.call == "register" && decision.placement == "nongated")
        let experiment = try gate(.experiment, of: decision)
        #expect(experiment.read["variantId"] == "v1" && experiment.read["paywallIdentifier"] == "onboarding-annual")
        let presentation = try gate(.presentation, of: decision)
        #expect(presentation.waited != nil)
        #expect(decision.audiences?.count == 1, "a decision carries the rules' values")
    }

    @Test func aRegisterThatWaitedForTheStatusSaysSoWithTheTimeWaited() async throws {
        let harness = try await PresentationHarness.make(
            try await presentationConfig(demoTriggers),
            usingPurchaseController: true,
            timeouts: .statusTheTestSets
        )
        let receiver = DecisionReceiver()
        let started = ContinuousClock.now
        let register = Task { try await harness.superwall.register(placement: "held", decision: receiver) }
        try await eventually { await harness.superwall.waitsForTheSubscriptionStatus }
        try await harness.superwall.setSubscriptionStatus(.inactive)
        _ = try await register.value
        let elapsed = ContinuousClock.now - started
        let status = try gate(.subscriptionStatus, of: receiver.decision)
        #expect(status.passed)
        #expect(status.read["status"] == "UNKNOWN" && status.read["statusAfterWait"] == "INACTIVE")
        // The wait starts when the pipeline reaches the gate, which a loaded machine delays.
        let waited = try #require(status.waited)
        #expect(waited > .zero && waited <= elapsed)
        #expect(status.detail.contains("then INACTIVE: the host set it while the call waited"), "\(status.detail)")
        let experiment = try gate(.experiment, of: receiver.decision)
        #expect(!experiment.passed && experiment.read["variantType"] == "HOLDOUT")
        #expect(receiver.decision?.outcome == "skipped" && receiver.decision?.reason == "holdout")
    }

    @Test func aStatusThatNeverCameSaysTheWaitGaveUp() async throws {
        var timeouts = Superwall.Timeouts()
        timeouts.subscriptionStatus = .milliseconds(100)
        let harness = try await PresentationHarness.make(
            try await presentationConfig(demoTriggers),
            usingPurchaseController: true,
            timeouts: timeouts
        )
        let receiver = DecisionReceiver()
        _ = try await harness.superwall.register(placement: "held", decision: receiver)
        let status = try gate(.subscriptionStatus, of: receiver.decision)
        #expect(!status.passed)
        // The bound counts from the call; the gate's wait, from when the pipeline reached it.
        let waited = try #require(status.waited)
        #expect(waited > .zero)
        #expect(status.detail.contains("the host did not set it within 100 ms"), "\(status.detail)")
        #expect(receiver.decision?.gates.last?.name == .subscriptionStatus)
        #expect(receiver.decision?.outcome == "failed" && receiver.decision?.reason == "subscriptionStatusTimeout")
    }

    @Test func aRegisterThatMetAPaywallOnScreenNamesIt() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig(demoTriggers))
        let first = harness.registerInBackground("nongated")
        let shown = try await harness.waitForPresentation()
        let receiver = DecisionReceiver()
        _ = try await harness.superwall.register(placement: "gated", decision: receiver)
        let onScreen = try gate(.paywallOnScreen, of: receiver.decision)
        #expect(!onScreen.passed)
        #expect(onScreen.read["paywallIdentifier"] == "onboarding-annual")
        #expect(onScreen.read["sessionId"] == .string(shown.sessionId))
        #expect(receiver.decision?.gates.count == 1)
        #expect(receiver.decision?.reason == "paywallAlreadyPresented")
        try await harness.superwall.dismiss()
        _ = try await first.value
    }

    @Test func aMistypedPlacementNamesTheNearestKnownPlacement() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig(demoTriggers))
        let receiver = DecisionReceiver()
        _ = try await harness.superwall.register(placement: "gatd", decision: receiver)
        let placement = try gate(.placement, of: receiver.decision)
        #expect(!placement.passed)
        #expect(placement.read["nearestPlacement"] == "gated")
        #expect(placement.detail.hasSuffix("did you mean gated?"))
        #expect(receiver.decision?.reason == "placementNotFound")
    }

    @Test func aDecisionAskedForCarriesTheValuesItsRulesRead() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig(demoTriggers))
        let receiver = DecisionReceiver()
        let result = try await harness.superwall.presentationResult(for: "nomatch", decision: receiver)
        #expect(result == .noAudienceMatch)
        let decision = try #require(receiver.decision)
        #expect(decision.call == "getPresentationResult")
        let audiences = try #require(decision.audiences)
        #expect(audiences.map(\.experimentId) == ["e4"])
        guard case .evaluated(let rule) = audiences[0].rule else {
            Issue.record("the audience's rule was not evaluated: \(audiences[0].rule)")
            return
        }
        #expect(!rule.matches)
        let gate = try gate(.audiences, of: decision)
        #expect(!gate.passed && gate.detail.contains("experiment e4 rule not true"))
    }

    @Test func theExperimentGateSaysHowTheUserCameByTheVariant() async throws {
        let config = try await presentationConfig(demoTriggers)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("origins-\(UUID().uuidString)")
            .path
        func assignment(of placement: String, _ harness: PresentationHarness) async throws -> PresentationDecision.Gate
        {
            let receiver = DecisionReceiver()
            _ = try await harness.superwall.presentationResult(for: placement, decision: receiver)
            return try gate(.experiment, of: receiver.decision)
        }
        let first = try await PresentationHarness.make(config, directory: directory)
        #expect(try await assignment(of: "held", first).read["assignment"] == "drawn")
        _ = try await first.superwall.overrideAssignment(experimentId: "e1", variantId: "v1")
        let overridden = try await assignment(of: "nongated", first)
        #expect(overridden.read["assignment"] == "override" && overridden.read["confirmed"] == true)
        #expect(overridden.detail.hasSuffix("set by debug/overrideAssignment"))
        await first.superwall.endSession()
        let second = try await PresentationHarness.make(config, directory: directory)
        let kept = try await assignment(of: "held", second)
        #expect(kept.read["assignment"] == "sticky", "\(kept.detail)")
        #expect(kept.detail.contains("kept from an earlier session"))
    }

    @Test func aSessionThatRecordsDecisionsKeepsTheLastOnesOldestFirst() async throws {
        let harness = try await PresentationHarness.make(
            try await presentationConfig(demoTriggers),
            recordDecisions: true
        )
        #expect(harness.superwall.recordsEveryDecision)
        for index in 0..<(PresentationDecision.keptRecently + 5) {
            _ = try await harness.superwall.register(placement: index.isMultiple(of: 2) ? "nomatch" : "held")
        }
        _ = try? await harness.superwall.getPaywall(placement: "missing")
        let recent = await harness.superwall.recentDecisions()
        #expect(recent.count == PresentationDecision.keptRecently)
        #expect(recent.map(\.sequence) == Array((7...(PresentationDecision.keptRecently + 6))))
        #expect(recent.last?.call == "getPaywall" && recent.last?.reason == "paywallNotFound")
        let paywall = try gate(.paywall, of: recent.last)
        #expect(!paywall.passed)
        #expect(recent.filter { $0.audiences == nil }.isEmpty, "each has its rules' values")
        #expect(await harness.superwall.recentDecisions(limit: 2).map(\.placement) == ["nomatch", "missing"])
    }

    @Test func withoutRecordingOnlyTheDecisionsAskedForAreKept() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig(demoTriggers))
        #expect(!harness.superwall.recordsEveryDecision)
        _ = try await harness.superwall.register(placement: "nomatch")
        _ = try await harness.superwall.register(placement: "held", decision: DecisionReceiver())
        _ = try await harness.superwall.presentationResult(for: "nomatch")
        #expect(await harness.superwall.recentDecisions().map(\.placement) == ["held"])
    }

    @Test func theDecisionReadsAsOneLinePerGateThenTheOutcome() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig(demoTriggers))
        let receiver = DecisionReceiver()
        _ = try await harness.superwall.register(placement: "nomatch", decision: receiver)
        #expect(
            receiver.decision?.lines == [
                "register nomatch: config: already loaded",
                "register nomatch: subscriptionStatus: INACTIVE, known at once",
                "register nomatch: placement: found",
                "register nomatch: audiences: no audience matched (experiment e4 rule not true)",
                "register nomatch: outcome: skipped (noAudienceMatch)",
            ]
        )
    }
}
