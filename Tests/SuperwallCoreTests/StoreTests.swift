import Foundation
import GRDB
import TestSupport
import Testing

@testable import SuperwallCore

@Suite struct StoreTests {
    @Test func keyedValuesRoundTripAndCanBeRemoved() throws {
        let store = try Store()
        #expect(try store.value(.aliasId) == nil)
        try store.set("$SuperwallAlias:A", for: .aliasId)
        try store.set(["mixpanelDistinctId": "m", "n": 1.5], for: .integrationAttributes)
        #expect(try store.value(.aliasId) == "$SuperwallAlias:A")
        #expect(try store.value(.integrationAttributes) == ["mixpanelDistinctId": "m", "n": 1.5])
        try store.set("$SuperwallAlias:B", for: .aliasId)
        #expect(try store.value(.aliasId) == "$SuperwallAlias:B")
        try store.remove(.aliasId)
        #expect(try store.value(.aliasId) == nil)
    }

    @Test func resetForgetsTheUserButKeepsTheInstall() throws {
        let store = try Store()
        try store.set("u1", for: .appUserId)
        try store.set(true, for: .didTrackAppInstall)
        let now = Date()
        for name in ["app_install", "app_launch", "campaign_trigger", "session_start"] {
            store.logPlacement(name, at: now, params: [:])
        }
        try store.setUserAttributes(["plan": "pro"], replacing: [:])
        try store.resetUser()
        #expect(try store.value(.appUserId) == nil)
        #expect(try store.userAttributes() == [:])
        #expect(try store.value(.didTrackAppInstall) == true)
        #expect(try store.placementNames() == ["app_install", "app_launch"])
    }

    @Test func thePlacementLogAnswersLastTimeAndCounts() throws {
        let store = try Store()
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        for offset in [0.0, 60, 120, 3600] {
            store.logPlacement("paywall_open", at: base.addingTimeInterval(offset), params: ["n": .double(offset)])
        }
        store.logPlacement("other", at: base.addingTimeInterval(30), params: [:])
        #expect(
            try store.lastPlacement(named: "paywall_open", before: base.addingTimeInterval(100))
                == base.addingTimeInterval(60)
        )
        #expect(try store.lastPlacement(named: "never", before: base) == nil)
        #expect(
            try store.placementCount(
                named: "paywall_open",
                since: base.addingTimeInterval(60),
                until: base.addingTimeInterval(3600)
            ) == 3
        )
        #expect(try store.placementCount(named: "paywall_open", since: nil, until: base.addingTimeInterval(7200)) == 4)
    }

    @Test func timesLoggedOutOfOrderAreAnsweredInOrder() throws {
        let store = try Store()
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        for offset in [100.0, 0, 50, 100] {
            store.logPlacement("tap", at: base.addingTimeInterval(offset), params: [:])
        }
        #expect(
            try store.lastPlacement(named: "tap", before: base.addingTimeInterval(99)) == base.addingTimeInterval(50)
        )
        #expect(
            try store.placementCount(
                named: "tap",
                since: base.addingTimeInterval(50),
                until: base.addingTimeInterval(100)
            ) == 3
        )
        #expect(
            try store.placementCount(
                named: "tap",
                since: base.addingTimeInterval(101),
                until: base.addingTimeInterval(100)
            ) == 0
        )
    }

    @Test func theTimesOfTheLogAreReadBackOnReopenAndForgottenByAReset() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-\(UUID().uuidString).sqlite")
            .path
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        do {
            let store = try Store(path: path)
            store.logPlacement("app_launch", at: base, params: [:])
            store.logPlacement("paywall_open", at: base.addingTimeInterval(10), params: [:])
            try store.commitPendingWrites()
        }
        let reopened = try Store(path: path)
        #expect(
            try reopened.lastPlacement(named: "paywall_open", before: base.addingTimeInterval(60))
                == base.addingTimeInterval(10)
        )
        try reopened.resetUser()
        #expect(try reopened.placementCount(named: "paywall_open", since: nil, until: base.addingTimeInterval(60)) == 0)
        #expect(try reopened.placementCount(named: "app_launch", since: nil, until: base.addingTimeInterval(60)) == 1)
    }

    @Test func aChangeOfOneAttributeWritesOneRowHoweverManyAreHeld() throws {
        let store = try Store()
        var attributes = Dictionary(uniqueKeysWithValues: (0..<5_000).map { ("k\($0)", JSON.string("v\($0)")) })
        try store.setUserAttributes(attributes, replacing: [:])
        let stored = attributes
        attributes["k7"] = .int(7)
        attributes["new"] = .array([true, nil, 1.5, ["nested": "x"]])
        attributes["k9"] = nil
        let rowsChanged = try store.database.write { db in
            let before = db.totalChangesCount
            try Store.Changes(db).setUserAttributes(attributes, replacing: stored)
            return db.totalChangesCount - before
        }
        #expect(rowsChanged == 3)
        #expect(try store.userAttributes() == attributes)
    }

    @Test func attributesStoredWholeByAnEarlierVersionAreKeptAsRows() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "attributes-\(UUID().uuidString).sqlite"
        )
        .path
        do {
            let queue = try DatabaseQueue(path: path)
            try Store.stepwiseMigrator(through: "v7: forgotten placements indexed").migrate(queue)
            try queue.write { db in
                try db.execute(
                    sql: "INSERT INTO keyedValue (key, scope, value) VALUES ('userAttributes', 'user', ?)",
                    arguments: [Data(#"{"plan":"pro","seats":3,"tags":["a","b"]}"#.utf8)]
                )
            }
        }
        let store = try Store(path: path)
        #expect(try store.userAttributes() == ["plan": "pro", "seats": 3, "tags": ["a", "b"]])
        let leftWhole = try store.database.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM keyedValue WHERE key = 'userAttributes'")
        }
        #expect(leftWhole == 0)
    }
}
