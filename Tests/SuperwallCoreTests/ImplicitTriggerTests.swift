import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

@Suite struct ImplicitTriggerTests {
    /// Closing a paywall when a `paywall_decline` campaign matches shows the decline paywall
    /// instead; closing that one does not chain into itself.
    @Test func aDeclinePaywallReplacesTheClosedOneOnceOnly() async throws {
        var triggers = actionTriggers
        triggers.append(
            placement("paywall_decline", [audience("d", rule: nil, variants: [treatment("vd", "summer-sale")])])
        )
        let (harness, first, register) = try await showing("nongated", triggers: triggers)
        _ = try await harness.superwall.perform(.close, inSession: first.sessionId)
        let second = try await harness.waitForPresentation(2)
        #expect(second.info.identifier == "summer-sale")
        #expect(second.info.presentedByPlacementWithName == "paywall_decline")
        _ = try await harness.superwall.perform(.close, inSession: second.sessionId)
        let outcome = try await register.value
        await harness.superwall.awaitPresentationQueue()
        #expect(harness.presenter.presentations.count == 2)
        guard case .dismissed(let info, .declined) = outcome.ending else {
            Issue.record("expected the decline paywall to end the flow")
            return
        }
        #expect(info.identifier == "summer-sale")
        #expect(info.closeReason == .manualClose)
        #expect(harness.delegate.names.filter { $0 == "paywall_decline" }.count == 2)
    }

    /// A paywall a custom placement presented closes to the `paywall_decline` campaign's
    /// paywall: the close and the implicit trigger's loop protection are decided by one rule,
    /// so the close cannot wait for a replacement that the trigger refuses.
    @Test func closingACustomPlacementsPaywallShowsTheDeclinePaywall() async throws {
        var triggers = actionTriggers
        triggers.append(
            placement("paywall_decline", [audience("d", rule: nil, variants: [treatment("vd", "onboarding-annual")])])
        )
        let (harness, first, register) = try await showing("gated", triggers: triggers)
        _ = try await harness.superwall.perform(
            .customPlacement(name: "summer_offer", params: ["offer": "summer"]),
            inSession: first.sessionId
        )
        let offer = try await harness.waitForPresentation(2)
        #expect(offer.info.identifier == "summer-sale")
        _ = try await harness.superwall.perform(.close, inSession: offer.sessionId)
        let decline = try await harness.waitForPresentation(3)
        #expect(decline.info.identifier == "onboarding-annual")
        #expect(decline.info.presentedByPlacementWithName == "paywall_decline")
        _ = try await harness.superwall.perform(.close, inSession: decline.sessionId)
        let outcome = try await register.value
        guard case .dismissed(let info, .declined) = outcome.ending else {
            Issue.record("expected the decline paywall's close to end the register")
            return
        }
        #expect(info.identifier == "onboarding-annual")
        #expect(!outcome.featureGranted)
        #expect(harness.presenter.dismissed.map(\.closeReason) == [.forNextPaywall, .forNextPaywall, .manualClose])
    }

    /// Launch events present through their own campaigns, with no `register`, and give way
    /// to a paywall already on screen.
    @Test func sessionStartPresentsThroughItsCampaign() async throws {
        let triggers = [
            placement("session_start", [audience("s", rule: nil, variants: [treatment("vs", "onboarding-annual")])])
        ]
        let presenter = FakePresenter()
        let delegate = PaywallDelegate()
        let superwall = Superwall(
            clock: FakeClock(),
            random: CountingRandomSource(),
            delegate: delegate,
            presenter: presenter
        )
        _ = try await superwall.configure(
            apiKey: "pk_test",
            options: Superwall.ConfigureOptions(
                configSource: TextConfigSource(body: try await presentationConfig(triggers)),
                dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent(
                    "implicit-\(UUID().uuidString)"
                ).path
            )
        )
        try await eventually { presenter.presentations.count == 1 }
        #expect(presenter.presentations.first?.info.presentedByPlacementWithName == "session_start")
        #expect(presenter.presentations.first?.info.presentationSourceType == "implicit")
        await superwall.awaitPresentationQueue()
        try await superwall.dismiss()
        #expect(delegate.names.contains("paywall_close"))
    }
}
