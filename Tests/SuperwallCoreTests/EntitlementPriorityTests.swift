import Foundation
import Testing

@testable import SuperwallCore

/// SuperwallKit's priority merge: one test per rule, each in both orders.
@Suite struct EntitlementPriorityTests {
    /// `winner` takes priority over `loser` whichever comes first, and the merge keeps it.
    private func expectPriority(
        _ winner: Entitlement,
        over loser: Entitlement,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(winner.takesPriority(over: loser), sourceLocation: sourceLocation)
        #expect(!loser.takesPriority(over: winner), sourceLocation: sourceLocation)
        #expect([loser, winner].mergedByPriority() == [winner], sourceLocation: sourceLocation)
        #expect([winner, loser].mergedByPriority() == [winner], sourceLocation: sourceLocation)
    }

    @Test func activeBeatsInactive() {
        var inactive = bare(active: false)
        inactive.latestProductId = "annual"
        inactive.isLifetime = true
        expectPriority(bare(), over: inactive)
    }

    @Test func aTransactionHistoryBeatsNone() {
        var bought = bare()
        bought.latestProductId = "annual"
        var expiring = bare()
        expiring.expiresAt = later
        expectPriority(bought, over: expiring)
    }

    @Test func theSuperwallStoreCountsAsHistory() {
        var superwall = bare()
        superwall.store = .superwall
        expectPriority(superwall, over: bare())
    }

    @Test func lifetimeBeatsNotLifetime() {
        var lifetime = bare()
        lifetime.isLifetime = true
        var expiring = bare()
        expiring.expiresAt = later
        expectPriority(lifetime, over: expiring)
    }

    @Test func notRevokedBeatsRevoked() {
        var revoked = bare()
        revoked.state = .revoked
        revoked.expiresAt = later
        expectPriority(bare(), over: revoked)
    }

    @Test func theLaterExpiryWins() {
        var sooner = bare()
        sooner.expiresAt = now
        var longer = bare()
        longer.expiresAt = later
        expectPriority(longer, over: sooner)
    }

    @Test func anExpiryBeatsNone() {
        var expiring = bare()
        expiring.expiresAt = now
        var renewing = bare()
        renewing.willRenew = true
        expectPriority(expiring, over: renewing)
    }

    @Test func knowingWhetherItRenewsBeatsNotKnowing() {
        var known = bare()
        known.willRenew = false
        var stated = bare()
        stated.state = .subscribed
        expectPriority(known, over: stated)
    }

    @Test func renewingBeatsNotRenewing() {
        var renewing = bare()
        renewing.willRenew = true
        var lapsing = bare()
        lapsing.willRenew = false
        expectPriority(renewing, over: lapsing)
    }

    @Test func aStateBeatsNone() {
        var stated = bare()
        stated.state = .inGracePeriod
        expectPriority(stated, over: bare())
    }

    @Test func notInGraceBeatsInGrace() {
        var subscribed = bare()
        subscribed.state = .subscribed
        var grace = bare()
        grace.state = .inGracePeriod
        expectPriority(subscribed, over: grace)
    }

    @Test func aTieKeepsTheExistingOne() {
        var first = bare()
        first.offerType = .trial
        var second = bare()
        second.offerType = .code
        #expect(!first.takesPriority(over: second))
        #expect(!second.takesPriority(over: first))
        #expect([first, second].mergedByPriority().first?.offerType == .trial)
        #expect([second, first].mergedByPriority().first?.offerType == .code)
    }

    @Test func theWinnerCarriesEveryProductIdAndEachIdIsKeptOnceInIdOrder() {
        var loser = bare(active: false)
        loser.productIds = ["monthly"]
        var winner = bare()
        winner.productIds = ["annual"]
        let merged = [bare("coach"), loser, winner].mergedByPriority()
        #expect(merged.map(\.id) == ["coach", "pro"])
        #expect(merged.last?.productIds == ["annual", "monthly"])
        #expect(merged.last?.isActive == true)
    }

    @Test func rulesAreAppliedInOrderSoAnEarlierOneOverridesALaterOne() {
        // Active without history beats inactive with every later advantage.
        var inactive = bare(active: false)
        inactive.expiresAt = later
        inactive.willRenew = true
        inactive.state = .subscribed
        expectPriority(bare(), over: inactive)
    }
}
