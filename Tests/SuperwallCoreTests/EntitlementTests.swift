import Foundation
import Testing

@testable import SuperwallCore

private let now = Date(timeIntervalSince1970: 1_800_000_000)
private let later = now.addingTimeInterval(86_400)

/// An entitlement that says nothing beyond its id and activity, for rules to tell apart.
private func bare(_ id: String = "pro", active: Bool = true) -> Entitlement { Entitlement(id: id, isActive: active) }

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

@Suite struct EntitlementModelTests {
    @Test func entitlementIdIsActiveAndFromTheAppStore() {
        let entitlement = Entitlement(id: "pro")
        #expect(entitlement.isActive)
        #expect(entitlement.store == .appStore)
    }

    @Test func renewsAtIsTheExpiryOnlyWhileActiveAndRenewing() {
        var entitlement = bare()
        entitlement.expiresAt = later
        #expect(entitlement.renewsAt == nil)
        entitlement.willRenew = true
        #expect(entitlement.renewsAt == later)
        entitlement.isActive = false
        #expect(entitlement.renewsAt == nil)
    }

    @Test func webEntitlementsDecodeWithMillisecondOrISODatesAndUnknownStoresAsOther() throws {
        let json = """
            [{"identifier": "pro", "type": "SERVICE_LEVEL", "isActive": true, "productIds": ["a", "b"], "store": "LEMON_SQUEEZY",
              "expiresAt": 1800086400000, "startsAt": "2027-01-15T08:00:00Z", "state": "inGracePeriod", "offerType": "trial"},
             {"identifier": "coach", "type": "SERVICE_LEVEL"}]
            """
        let decoded = try JSONDecoder().decode([Entitlement].self, from: Data(json.utf8))
        #expect(decoded[0].store == .other)
        #expect(decoded[0].expiresAt == later)
        #expect(decoded[0].startsAt == ISO8601.date(from: "2027-01-15T08:00:00Z"))
        #expect(decoded[0].isInGracePeriod)
        #expect(decoded[0].offerType == .trial)
        #expect(decoded[0].productIds == ["a", "b"])
        #expect(decoded[1].isActive == false)
        let reencoded = try JSONDecoder().decode([Entitlement].self, from: JSONEncoder().encode(decoded))
        #expect(reencoded == decoded)
    }

    @Test func anEntitlementOfAnotherTypeDoesNotDecode() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Entitlement.self, from: Data(#"{"identifier": "pro", "type": "CONSUMABLE"}"#.utf8))
        }
    }

    @Test func aStatusIsActiveOnlyWhenOneOfItsEntitlementsIs() {
        #expect(SubscriptionStatus.active([bare(active: false)]).wireName == "INACTIVE")
        #expect(!SubscriptionStatus.active([bare(active: false)]).isActive)
        #expect(
            SubscriptionStatus.active([bare(active: false), bare("coach")]).activeEntitlements.map(\.id) == ["coach"]
        )
        #expect(SubscriptionStatus.active([]).resolved == .inactive)
    }

    @Test func anEntitlementGivenTwiceInAStatusIsMergedByPriority() {
        var expiring = bare()
        expiring.expiresAt = later
        let status = SubscriptionStatus.active([bare(), expiring]).resolved
        #expect(status == .active([expiring]))
    }
}

@Suite struct CustomerInfoModelTests {
    private func subscription(
        _ id: String,
        _ product: String,
        on date: Date,
        active: Bool = true
    ) -> SubscriptionTransaction {
        SubscriptionTransaction(
            transactionId: id,
            productId: product,
            purchaseDate: date,
            willRenew: true,
            isActive: active,
            expirationDate: nil,
            store: .appStore
        )
    }

    @Test func mergingKeepsTheDevicesTransactionsAddsTheWebsNewOnesAndSortsByDate() {
        let device = CustomerInfo(subscriptions: [
            subscription("t2", "monthly", on: later), subscription("t1", "annual", on: now),
        ])
        let web = CustomerInfo(
            subscriptions: [
                subscription("t1", "web-duplicate", on: now), subscription("w1", "web", on: now.addingTimeInterval(60)),
            ],
            nonSubscriptions: [
                NonSubscriptionTransaction(
                    transactionId: "n1",
                    productId: "lifetime",
                    purchaseDate: now,
                    isConsumable: false,
                    store: .stripe
                )
            ]
        )
        let merged = device.merging(with: web)
        #expect(merged.subscriptions.map(\.transactionId) == ["t1", "w1", "t2"])
        #expect(merged.subscriptions.first?.productId == "annual")
        #expect(merged.nonSubscriptions.map(\.transactionId) == ["n1"])
    }

    @Test func mergingMergesEntitlementsByPriority() {
        var webPro = bare()
        webPro.store = .stripe
        webPro.latestProductId = "web"
        let merged = CustomerInfo(entitlements: [bare(active: false), bare("coach")]).merging(
            with: CustomerInfo(entitlements: [webPro])
        )
        #expect(merged.entitlements == [bare("coach"), webPro])
    }

    @Test func theExternalControllerVariantTakesActiveEntitlementsFromTheStatusOnly() {
        var webStatusEntitlement = bare("web-only")
        webStatusEntitlement.store = .stripe
        let status = SubscriptionStatus.active([Entitlement(id: "pro"), webStatusEntitlement])
        let device = CustomerInfo(
            subscriptions: [subscription("t1", "annual", on: now)],
            entitlements: [bare("coach"), bare("legacy", active: false)]
        )
        var web = bare("web")
        web.store = .stripe
        let info = CustomerInfo.forExternalPurchaseController(
            status: status,
            device: device,
            web: CustomerInfo(entitlements: [web])
        )
        // The device's active "coach" is the controller's to report; its inactive "legacy" is kept.
        #expect(info.entitlements.map(\.id) == ["legacy", "pro", "web"])
        #expect(info.subscriptions.map(\.transactionId) == ["t1"])
    }

    @Test func aHistoryDerivesEntitlementsFromItsProductsAsTheyStandNow() {
        let map = [
            "annual": [bare(active: false)], "lifetime": [bare("forever", active: false)],
            "coins": [bare("coins", active: false)],
        ]
        let history = PurchaseHistory(
            subscriptions: [
                SubscriptionTransaction(
                    transactionId: "t1",
                    productId: "annual",
                    purchaseDate: now,
                    willRenew: true,
                    isActive: true,
                    expirationDate: later,
                    store: .appStore
                )
            ],
            nonSubscriptions: [
                NonSubscriptionTransaction(
                    transactionId: "n1",
                    productId: "lifetime",
                    purchaseDate: now,
                    isConsumable: false,
                    store: .appStore
                ),
                NonSubscriptionTransaction(
                    transactionId: "n2",
                    productId: "coins",
                    purchaseDate: now,
                    isConsumable: true,
                    store: .appStore
                ),
            ]
        )
        let before = history.customerInfo(entitlementsByProductId: map, now: now)
        #expect(before.entitlements.map(\.id) == ["forever", "pro"])
        #expect(before.entitlements.filter(\.isActive).count == 2)
        #expect(before.entitlements.first?.isLifetime == true)
        #expect(before.entitlements.last?.state == .subscribed)
        #expect(before.entitlements.last?.renewsAt == later)
        #expect(before.activeProductIds == ["annual", "lifetime"])
        let after = history.customerInfo(entitlementsByProductId: map, now: later.addingTimeInterval(1))
        #expect(after.entitlements.last?.isActive == false)
        #expect(after.entitlements.last?.state == .expired)
        #expect(after.activeSubscriptionProductIds.isEmpty)
    }
}
