import Foundation
import Testing

@testable import SuperwallCore

@Suite struct IdentifyAndResetTests {
    private func configured(_ delegate: RecordingDelegate = RecordingDelegate()) async throws -> Superwall {
        let superwall = makeSuperwall(delegate)
        _ = try await superwall.configure(apiKey: "pk_test", options: options(temporaryDirectory()))
        // The launch events' implicit triggers run in a task of their own: let them end first.
        await superwall.awaitPresentationQueue()
        delegate.clear()
        return superwall
    }

    @Test func identifyingAnAnonymousUserKeepsAliasAndAttributes() async throws {
        let delegate = RecordingDelegate()
        let superwall = try await configured(delegate)
        let before = try await superwall.identity()
        _ = try await superwall.setUserAttributes(["plan": "free"])
        let after = try await superwall.identify(userId: "  user_1 \n")
        #expect(after.appUserId == "user_1")
        #expect(after.aliasId == before.aliasId)
        #expect(after.seed == before.seed)
        let attributes = try await superwall.userAttributes()
        #expect(attributes["plan"] == "free")
        #expect(attributes["appUserId"] == "user_1")
        #expect(attributes["aliasId"] == .string(before.aliasId))
        // SuperwallKit tracks the merged attributes as it saves the new user id.
        #expect(delegate.names == ["user_attributes", "user_attributes", "identity_alias"])
        #expect(delegate.events.last { $0.name == "user_attributes" }?.customParameters["appUserId"] == "user_1")
    }

    @Test func identifyingTheSameUserAgainDoesNothing() async throws {
        let delegate = RecordingDelegate()
        let superwall = try await configured(delegate)
        _ = try await superwall.identify(userId: "user_1")
        delegate.clear()
        _ = try await superwall.identify(userId: "user_1")
        #expect(delegate.names.isEmpty)
    }

    @Test func switchingIdentifiedUsersResetsFirst() async throws {
        let delegate = RecordingDelegate()
        let superwall = try await configured(delegate)
        let first = try await superwall.identify(userId: "user_1")
        _ = try await superwall.setUserAttributes(["plan": "pro"])
        delegate.clear()
        let second = try await superwall.identify(userId: "user_2")
        #expect(second.appUserId == "user_2")
        #expect(second.aliasId != first.aliasId)
        #expect(try await superwall.userAttributes()["plan"] == nil)
        // The reset within tracks the attributes once per id it changed, then the new user id's.
        #expect(
            delegate.names == [
                "user_attributes", "user_attributes", "user_attributes", "first_seen", "user_attributes",
                "identity_alias",
            ]
        )
    }

    /// A switch of users commits its reset and the new identity together: a crash between
    /// them cannot leave an anonymous user with nothing of either.
    @Test func aSwitchOfUsersThatCannotFinishLeavesTheOldUserWhole() async throws {
        let superwall = try await configured()
        _ = try await superwall.identify(userId: "user_1")
        _ = try await superwall.setUserAttributes(["plan": "pro"])
        let store = try #require(await superwall.store)
        let assignmentsBefore = try store.assignments()
        // The switch's last write fails, as a crash just before its commit would leave it.
        try await store.database.write { db in
            try db.execute(
                sql:
                    "CREATE TRIGGER refuse BEFORE DELETE ON userAttribute BEGIN SELECT RAISE(ABORT, 'refused'); END"
            )
        }
        await #expect(throws: SuperwallError.self) { try await superwall.identify(userId: "user_2") }
        #expect(try store.value(.appUserId) == "user_1")
        #expect(try store.userAttributes()["plan"] == "pro")
        #expect(try store.assignments() == assignmentsBefore)
        #expect(try await superwall.identity().appUserId == "user_1")
        try await store.database.write { db in try db.execute(sql: "DROP TRIGGER refuse") }
        #expect(try await superwall.identify(userId: "user_2").appUserId == "user_2")
        #expect(try store.value(.appUserId) == "user_2")
        #expect(try store.userAttributes()["plan"] == nil)
    }

    @Test func anEmptyUserIdIsRefused() async throws {
        let superwall = try await configured()
        await #expect(throws: SuperwallError.invalidUserId) { try await superwall.identify(userId: " \n ") }
    }

    @Test func resetMakesANewAnonymousUserAndTracksFirstSeenThenReset() async throws {
        let delegate = RecordingDelegate()
        let superwall = try await configured(delegate)
        let identified = try await superwall.identify(userId: "user_1")
        _ = try await superwall.setUserAttributes(["plan": "pro"])
        _ = try await superwall.setIntegrationAttributes(["adjustId": "adj-1"])
        delegate.clear()
        let fresh = try await superwall.reset()
        #expect(fresh.appUserId == nil)
        #expect(fresh.aliasId != identified.aliasId)
        let attributes = try await superwall.userAttributes()
        #expect(attributes["plan"] == nil)
        #expect(attributes["aliasId"] == .string(fresh.aliasId))
        #expect(try await superwall.integrationAttributes().isEmpty)
        // One `user_attributes` for each id the reset changed: the user id, the alias, the seed.
        #expect(delegate.names == ["user_attributes", "user_attributes", "user_attributes", "first_seen", "reset"])
    }
}
