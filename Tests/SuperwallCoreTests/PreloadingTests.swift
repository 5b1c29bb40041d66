import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

private var preloadTriggers: [[String: Any]] {
    [
        placement("gated", [audience("e1", rule: nil, variants: [treatment("v1", "pro-workouts-gated")])]),
        placement("onboarding", [audience("e2", rule: nil, variants: [treatment("v2", "onboarding-annual")])]),
        // A rule the user does not meet: its IF_TRUE audience keeps the experiment from preloading.
        placement(
            "pro_only",
            [audience("e3", rule: "user.plan == \"pro\"", variants: [treatment("v3", "onboarding-monthly-trial")])]
        ),
        placement(
            "never",
            [audience("e4", rule: nil, variants: [treatment("v4", "limit-reached-promo-code")], preload: "NEVER")]
        ),
        placement("held_out", [audience("e5", rule: nil, variants: [holdout("h5")])]),
    ]
}

private func preloadConfig(_ edit: (inout [String: Any]) -> Void = { _ in }) async throws -> String {
    try edited(try await presentationConfig(preloadTriggers)) { object in
        object["disable_preload"] = ["all": false, "triggers": []]
        edit(&object)
    }
}

@Suite struct PreloadingTests {
    @Test func preloadAllPaywallsLoadsTheTreatmentPaywallsAnAudienceCouldReachAndWarmsTheHost() async throws {
        let presenter = FakePresenter(canPreload: true)
        let harness = try await PresentationHarness.make(try await preloadConfig(), presenter: presenter)
        let chosen = try await harness.superwall.preloadAllPaywalls()
        #expect(Set(chosen) == ["pro-workouts-gated", "onboarding-annual"])
        #expect(Set(presenter.preloads.map(\.paywall)) == Set(chosen))
        let page = try #require(presenter.preloads.first { $0.paywall == "pro-workouts-gated" }?.page)
        #expect(page.load?.url == "https://paywalls.pockettrainer.example/pro-workouts-gated")
        #expect(
            harness.delegate.names == [
                "paywallPreload_start", "paywallResponseLoad_start", "paywallResponseLoad_complete",
                "paywallResponseLoad_start", "paywallResponseLoad_complete", "paywallPreload_complete",
            ]
        )
        #expect(harness.delegate.event("paywallPreload_start")?.delegateParameters["paywall_count"] == 2)
        #expect(
            harness.delegate.event("paywallResponseLoad_start")?.delegateParameters["is_triggered_from_event"] == false
        )
    }

    @Test func aSecondPreloadFindsEverythingLoadedAndAsksTheHostNothing() async throws {
        let presenter = FakePresenter(canPreload: true)
        let harness = try await PresentationHarness.make(try await preloadConfig(), presenter: presenter)
        _ = try await harness.superwall.preloadAllPaywalls()
        harness.delegate.clear()
        _ = try await harness.superwall.preloadAllPaywalls()
        #expect(presenter.preloads.count == 2)
        #expect(harness.delegate.names == ["paywallPreload_start", "paywallPreload_complete"])
    }

    @Test func preloadPaywallsTakesOnlyTheNamedPlacements() async throws {
        let presenter = FakePresenter(canPreload: true)
        let harness = try await PresentationHarness.make(try await preloadConfig(), presenter: presenter)
        #expect(
            try await harness.superwall.preloadPaywalls(forPlacements: ["onboarding", "never", "nope"]) == [
                "onboarding-annual"
            ]
        )
        #expect(presenter.preloads.map(\.paywall) == ["onboarding-annual"])
    }

    @Test func theConfigsDisablePreloadTurnsPlacementsOrEverythingOff() async throws {
        let some = try await PresentationHarness.make(
            try await preloadConfig { $0["disable_preload"] = ["all": false, "triggers": ["gated"]] }
        )
        #expect(try await some.superwall.preloadAllPaywalls() == ["onboarding-annual"])
        let all = try await PresentationHarness.make(
            try await preloadConfig { $0["disable_preload"] = ["all": true, "triggers": []] }
        )
        #expect(try await all.superwall.preloadAllPaywalls() == [])
        #expect(all.delegate.event("paywallPreload_complete")?.delegateParameters["paywall_count"] == 0)
    }

    @Test func anIfTrueAudienceThatNowAdmitsTheUserPreloadsItsPaywall() async throws {
        let harness = try await PresentationHarness.make(try await preloadConfig())
        _ = try await harness.superwall.setUserAttributes(["plan": "pro"])
        #expect(
            try await harness.superwall.preloadPaywalls(forPlacements: ["pro_only"]) == ["onboarding-monthly-trial"]
        )
    }

    @Test func aHostWithoutTheCapabilityIsNotAskedButThePaywallsStillLoad() async throws {
        let presenter = FakePresenter(canPreload: false)
        let harness = try await PresentationHarness.make(try await preloadConfig(), presenter: presenter)
        #expect(try await harness.superwall.preloadAllPaywalls().count == 2)
        #expect(presenter.preloads.isEmpty)
        #expect(harness.delegate.names.filter { $0 == "paywallResponseLoad_complete" }.count == 2)
    }

    @Test func aHostThatNeverAnswersThePreloadHoldsItOnlyUntilTheDeadline() async throws {
        var timeouts = Superwall.Timeouts()
        timeouts.pageEffect = .milliseconds(50)
        let presenter = FakePresenter(canPreload: true, preloadBehavior: .hang)
        let harness = try await PresentationHarness.make(
            try await preloadConfig(),
            presenter: presenter,
            timeouts: timeouts
        )
        let (preloaded, elapsed) = try await measuredOffThePool {
            try await harness.superwall.preloadAllPaywalls().count
        }
        #expect(preloaded == 2)
        #expect(elapsed < .seconds(20))
        #expect(harness.delegate.names.last == "paywallPreload_complete")
    }

    @Test func withShouldPreloadTheConfigIsFollowedByAPreloadAndWithoutItNothingIs() async throws {
        let presenter = FakePresenter(canPreload: true)
        _ = try await PresentationHarness.make(try await preloadConfig(), presenter: presenter, shouldPreload: true)
        try await eventually { presenter.preloads.count == 2 }
        let quiet = FakePresenter(canPreload: true)
        let off = try await PresentationHarness.make(try await preloadConfig(), presenter: quiet, shouldPreload: false)
        _ = try await off.superwall.register(placement: "held_out", params: [:], handler: nil)
        #expect(quiet.preloads.isEmpty)
        #expect(!off.delegate.names.contains("paywallPreload_start"))
    }

    @Test func aPlacementsFirstLoadOfAPreloadedPaywallStillTracksItsLoadAndItsSecondDoesNot() async throws {
        let harness = try await PresentationHarness.make(try await preloadConfig())
        _ = try await harness.superwall.preloadAllPaywalls()
        harness.delegate.clear()
        _ = try await harness.superwall.presentationResult(for: "gated", params: [:])
        #expect(
            harness.delegate.names.filter { $0.hasPrefix("paywallResponseLoad") } == [
                "paywallResponseLoad_start", "paywallResponseLoad_complete",
            ]
        )
        #expect(
            harness.delegate.event("paywallResponseLoad_start")?.delegateParameters["is_triggered_from_event"] == true
        )
        harness.delegate.clear()
        _ = try await harness.superwall.presentationResult(for: "gated", params: [:])
        #expect(harness.delegate.names.filter { $0.hasPrefix("paywallResponseLoad") }.isEmpty)
    }

    @Test func aRefreshPreloadsOnlyTheNewAndChangedPaywalls() async throws {
        let presenter = FakePresenter(canPreload: true)
        let source = MutableConfigSource(try await preloadConfig())
        let harness = try await PresentationHarness.make("", presenter: presenter, source: source, shouldPreload: true)
        try await eventually { presenter.preloads.count == 2 }
        source.body = try await preloadConfig { object in
            editPaywalls(&object) { paywall in
                guard paywall["identifier"] as? String == "onboarding-annual" else { return paywall }
                var changed = paywall
                changed["cache_key"] = "changed"
                changed["name"] = "Onboarding, again"
                return changed
            }
        }
        _ = try await harness.superwall.refreshConfiguration()
        try await eventually { presenter.preloads.count == 3 }
        #expect(presenter.preloads.last?.paywall == "onboarding-annual")
        _ = try await harness.superwall.preloadAllPaywalls()
        #expect(presenter.preloads.count == 3)
    }

    @Test func thePaywallOnScreenIsNotPreloadedUnderTheUser() async throws {
        let presenter = FakePresenter(canPreload: true)
        let harness = try await PresentationHarness.make(try await preloadConfig(), presenter: presenter)
        let register = harness.registerInBackground("gated")
        _ = try await harness.waitForPresentation()
        #expect(try await harness.superwall.preloadAllPaywalls() == ["onboarding-annual"])
        try await harness.superwall.dismiss()
        _ = try await register.value
    }

    @Test func beforeConfigureAPreloadIsNotConfigured() async throws {
        await #expect(throws: SuperwallError.notConfigured) { try await Superwall().preloadAllPaywalls() }
    }
}
