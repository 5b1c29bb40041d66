import Foundation
import Testing

@testable import SuperwallCore

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
