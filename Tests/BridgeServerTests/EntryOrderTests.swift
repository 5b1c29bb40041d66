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

    /// An override read while a `configure` was on its way in, then another `configure` read
    /// once that one was in: the second must not leave the reader before the override goes on.
    @Test func aRequestThatWaitedHoldsTheRequestsReadAfterItUntilItGoesOn() throws {
        let order = EntryOrder()
        let firstConfigure = try #require(order.arrive(.configure).own)
        let override = order.arrive(.direct)
        #expect(override.earlier.map(ObjectIdentifier.init) == [ObjectIdentifier(firstConfigure)])
        let overridesGate = try #require(override.own, "a direct request that must wait announces a gate")

        order.entered(firstConfigure)
        let secondConfigure = order.arrive(.configure)
        #expect(secondConfigure.earlier.map(ObjectIdentifier.init) == [ObjectIdentifier(overridesGate)])

        order.entered(overridesGate)
        let secondConfiguresGate = try #require(secondConfigure.own)
        #expect(order.arrive(.direct).earlier.map(ObjectIdentifier.init) == [ObjectIdentifier(secondConfiguresGate)])
    }

    @Test func aConfiguresOpenerIsItsOwnGateWhateverWaitsAfterIt() throws {
        let order = EntryOrder()
        let configure = try #require(order.arrive(.configure).own)
        let direct = try #require(order.arrive(.direct).own)
        let opener = try #require(order.opener(for: .configure))
        opener()
        let waitedFor = Set(order.arrive(.direct).earlier.map(ObjectIdentifier.init))
        #expect(!waitedFor.contains(ObjectIdentifier(configure)))
        #expect(waitedFor.contains(ObjectIdentifier(direct)))
    }
}
