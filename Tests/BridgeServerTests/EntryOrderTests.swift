import Executors
import Testing

@testable import BridgeServer

/// The order in which the client's requests enter the SDK (see `EntryOrder`).
@Suite struct EntryOrderTests {
    @Test func aRequestWithNothingToWaitForAnnouncesNothing() {
        let order = EntryOrder()
        let direct = order.arrive(.direct)
        #expect(direct.earlier.isEmpty)
        #expect(direct.own == nil)
    }

    /// An override read while a decision was on its way in, then a decision read once that one
    /// was in: the second decision must not leave the reader before the override goes on.
    @Test func aRequestThatWaitedHoldsTheRequestsReadAfterItUntilItGoesOn() throws {
        let order = EntryOrder()
        let firstDecision = try #require(order.arrive(.decision).own)
        let override = order.arrive(.direct)
        #expect(override.earlier.map(ObjectIdentifier.init) == [ObjectIdentifier(firstDecision)])
        let overridesGate = try #require(override.own, "a direct request that must wait announces a gate")

        order.entered(firstDecision)
        let secondDecision = order.arrive(.decision)
        #expect(secondDecision.earlier.map(ObjectIdentifier.init) == [ObjectIdentifier(overridesGate)])

        order.entered(overridesGate)
        let secondDecisionsGate = try #require(secondDecision.own)
        #expect(order.arrive(.direct).earlier.map(ObjectIdentifier.init) == [ObjectIdentifier(secondDecisionsGate)])
    }

    @Test func aDecisionsOpenerIsItsOwnGateWhateverWaitsBeforeIt() throws {
        let order = EntryOrder()
        let configure = try #require(order.arrive(.configure).own)
        _ = order.arrive(.direct)
        let decision = try #require(order.arrive(.decision).own)
        let opener = try #require(order.opener(for: .decision))
        opener()
        let waitedFor = Set(order.arrive(.direct).earlier.map(ObjectIdentifier.init))
        #expect(!waitedFor.contains(ObjectIdentifier(decision)))
        #expect(waitedFor.contains(ObjectIdentifier(configure)))
    }
}
