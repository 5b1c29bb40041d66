import Foundation
import GRDB
import TestSupport
import Testing

@testable import SuperwallCore

@Suite struct StoreRecordsTests {
    @Test func loggedRowsWaitForOneCommitThatAReadOrTheDelayMakes() async throws {
        // A delay long enough that a busy machine cannot commit between the first two rows.
        let store = try Store(commitDelay: .milliseconds(500))
        store.logPlacement("a", at: Date(), params: [:])
        store.logPlacement("b", at: Date(), params: ["k": "v"])
        #expect(store.unwrittenCount == 2)
        try store.commitPendingWrites()
        #expect(store.unwrittenCount == 0)
        store.logPlacement("c", at: Date(), params: [:])
        #expect(try store.placementNames() == ["a", "b", "c"])
        store.logPlacement("d", at: Date(), params: [:])
        let deadline = ContinuousClock.now + expectationTimeout
        while store.unwrittenCount > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(store.unwrittenCount == 0)
        #expect(try store.placementNames() == ["a", "b", "c", "d"])
    }

    /// A commit SQLite refuses leaves nothing half-written: the transaction is rolled back
    /// and every row waits, in order, for the next commit.
    @Test func aRefusedCommitKeepsItsRowsInOrderForTheNextOne() throws {
        let store = try Store(commitDelay: .seconds(60))
        try store.database.write { db in
            try db.execute(
                sql:
                    "CREATE TRIGGER refuse BEFORE INSERT ON placement WHEN NEW.name = 'b' BEGIN SELECT RAISE(ABORT, 'refused'); END"
            )
        }
        store.logPlacement("a", at: Date(), params: [:])
        store.logPlacement("b", at: Date(), params: ["k": "v"])
        #expect(throws: DatabaseError.self) { try store.commitPendingWrites() }
        #expect(store.unwrittenCount == 2)
        #expect(try store.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM placement") } == 0)
        try store.database.write { db in try db.execute(sql: "DROP TRIGGER refuse") }
        store.logPlacement("c", at: Date(), params: [:])
        try store.commitPendingWrites()
        #expect(store.unwrittenCount == 0)
        #expect(try store.placementNames() == ["a", "b", "c"])
    }

    @Test func rowsLoggedBeforeAReopenAreOnDisk() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString).sqlite")
            .path
        do {
            let store = try Store(path: path)
            store.logPlacement("kept", at: Date(), params: [:])
            try store.commitPendingWrites()
        }
        #expect(try Store(path: path).placementNames() == ["kept"])
    }

    @Test func occurrencesAreCountedByKeyWithinAWindow() throws {
        let store = try Store()
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        for offset in [0.0, 600, 3000] {
            try store.recordOccurrence(key: "66-once-per-hour", at: base.addingTimeInterval(offset))
        }
        try store.recordOccurrence(key: "other", at: base)
        #expect(try store.occurrenceCount(key: "66-once-per-hour", since: base.addingTimeInterval(500)) == 2)
        #expect(try store.occurrenceCount(key: "66-once-per-hour", since: nil) == 3)
        #expect(try store.occurrenceCount(key: "never", since: nil) == 0)
    }

    @Test func assignmentsAreOnePerExperimentAndRemembered() throws {
        let store = try Store()
        let treatment = Variant(id: "219", kind: .treatment, percentage: 0, paywallIdentifier: "pw")
        try store.save(Store.Assignment(experimentId: "80", variant: treatment, isSentToServer: false))
        try store.save(
            Store.Assignment(
                experimentId: "66",
                variant: Variant(id: "189", kind: .holdout, percentage: 0, paywallIdentifier: nil),
                isSentToServer: true
            )
        )
        try store.save(Store.Assignment(experimentId: "80", variant: treatment, isSentToServer: true))
        #expect(
            try store.assignments() == [
                Store.Assignment(
                    experimentId: "66",
                    variant: Variant(id: "189", kind: .holdout, percentage: 0, paywallIdentifier: nil),
                    isSentToServer: true
                ),
                Store.Assignment(experimentId: "80", variant: treatment, isSentToServer: true),
            ]
        )
    }

    @Test func resetDropsAssignmentsAndOccurrencesButKeepsTheSubscriptionStatus() throws {
        let store = try Store()
        try store.recordOccurrence(key: "k", at: Date())
        try store.save(
            Store.Assignment(
                experimentId: "1",
                variant: Variant(id: "v", kind: .treatment, percentage: 0, paywallIdentifier: nil),
                isSentToServer: false
            )
        )
        try store.set(.active([Entitlement(id: "pro")]), for: .subscriptionStatus)
        try store.resetUser()
        #expect(try store.occurrenceCount(key: "k", since: nil) == 0)
        #expect(try store.assignments().isEmpty)
        #expect(try store.value(.subscriptionStatus) == .active([Entitlement(id: "pro")]))
    }

    @Test func subscriptionStatusesResolveAsSuperwallKitDoes() {
        #expect(SubscriptionStatus.active([]).resolved == .inactive)
        #expect(SubscriptionStatus.active([]).wireName == "INACTIVE")
        #expect(SubscriptionStatus.active([Entitlement(id: "pro")]).isActive)
        #expect(SubscriptionStatus.unknown.wireName == "UNKNOWN")
    }
}
