import Foundation
import GRDB
import TestSupport
import Testing

@testable import SuperwallCore

private func temporaryDatabasePath() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("placements-\(UUID().uuidString).sqlite").path
}

private func row(_ name: String, _ time: Double, queued: Bool = false) -> PlacementRow {
    PlacementRow(
        name: name,
        createdAtMs: time,
        params: Array(#"{"n":"\#(name)"}"#.utf8),
        eventId: queued ? UUID() : nil,
        queued: queued
    )
}

/// A record as an earlier version's journal wrote it (`LegacyPlacementJournal`).
private func legacyRecord(_ row: PlacementRow, sequence: UInt64) -> [UInt8] {
    var payload: [UInt8] = []
    func put<Value>(_ value: Value) { withUnsafeBytes(of: value) { payload += $0 } }
    put(sequence.littleEndian)
    put(row.createdAtMs.bitPattern.littleEndian)
    put(UInt8(row.queued ? 1 : 0))
    put(row.eventId?.uuid ?? UUID.nilBytes)
    put(UInt32(row.name.utf8.count).littleEndian)
    payload += Array(row.name.utf8)
    put(UInt32(row.params.count).littleEndian)
    payload += row.params
    let sum = payload.withUnsafeBytes { LegacyPlacementJournal.checksum($0) }
    var record: [UInt8] = []
    withUnsafeBytes(of: UInt32(payload.count).littleEndian) { record += $0 }
    withUnsafeBytes(of: sum.littleEndian) { record += $0 }
    return record + payload
}

/// Leaves what a process of an earlier version left when it was killed: a database whose
/// journal mark says records up to `transferred` are in it, and `files` beside it (each a
/// list of records), as long as the journal's files were.
private func leaveLegacyJournal(at path: String, transferred: UInt64, files: [[(PlacementRow, UInt64)]]) throws {
    do {
        let store = try Store(path: path)
        try store.database.write { db in
            try db.execute(
                sql: "INSERT INTO keyedValue (key, scope, value) VALUES (?, 'app', ?)",
                arguments: [LegacyPlacementJournal.transferredKey, Int64(transferred)]
            )
        }
    }
    for (index, records) in files.enumerated() {
        var bytes = records.flatMap { legacyRecord($0.0, sequence: $0.1) }
        bytes += [UInt8](repeating: 0, count: 4096)
        #expect(FileManager.default.createFile(atPath: path + "-placements-\(index)", contents: Data(bytes)))
    }
}

@Suite struct PlacementLogTests {
    @Test func anAnsweredCallsRowsAreInSQLiteWhenItsCommitReturns() throws {
        let path = temporaryDatabasePath()
        let store = try Store(path: path, commitDelay: .seconds(600))
        store.logPlacement("answered", at: Date(timeIntervalSince1970: 1), params: [:])
        #expect(store.unwrittenCount == 1)
        try store.commitPendingWrites()
        #expect(store.unwrittenCount == 0)
        let inSQLite = try store.database.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM placement")
        }
        #expect(inSQLite == ["answered"])
    }

    @Test func aRowNoAnswerAsksForIsCommittedByTheTimer() async throws {
        let store = try Store(path: temporaryDatabasePath(), commitDelay: .milliseconds(1))
        store.logPlacement("unasked", at: Date(timeIntervalSince1970: 1), params: [:])
        let committed = await onAThreadOfItsOwn { () -> Bool in
            let deadline = ContinuousClock.now + expectationTimeout
            while store.unwrittenCount > 0, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
            return store.unwrittenCount == 0
        }
        #expect(committed)
    }

    @Test func aStoreOnDiskWritesNoFilesBesideTheDatabaseAndItsLogAndLeavesOnlyTheDatabaseWhenClosed() throws {
        let path = temporaryDatabasePath()
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        func files() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(name) }.sorted()
        }
        let store = try Store(path: path)
        store.logPlacement("p", at: Date(timeIntervalSince1970: 1), params: [:])
        try store.commitPendingWrites()
        #expect(try files() == [name, name + "-state", name + "-wal"])
        store.close()
        #expect(try files() == [name, name + "-state"])
    }

    /// Another write (the event queue saving its position) took a call's accepted rows into
    /// its transaction; the call's commit found nothing left and answered at once, and a
    /// SIGKILL before that transaction committed lost an acknowledged event.
    @Test func aCommitWaitsForAnotherWriteHoldingItsRows() async throws {
        let store = try Store(path: temporaryDatabasePath())
        store.logPlacement("acknowledged", at: Date(timeIntervalSince1970: 1), params: [:])
        let (holding, release, committed) = (
            DispatchSemaphore(value: 0), DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)
        )
        let other = Thread {
            try? store.changing { _ in
                holding.signal()
                release.wait()
            }
        }
        other.start()
        #expect(await holding.waitOffThePool() == .success)
        let committer = Thread {
            try? store.commitPendingWrites()
            committed.signal()
        }
        committer.start()
        // Still held: the commit must not have returned.
        #expect(await committed.waitOffThePool(timeout: .milliseconds(300)) == .timedOut)
        release.signal()
        #expect(await committed.waitOffThePool() == .success)
        #expect(try store.placementNames().contains("acknowledged"))
    }

    /// Every call commits, a page or more of WAL each: without checkpoints the log would hold
    /// all of it (24 MB here); checkpointed in the background, and cut back once emptied, it
    /// stays near its limit.
    @Test func theWALIsCheckpointedInTheBackgroundSoItStaysNearItsLimitHoweverMuchIsWritten() async throws {
        let path = temporaryDatabasePath()
        let store = try Store(path: path)
        let params: [String: JSON] = ["padding": .string(String(repeating: "x", count: 2_000))]
        for index in 0..<3_000 {
            store.logPlacement("p\(index)", at: Date(timeIntervalSince1970: Double(index)), params: params)
            try store.commitPendingWrites()
        }
        @Sendable func walSize() -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? 0
        }
        // A checkpoint that runs late (a loaded machine) lets the log grow meanwhile; the next
        // commit after one cuts it back.
        let settled = await onAThreadOfItsOwn { () -> Int in
            let deadline = ContinuousClock.now + expectationTimeout
            var index = 0
            while walSize() > BackgroundCheckpoints.walSizeLimit + (64 << 10), ContinuousClock.now < deadline {
                store.logPlacement("after\(index)", at: Date(timeIntervalSince1970: 1), params: [:])
                try? store.commitPendingWrites()
                index += 1
                Thread.sleep(forTimeInterval: 0.01)
            }
            return walSize()
        }
        #expect(settled <= BackgroundCheckpoints.walSizeLimit + (64 << 10))
        #expect(try store.placementNames().count >= 3_000)
    }

    /// SQLite deletes the write-ahead log when its connection closes; the next open took that
    /// for a lost log.
    @Test func aStoreClosedAndReopenedInOneProcessReportsNothing() throws {
        let path = temporaryDatabasePath()
        do {
            let store = try Store(path: path)
            try store.set("kept", for: .aliasId)
        }
        let reopened = try Store(path: path)
        #expect(reopened.problemsFound.isEmpty)
        #expect(try reopened.value(.aliasId) == "kept")
    }

    // MARK: An earlier version's journal

    @Test func theRowsAnEarlierVersionsJournalHeldAndSQLiteDidNotAreMovedInOnceAndItsFilesRemoved() throws {
        let path = temporaryDatabasePath()
        try leaveLegacyJournal(
            at: path,
            transferred: 1,
            files: [[(row("moved_before", 1), 1), (row("a", 2), 2)], [(row("b", 3, queued: true), 3)]]
        )
        do {
            let store = try Store(path: path)
            #expect(try store.placementNames() == ["a", "b"])
            #expect(try store.placementCount(named: "b", since: nil, until: Date(timeIntervalSince1970: 10)) == 1)
            #expect(store.problemsFound.isEmpty)
            let mark = try store.database.read { db in
                try Int.fetchOne(
                    db,
                    sql: "SELECT count(*) FROM keyedValue WHERE key = ?",
                    arguments: [LegacyPlacementJournal.transferredKey]
                )
            }
            #expect(mark == 0)
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-placements-0"))
        #expect(!FileManager.default.fileExists(atPath: path + "-placements-1"))
        #expect(try Store(path: path).placementNames() == ["a", "b"], "reopened, nothing is moved twice")
    }

    /// The rows went in with their mark, and the process was killed before the files went.
    @Test func aJournalWhoseRowsAreAllInSQLiteAddsNothing() throws {
        let path = temporaryDatabasePath()
        try leaveLegacyJournal(at: path, transferred: 2, files: [[(row("a", 1), 1), (row("b", 2), 2)]])
        let store = try Store(path: path)
        #expect(try store.placementNames().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: path + "-placements-0"))
    }

    @Test func aRecordCutShortAndEverythingAfterItInItsFileAreNotRecovered() throws {
        let path = temporaryDatabasePath()
        let records = [(row("a", 1), UInt64(1)), (row("b", 2), 2), (row("c", 3), 3)]
        try leaveLegacyJournal(at: path, transferred: 0, files: [records])
        // Flip a byte inside the second record, as a write cut short by power loss leaves it.
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: path + "-placements-0"))
        let firstLength = legacyRecord(records[0].0, sequence: 1).count
        try file.seek(toOffset: UInt64(firstLength + 8 + 20))
        try file.write(contentsOf: [0xFF])
        try file.close()
        #expect(try Store(path: path).placementNames() == ["a"])
    }

    /// A record past any sequence number a journal handed out trapped in the store's
    /// recovery arithmetic, so no start could get past it.
    @Test func aRecordWithAValidChecksumAndAnImpossibleSequenceNumberIsRejectedAndNamed() throws {
        let path = temporaryDatabasePath()
        try leaveLegacyJournal(at: path, transferred: 0, files: [[(row("crafted", 1), UInt64.max)]])
        let store = try Store(path: path)
        #expect(try store.placementNames().isEmpty)
        #expect(store.problemsFound.count == 1)
        #expect(store.problemsFound.first?.contains("sequence number 18446744073709551615 is out of range") == true)
        store.logPlacement("after", at: Date(timeIntervalSince1970: 2), params: [:])
        try store.commitPendingWrites()
        #expect(try store.placementNames() == ["after"])
    }

    @Test func aJournalFileLargerThanAnyEarlierVersionWroteIsReadOnlyToItsBound() throws {
        let path = temporaryDatabasePath()
        try leaveLegacyJournal(at: path, transferred: 0, files: [[(row("a", 1), 1)]])
        #expect(truncate(path + "-placements-0", off_t(LegacyPlacementJournal.largestFile) * 4) == 0)
        let store = try Store(path: path)
        #expect(try store.placementNames() == ["a"])
        #expect(!FileManager.default.fileExists(atPath: path + "-placements-0"))
    }
}
