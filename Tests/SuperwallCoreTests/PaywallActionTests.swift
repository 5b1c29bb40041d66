import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

private var actionTriggers: [[String: Any]] {
    [
        placement("nongated", [audience("e1", rule: nil, variants: [treatment("v1", "onboarding-annual")])]),
        placement("gated", [audience("e2", rule: nil, variants: [treatment("v2", "pro-workouts-gated")])]),
        placement(
            "summer_offer",
            [audience("e3", rule: #"params.offer == "summer""#, variants: [treatment("v3", "summer-sale")])]
        ),
    ]
}

/// A harness with one paywall on screen for `placement`.
private func showing(
    _ placement: String,
    triggers: [[String: Any]] = actionTriggers,
    handler: RecordingHandler = RecordingHandler(),
    timeouts: Superwall.Timeouts = Superwall.Timeouts()
) async throws -> (PresentationHarness, PaywallPresentation, Task<PresentationOutcome, any Error>) {
    let harness = await PresentationHarness.make(try await presentationConfig(triggers), timeouts: timeouts)
    let register = harness.registerInBackground(placement, handler: handler)
    return (harness, try await harness.waitForPresentation(), register)
}

@Suite struct PresentedProductsTests {
    /// `paywall/present` carried bare products even after the host described them.
    @Test func thePresentedPaywallsProductsCarryTheHostsStoreDetails() async throws {
        let annual = StoreProductDetails(
            productIdentifier: "com.pockettrainer.pro.annual",
            price: 59.99,
            currencyCode: "USD",
            localizedPrice: "$59.99",
            period: .init(unit: .year)
        )
        let harness = await PresentationHarness.make(
            try await presentationConfig(actionTriggers),
            storeProducts: [annual]
        )
        let register = harness.registerInBackground("gated")
        let shown = try await harness.waitForPresentation()
        let product = try #require(
            shown.paywall.products.first { $0.storeProduct.productIdentifier == "com.pockettrainer.pro.annual" }
        )
        #expect(product.storeDetails == annual)
        #expect(shown.info.products.first { $0.id == product.id }?.storeDetails == annual)
        await harness.superwall.dismiss()
        _ = try await register.value
    }
}

@Suite struct CustomCallbackTests {
    @Test func theHandlersAnswerIsReturnedToThePaywall() async throws {
        let handler = RecordingHandler(handlesCustomCallbacks: true) { callback in
            CustomCallbackResult(
                status: .success,
                data: ["echo": callback.variables["code"] ?? .null, "name": .string(callback.name)]
            )
        }
        let (harness, shown, register) = try await showing("nongated", handler: handler)
        let result = try await harness.superwall.perform(
            .requestCallback(CustomCallback(name: "validate", variables: ["code": "SUMMER"], isBlocking: true)),
            inSession: shown.sessionId
        )
        #expect(
            result == .callback(CustomCallbackResult(status: .success, data: ["echo": "SUMMER", "name": "validate"]))
        )
        await harness.superwall.dismiss()
        _ = try await register.value
    }

    @Test func aHandlerFailureIsPassedOn() async throws {
        let handler = RecordingHandler(handlesCustomCallbacks: true) { _ in
            CustomCallbackResult(status: .failure, data: ["reason": "nope"])
        }
        let (harness, shown, _) = try await showing("nongated", handler: handler)
        let result = try await harness.superwall.perform(
            .requestCallback(CustomCallback(name: "x", variables: [:], isBlocking: false)),
            inSession: shown.sessionId
        )
        #expect(result == .callback(CustomCallbackResult(status: .failure, data: ["reason": "nope"])))
        await harness.superwall.dismiss()
    }

    @Test func withoutACustomCallbackHandlerTheAnswerIsFailureAtOnce() async throws {
        let (harness, shown, _) = try await showing(
            "nongated",
            handler: RecordingHandler(handlesCustomCallbacks: false)
        )
        let result = try await harness.superwall.perform(
            .requestCallback(CustomCallback(name: "x", variables: [:], isBlocking: true)),
            inSession: shown.sessionId
        )
        #expect(result?.callbackResult?.status == .failure)
        await harness.superwall.dismiss()
    }

    @Test func anUnansweredCallbackFailsAtItsDeadline() async throws {
        var timeouts = Superwall.Timeouts()
        timeouts.customCallback = .milliseconds(100)
        let handler = RecordingHandler(handlesCustomCallbacks: true) { _ in
            try? await Task.sleep(for: .seconds(3600))
            return CustomCallbackResult(status: .success)
        }
        let (harness, shown, _) = try await showing("nongated", handler: handler, timeouts: timeouts)
        let (result, elapsed) = try await measuredOffThePool {
            try await harness.superwall.perform(
                .requestCallback(CustomCallback(name: "slow", variables: [:], isBlocking: true)),
                inSession: shown.sessionId
            )
        }
        #expect(result?.callbackResult?.status == .failure)
        #expect(result?.callbackResult?.data?["error"]?.stringValue?.contains("not answered") == true)
        #expect(elapsed < .seconds(20), "the handler would answer after an hour")
        // The session goes on.
        #expect(await harness.superwall.openSessionId == shown.sessionId)
        await harness.superwall.dismiss()
    }
}

@Suite struct PaywallActionTests {
    @Test func customActionsReachTheDelegate() async throws {
        let (harness, shown, _) = try await showing("nongated")
        _ = try await harness.superwall.perform(.custom(name: "show_terms"), inSession: shown.sessionId)
        _ = try await harness.superwall.perform(.openURL("https://example.com/terms"), inSession: shown.sessionId)
        #expect(harness.delegate.calls.suffix(2) == ["custom show_terms", "openURL https://example.com/terms"])
        #expect(await harness.superwall.openSessionId == shown.sessionId)
        await harness.superwall.dismiss()
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
        await harness.superwall.dismiss()
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
        await harness.superwall.dismiss()
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
        await harness.superwall.dismiss()
    }

    @Test func anActionForASessionNotOnScreenIsRefused() async throws {
        let (harness, shown, register) = try await showing("nongated")
        await #expect(throws: SuperwallError.paywallSessionNotFound("nope")) {
            try await harness.superwall.perform(.close, inSession: "nope")
        }
        await harness.superwall.dismiss()
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

@Suite struct CustomPlacementFloodTests {
    /// One page message of 50 custom placements naming a campaign gave 51 presentations: each
    /// was offered while the page's paywall was up, and each replaced the one before.
    @Test func aPagesCustomPlacementsReplaceItsPaywallOnceAndNoMoreOnceItIsGone() async throws {
        let (harness, shown, _) = try await showing("gated")
        let placement: JSON = ["event_name": "custom_placement", "name": "summer_offer", "params": ["offer": "summer"]]
        try await harness.superwall.handlePageMessage(
            ["version": 1, "payload": ["events": .array(Array(repeating: placement, count: 50))]],
            inSession: shown.sessionId
        )
        _ = try await harness.waitForPresentation(2)
        await harness.superwall.awaitPresentationQueue()
        #expect(harness.presenter.presentations.count == 2)
        #expect(harness.delegate.names.filter { $0 == "summer_offer" }.count == 50)
    }

    /// A page could fire `paywall_open` and the rest of Superwall's own events by name.
    @Test func aCustomPlacementWithOneOfSuperwallsOwnNamesIsIgnored() async throws {
        let (harness, first, _) = try await showing("gated")
        let before = harness.delegate.names.filter { $0 == "paywall_open" }.count
        _ = try await harness.superwall.perform(
            .customPlacement(name: "paywall_open", params: [:]),
            inSession: first.sessionId
        )
        await harness.superwall.awaitPresentationQueue()
        #expect(harness.delegate.names.filter { $0 == "paywall_open" }.count == before)
        #expect(harness.presenter.presentations.count == 1)
    }
}

@Suite struct SlowRuleConfigTests {
    @Test func aConfigWhoseRulesCallMatchesIsEvaluatedOffTheReader() async throws {
        let plain = await PresentationHarness.make(try await presentationConfig(actionTriggers))
        #expect(!plain.superwall.evaluatesSlowRules)
        var triggers = actionTriggers
        triggers.append(
            placement(
                "search",
                [audience("e9", rule: #"user.name.matches("^A")"#, variants: [treatment("v9", "summer-sale")])]
            )
        )
        let slow = await PresentationHarness.make(try await presentationConfig(triggers))
        #expect(slow.superwall.evaluatesSlowRules)
    }
}

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

    /// A paywall a custom placement presented used to ignore its close while a
    /// `paywall_decline` campaign matched: the close expected the decline paywall to replace
    /// it, and the implicit trigger refused it as loop-protected. One rule decides both.
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
        _ = await superwall.configure(
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
        await superwall.dismiss()
        #expect(delegate.names.contains("paywall_close"))
    }
}
