import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

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
