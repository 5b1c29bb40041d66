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

@Suite struct UserAttributeRulesTests {
    private let installedAt = "2026-01-01T00:00:00.000Z"

    @Test func reservedDollarKeysAreDropped() {
        let merged = UserAttributes.merge(
            ["$secret": "x", "plan": "pro"],
            into: [:],
            applicationInstalledAt: installedAt
        )
        #expect(merged == ["plan": "pro", "applicationInstalledAt": .string(installedAt)])
    }

    @Test func nullRemovesAKeyAndTheMergeIsShallow() {
        let current: [String: JSON] = ["plan": "free", "prefs": ["a": 1, "b": 2], "age": 30]
        let merged = UserAttributes.merge(
            ["plan": .null, "prefs": ["a": 3]],
            into: current,
            applicationInstalledAt: installedAt
        )
        #expect(merged["plan"] == nil)
        #expect(merged["prefs"] == ["a": 3])
        #expect(merged["age"] == 30)
    }

    @Test func arraysAndObjectsAreKept() {
        let merged = UserAttributes.merge(
            ["tags": ["a", 1, true], "address": ["city": "Oslo"]],
            into: [:],
            applicationInstalledAt: installedAt
        )
        #expect(merged["tags"] == ["a", 1, true])
        #expect(merged["address"] == ["city": "Oslo"])
    }

    @Test func applicationInstalledAtIsAlwaysPresentAndCannotBeOverwritten() {
        let merged = UserAttributes.merge(
            ["applicationInstalledAt": "never"],
            into: [:],
            applicationInstalledAt: installedAt
        )
        #expect(merged["applicationInstalledAt"] == .string(installedAt))
    }

    @Test(arguments: [
        ("ada@example.com", true), ("a.b+c%d-e@sub.example.co", true), ("no-at-sign", false),
        ("x@y", false), ("x@y.c", false), ("x@y.c0m", false), ("spa ce@example.com", false), ("x@example.com ", false),
    ])
    func emailsAreValidatedWithSuperwallKitsPattern(_ address: String, _ valid: Bool) {
        #expect(UserAttributes.isEmailAddress(address) == valid)
        let merged = UserAttributes.merge(
            ["email": .string(address)],
            into: ["email": "old@example.com"],
            applicationInstalledAt: installedAt
        )
        #expect(merged["email"] == (valid ? .string(address) : nil))
    }
}

@Suite struct StoreTests {
    @Test func keyedValuesRoundTripAndCanBeRemoved() throws {
        let store = try Store()
        #expect(try store.value(.aliasId) == nil)
        try store.set("$SuperwallAlias:A", for: .aliasId)
        try store.set(["plan": "pro", "n": 1.5], for: .userAttributes)
        #expect(try store.value(.aliasId) == "$SuperwallAlias:A")
        #expect(try store.value(.userAttributes) == ["plan": "pro", "n": 1.5])
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
        try store.resetUser()
        #expect(try store.value(.appUserId) == nil)
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
}

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
        let deadline = ContinuousClock.now + .seconds(30)
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

@Suite struct DataDirectoryTests {
    private func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("swdata-\(UUID().uuidString)").path
    }

    @Test func stateSurvivesReopening() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let directory = try DataDirectory(path: path)
            try directory.store.set("$SuperwallAlias:KEEP", for: .aliasId)
        }
        let reopened = try DataDirectory(path: path)
        #expect(try reopened.store.value(.aliasId) == "$SuperwallAlias:KEEP")
    }

    /// Held by this process, the directory is waited for (a closing session lets go within
    /// moments), then refused: waited for on a thread of its own, not the cooperative pool's.
    @Test func aSecondHolderIsRefusedWithTheFirstOnesPid() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = try DataDirectory(path: path)
        let second = await onAThreadOfItsOwn { () -> DataDirectory.OpenError? in
            do throws(DataDirectory.OpenError) {
                _ = try DataDirectory(path: path)
                return nil
            } catch {
                return error
            }
        }
        #expect(second == .inUse(path: path, holderPid: getpid()))
        _ = first
    }

    @Test func aSessionOfThisProcessThatLetsGoIsWaitedFor() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = LockedBox<DataDirectory?>(try DataDirectory(path: path))
        let reopened = await onAThreadOfItsOwn { () -> Bool in
            Thread.detachNewThread {
                usleep(50_000)
                first.set(nil)
            }
            return (try? DataDirectory(path: path)) != nil
        }
        #expect(reopened)
    }

    /// The pid was missing from 17 of 20 `dataDirectoryInUse` messages when two bridges
    /// started together: the loser read the lock file before the winner wrote it.
    @Test func theHoldersPidIsNamedEvenIfItIsWrittenJustAfterTheLock() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let descriptor = open(path + "/bridge.lock", O_RDWR | O_CREAT, 0o644)
        defer { close(descriptor) }
        #expect(flock(descriptor, LOCK_EX | LOCK_NB) == 0)
        let writer = Thread {
            usleep(20_000)
            _ = "4242\n".withCString { pwrite(descriptor, $0, 5, 0) }
        }
        writer.start()
        #expect(throws: DataDirectory.OpenError.inUse(path: path, holderPid: 4242)) { try DataDirectory(path: path) }
    }

    @Test func theDefaultPathIsPerAPIKeyUnderXDGDataHome() {
        #expect(
            DataDirectory.defaultPath(apiKey: "pk_abc123", environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/u"])
                == "/data/superwall-bridge/pk_abc123"
        )
        #expect(
            DataDirectory.defaultPath(apiKey: "pk/../x", environment: ["HOME": "/home/u"])
                == "/home/u/.local/share/superwall-bridge/pk____x"
        )
    }

    @Test func anUnwritableLocationIsAClearError() {
        #expect(throws: DataDirectory.OpenError.self) { try DataDirectory(path: "/proc/superwall-cannot-be-here") }
    }
}

@Suite struct SystemRandomSourceTests {
    @Test func uuidsAreVersionFourAndDistinct() {
        let random = SystemRandomSource()
        let uuids = (0..<1000).map { _ in random.uuid() }
        #expect(Set(uuids).count == 1000)
        for uuid in uuids.prefix(50) {
            let text = uuid.uuidString
            #expect(Array(text)[14] == "4")
            #expect("89AB".contains(Array(text)[19]))
        }
    }
}

@Suite struct PlacementTimelineBoundTests {
    @Test func manyEventsAreAnsweredExactlyOnSecondBoundariesWithBoundedMemory() {
        var timeline = PlacementTimeline()
        var times: [Double] = []
        // 40,000 events over 100 s: 400 a second, each at its own millisecond.
        for index in 0..<40_000 {
            let time = 1_700_000_000_000.0 + Double(index / 400) * 1000 + Double(index % 400)
            times.append(time)
            timeline.insert("tap", atMs: time)
        }
        #expect(
            timeline.storedCount < 2 * PlacementTimeline.exactCapacity + 100,
            "older times are folded a second at a time"
        )
        for (from, to) in [(0.0, 99.0), (10.0, 19.0), (50.0, 99.0), (0.0, 0.0), (98.0, 99.0)] {
            let fromMs = 1_700_000_000_000.0 + from * 1000
            let toMs = 1_700_000_000_000.0 + to * 1000 + 999
            let expected = times.filter { $0 >= fromMs && $0 <= toMs }.count
            #expect(timeline.count(named: "tap", from: fromMs, to: toMs) == expected, "seconds \(from)–\(to)")
        }
        #expect(timeline.last(named: "tap", atOrBefore: .infinity) == times.last)
        #expect(
            timeline.last(named: "tap", atOrBefore: 1_700_000_005_999) == 1_700_000_005_399,
            "the last time of a folded second"
        )
        #expect(timeline.last(named: "tap", atOrBefore: 1_699_999_999_999) == nil)
    }

    @Test func aClockThatWentBackIsFoldedInOrder() {
        var timeline = PlacementTimeline()
        let base = 1_700_000_000_000.0
        for index in 0..<(2 * PlacementTimeline.exactCapacity) {
            timeline.insert("tap", atMs: base + 10_000 + Double(index))
        }
        // Now older times arrive, and enough more to fold them too.
        for index in 0..<(2 * PlacementTimeline.exactCapacity) {
            timeline.insert("tap", atMs: base + Double(index % 5) * 1000)
        }
        #expect(timeline.count(named: "tap", from: base, to: base + 5_000) == 2 * PlacementTimeline.exactCapacity)
        #expect(timeline.count(named: "tap", from: base, to: .infinity) == 4 * PlacementTimeline.exactCapacity)
    }
}

@Suite struct UUIDTextTests {
    @Test func theTextIsFoundationsUUIDString() {
        for _ in 0..<1000 {
            let id = UUID()
            #expect(id.text == id.uuidString)
        }
        let edges = [
            UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
            UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)),
        ]
        for id in edges { #expect(id.text == id.uuidString) }
    }
}

@Suite struct JSONTextTests {
    /// Small strings (most keys) and large ones, with and without what must be escaped, read
    /// back as they were written.
    @Test(arguments: [
        "plan", "", "a \"quoted\" word", "back\\slash", "line\nbreak\tand\r", "bell\u{07}", "ünïcødé ✓",
        String(repeating: "long text without escapes ", count: 20), String(repeating: "long \"escaped\"\n", count: 20),
    ])
    func stringsReadBackAsWritten(text: String) throws {
        let written = JSON.object([text: .string(text)]).jsonText
        let read = try JSONDecoder().decode([String: String].self, from: Data(written.utf8))
        #expect(read == [text: text])
    }
}
