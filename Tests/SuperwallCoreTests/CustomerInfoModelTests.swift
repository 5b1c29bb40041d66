import Foundation
import Testing

@testable import SuperwallCore

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
