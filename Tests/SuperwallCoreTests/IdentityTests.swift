import Foundation
import GRDB
import TestSupport
import Testing

@testable import SuperwallCore

@Suite struct IdentityTests {
    @Test(arguments: [("user_123", 38), ("abc", 3), ("test@example.com", 3)])
    func theUserIdSeedMatchesSuperwallKitsVectors(_ userId: String, _ seed: Int) {
        #expect(Identity.seed(forUserId: userId) == seed)
    }

    @Test func anAnonymousUserHasAnUppercaseAliasAndADrawnSeed() {
        let identity = Identity.anonymous(using: CountingRandomSource())
        #expect(identity.aliasId == "$SuperwallAlias:00000000-0000-4000-8000-000000000001")
        #expect(identity.seed == 7)
        #expect(identity.userId == identity.aliasId)
        #expect(!identity.isLoggedIn)
    }

    @Test func anIdentifiedUserIsKnownByTheAppsId() {
        let identity = Identity(aliasId: "$SuperwallAlias:X", appUserId: "user_1", seed: 5)
        #expect(identity.userId == "user_1")
        #expect(identity.isLoggedIn)
    }

    @Test func userIdsAreTrimmedAndEmptyOnesRefused() {
        #expect(Identity.normalizedUserId("  user_1\n") == "user_1")
        #expect(Identity.normalizedUserId(" \t\n") == nil)
    }
}
