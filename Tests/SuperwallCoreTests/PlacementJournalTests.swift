import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

private func temporaryDatabasePath() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString).sqlite").path
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

/// The resident kilobytes of this process's mapping of `path`, from `/proc/self/smaps`.
private func residentKilobytes(ofMapping path: String) throws -> Int {
    // Read to its end: procfs gives its files no size to read by.
    let file = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps"))
    let smaps = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
    var inMapping = false
    for line in smaps.split(separator: "\n") {
        if let first = line.first, first.isHexDigit, line.contains("-") {
            inMapping = line.hasSuffix(path)
        } else if inMapping, line.hasPrefix("Rss:") {
            return Int(line.split(separator: " ")[1]) ?? -1
        }
    }
    return -1
}

@Suite struct PlacementJournalTests {
    @Test func recordsAppendedAreReadBackInOrderByTheNextProcess() throws {
        let path = temporaryDatabasePath()
        let rows = [row("a", 1), row("b", 2, queued: true), row("c", 3)]
        do {
            let journal = try PlacementJournal(besideDatabaseAt: path, capacity: 4096)
            #expect(journal.append(Array(rows[0..<2]), from: 1, transferred: 0) == .appended)
            #expect(journal.append([rows[2]], from: 3, transferred: 0) == .appended)
        }
        let recovered = try PlacementJournal(besideDatabaseAt: path, capacity: 4096).recover().records
        #expect(recovered.map(\.sequence) == [1, 2, 3])
        #expect(recovered.map(\.row) == rows)
    }

    @Test func aRecordCutShortAndEverythingAfterItAreNotRead() throws {
        let path = temporaryDatabasePath()
        do {
            let journal = try PlacementJournal(besideDatabaseAt: path, capacity: 4096)
            #expect(journal.append([row("a", 1), row("b", 2), row("c", 3)], from: 1, transferred: 0) == .appended)
        }
        // Flip a byte inside the second record, as a write cut short by power loss leaves it.
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: path + "-placements-0"))
        let firstLength = Int(try #require(file.readData(ofLength: 4).first))
        try file.seek(toOffset: UInt64(8 + firstLength + 8 + 20))
        file.write(Data([0xFF]))
        try file.close()
        let recovered = try PlacementJournal(besideDatabaseAt: path, capacity: 4096).recover().records
        #expect(recovered.map(\.row.name) == ["a"])
    }

    @Test func aFileReusedFromItsStartDoesNotGiveBackItsOlderRecords() throws {
        let path = temporaryDatabasePath()
        do {
            // Room for about three records a file: the fourth switches files, the seventh
            // comes back to the first one, reusing it from its start.
            let journal = try PlacementJournal(besideDatabaseAt: path, capacity: 200)
            for sequence in 1...6 {
                #expect(
                    journal.append(
                        [row("r\(sequence)", Double(sequence))],
                        from: UInt64(sequence),
                        transferred: UInt64(sequence - 1)
                    ) == .appended
                )
            }
            #expect(journal.append([row("r7", 7)], from: 7, transferred: 6) == .appended)
        }
        let recovered = try PlacementJournal(besideDatabaseAt: path, capacity: 200).recover().records
        let kept = recovered.filter { $0.sequence > 6 }
        #expect(kept.map(\.row.name) == ["r7"])
        #expect(recovered.map(\.sequence) == recovered.map(\.sequence).sorted())
    }

    @Test func neitherFileTakesARecordWhileBothHoldUntransferredOnes() throws {
        let journal = try PlacementJournal(besideDatabaseAt: temporaryDatabasePath(), capacity: 200)
        var sequence: UInt64 = 1
        while journal.append([row("r", Double(sequence))], from: sequence, transferred: 0) == .appended {
            sequence += 1
        }
        #expect(sequence > 2)
        #expect(journal.append([row("r", 0)], from: sequence, transferred: sequence - 1) == .appended)
    }

    @Test func aStoreReopenedAfterItsRowsWereOnlyJournaledHasThemInSQLite() throws {
        let path = temporaryDatabasePath()
        do {
            let store = try Store(path: path)
            store.logPlacement("journaled_only", at: Date(timeIntervalSince1970: 1), params: [:])
            try store.commitPendingWrites()
            // The store is dropped here; its last transfer may or may not have run, and the
            // reopened store must have the row either way, once.
        }
        let reopened = try Store(path: path)
        #expect(try reopened.placementNames().filter { $0 == "journaled_only" }.count == 1)
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

    /// Polls on a thread of its own: a task of the suites' cooperative pool may not resume for
    /// seconds while other suites run, and a blocked thread of the pool would hold them back.
    @Test func theWorkerLeavesLessThanAFullStepForTheCommitTimerAndThenTransfersIt() async throws {
        // A timer long enough that no poll, however loaded the machine, misses its wait.
        let store = try Store(path: temporaryDatabasePath(), commitDelay: .seconds(2))
        // Under the backlog limit (2,048) the worker steps while a full step (64 rows) is
        // journaled: 500 rows leave 52 for the timer.
        for index in 0..<500 {
            store.logPlacement("p\(index)", at: Date(timeIntervalSince1970: Double(index)), params: [:])
        }
        try store.commitPendingWrites()
        let unwritten = await onAThreadOfItsOwn { () -> [Int] in
            let deadline = ContinuousClock.now + expectationTimeout
            while store.unwrittenCount > 52, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.000_5) }
            let leftForTheTimer = store.unwrittenCount
            Thread.sleep(forTimeInterval: 0.2)
            let beforeTheTimer = store.unwrittenCount
            while store.unwrittenCount > 0, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
            return [leftForTheTimer, beforeTheTimer, store.unwrittenCount]
        }
        #expect(unwritten == [52, 52, 0])
        #expect(try store.placementNames().count >= 500)
    }

    /// The event queue's bound check counts what waits to go out without moving it into
    /// SQLite (that is the worker's job, at idle priority): rows committed, journaled and only
    /// accepted, each counted once, those that are not events not at all.
    @Test func countingTheQueuedEventsMovesNothingIntoSQLite() throws {
        let store = try Store(path: temporaryDatabasePath(), commitDelay: .seconds(600), worker: .sharingTheCallsCPU)
        func log(_ name: String, queued: Bool) {
            store.logPlacement(
                name,
                at: Date(timeIntervalSince1970: 1),
                paramsJSON: Array("{}".utf8),
                eventId: UUID(),
                queued: queued
            )
        }
        log("committed", queued: true)
        log("committed, not an event", queued: false)
        #expect(try store.outgoingEvents(after: 0, limit: 1).count == 1)
        #expect(store.unwrittenCount == 0)
        log("journaled", queued: true)
        log("journaled, not an event", queued: false)
        try store.commitPendingWrites()
        log("accepted", queued: true)
        #expect(store.unwrittenCount == 3)

        #expect(try store.outgoingEventCount(after: 0) == 3)
        #expect(store.unwrittenCount == 3, "the count moved nothing")
        #expect(try store.outgoingEvents(after: 0, limit: 10).count == 3)
        #expect(try store.outgoingEventCount(after: 0) == 3)
    }

    /// On one CPU, under a load that leaves the worker no idle time, a backlog past its limit
    /// is moved into SQLite when the host is next idle, and one past its ceiling by the call
    /// that finds it, before it returns. The timer's delay is one no test waits out.
    @Test func aBacklogPastItsLimitIsMovedWhenTheHostIsIdleAndPastItsCeilingByTheCall() throws {
        let store = try Store(path: temporaryDatabasePath(), commitDelay: .seconds(600), worker: .sharingTheCallsCPU)
        func log(_ count: Int) throws {
            for _ in 0..<count { store.logPlacement("p", at: Date(timeIntervalSince1970: 1), params: [:]) }
            try store.commitPendingWrites()
        }
        try log(Store.backlogLimit)
        store.moveBacklogIfAsked()
        #expect(store.unwrittenCount == Store.backlogLimit, "at the limit the rows wait for the worker")

        try log(1)
        #expect(store.unwrittenCount == Store.backlogLimit + 1, "the call answers without moving them")
        store.moveBacklogIfAsked()
        #expect(store.unwrittenCount == 0)

        try log(Store.backlogCeiling)
        #expect(store.unwrittenCount == Store.backlogCeiling)
        try log(1)
        #expect(store.unwrittenCount == 0, "past the ceiling the call moved them itself")
        #expect(try store.placementNames().count == Store.backlogLimit + Store.backlogCeiling + 2)
    }

    /// Each page given back costs the next append to it a page fault, so pages are given back
    /// by a step of the worker's, which it takes only when the calls are quiet, and not by a call.
    @Test func theJournalGivesItsPagesBackOnlyWhenTheCallsAreQuiet() throws {
        let path = temporaryDatabasePath()
        let store = try Store(path: path, commitDelay: .seconds(600), worker: .sharingTheCallsCPU)
        let params: [String: JSON] = ["padding": .string(String(repeating: "x", count: 200))]
        for index in 0...Store.backlogLimit {
            store.logPlacement("p\(index)", at: Date(timeIntervalSince1970: Double(index)), params: params)
        }
        try store.commitPendingWrites()
        store.moveBacklogIfAsked()
        #expect(store.unwrittenCount == 0)
        let mapping = path + "-placements-0"
        #expect(try residentKilobytes(ofMapping: mapping) > 0, "moving the rows kept the pages")

        #expect(
            !store.transferIsDue(step: Store.transferStep),
            "right after a burst the calls are busy, and a step would share their CPU"
        )
        #expect(try residentKilobytes(ofMapping: mapping) > 0)

        #expect(store.transferIsDue(step: Store.transferStep), "nothing came since")
        _ = try store.backgroundStep(atMost: Store.transferStep)
        #expect(try residentKilobytes(ofMapping: mapping) == 0)
    }

    /// A worker that finds a CPU idle while the calls keep coming steps beside them when the
    /// process may run on more than one; on one, it waits for them to stop.
    @Test func aWorkerWithACPUOfItsOwnStepsWhileTheCallsAreBusy() throws {
        func burst(_ store: Store) throws {
            for _ in 0..<(4 * Store.transferStep) {
                store.logPlacement("p", at: Date(timeIntervalSince1970: 1), params: [:])
            }
            try store.commitPendingWrites()
        }
        let beside = try Store(path: temporaryDatabasePath(), commitDelay: .seconds(600), worker: .besideTheCalls)
        try burst(beside)
        #expect(beside.transferIsDue(step: Store.transferStep))
        let sharing = try Store(path: temporaryDatabasePath(), commitDelay: .seconds(600), worker: .sharingTheCallsCPU)
        try burst(sharing)
        #expect(!sharing.transferIsDue(step: Store.transferStep), "the same burst on one CPU")
    }

    /// With a CPU of its own, the worker moves a backlog past its limit, hurried by the call
    /// that finds it, in one step, without the timer.
    @Test func aBacklogPastItsLimitGoesIntoSQLiteInOneStepOnAnotherCPU() async throws {
        let store = try Store(path: temporaryDatabasePath(), commitDelay: .seconds(600), worker: .besideTheCalls)
        for index in 0...Store.backlogLimit {
            store.logPlacement("p\(index)", at: Date(timeIntervalSince1970: Double(index)), params: [:])
        }
        try store.commitPendingWrites()
        let left = await onAThreadOfItsOwn { () -> Int in
            let deadline = ContinuousClock.now + expectationTimeout
            while store.unwrittenCount > 0, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.000_5) }
            return store.unwrittenCount
        }
        #expect(left == 0)
        #expect(try store.placementNames().count == Store.backlogLimit + 1)
    }

    @Test func theWorkerCheckpointsSoTheWALStaysNearItsMarkHoweverMuchIsWritten() throws {
        let path = temporaryDatabasePath()
        let store = try Store(path: path)
        let params: [String: JSON] = ["padding": .string(String(repeating: "x", count: 2_000))]
        for index in 0..<3_000 {
            store.logPlacement("p\(index)", at: Date(timeIntervalSince1970: Double(index)), params: params)
            try store.commitPendingWrites()
        }
        // The worker's steps, taken here for what it has not moved yet: it runs only when a CPU
        // is idle, and beside four busy loops none is for as long as they run. (Other tests
        // show that it steps when one is.)
        while try store.backgroundStep(atMost: Store.transferStep) {}
        try store.transferPendingWrites()
        #expect(store.unwrittenCount == 0)
        #expect(try store.placementNames().count == 3_000)
        // 6 MB went through the WAL; a checkpoint every megabyte lets SQLite reuse it from its
        // start. The worker waits at idle priority, so on a loaded machine it answers late and the
        // WAL runs past its mark (3.4 MB seen beside two busy loops); never checkpointed it would
        // hold all 6 MB.
        let walSize = try #require(try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int)
        #expect(walSize < 9 << 19)
    }

    // MARK: Hostile faults

    @Test func aRecordWithAValidChecksumAndAnImpossibleSequenceNumberIsRejectedAndNamed() throws {
        let path = temporaryDatabasePath()
        do {
            let journal = try PlacementJournal(besideDatabaseAt: path, capacity: 4096)
            #expect(journal.append([row("crafted", 1)], from: 1 << 63, transferred: 0) == .appended)
        }
        let recovery = try PlacementJournal(besideDatabaseAt: path, capacity: 4096).recover()
        #expect(recovery.records.isEmpty)
        #expect(recovery.rejected.count == 1)
        #expect(recovery.rejected.first?.contains("sequence number 9223372036854775808") == true)
    }

    /// A record past any sequence number the journal hands out trapped in the store's
    /// recovery arithmetic, so no start could get past it.
    @Test func aStoreOpensOverACraftedJournalRecordAndReportsIt() throws {
        let path = temporaryDatabasePath()
        do {
            let journal = try PlacementJournal(besideDatabaseAt: path)
            #expect(journal.append([row("crafted", 1)], from: UInt64.max, transferred: 0) == .appended)
        }
        let store = try Store(path: path)
        #expect(try store.placementNames().isEmpty)
        #expect(store.problemsFound.count == 1)
        #expect(store.problemsFound.first?.contains("not valid") == true)
        store.logPlacement("after", at: Date(timeIntervalSince1970: 2), params: [:])
        try store.commitPendingWrites()
        #expect(try store.placementNames() == ["after"])
    }

    @Test func aFileCutShortUnderTheMappingIsDamageNotASignal() throws {
        let path = temporaryDatabasePath()
        let journal = try PlacementJournal(besideDatabaseAt: path, capacity: 64 << 10)
        #expect(journal.append([row("a", 1)], from: 1, transferred: 0) == .appended)
        #expect(truncate(path + "-placements-0", 0) == 0)
        #expect(journal.append([row("b", 2)], from: 2, transferred: 0) == .damaged)
        #expect(journal.damage != nil)
        #expect(journal.append([row("c", 3)], from: 2, transferred: 0) == .damaged)
    }

    @Test func aStoreWhoseJournalIsCutShortCommitsToSQLiteAndSaysSo() throws {
        let path = temporaryDatabasePath()
        let store = try Store(path: path)
        store.logPlacement("before", at: Date(timeIntervalSince1970: 1), params: [:])
        try store.commitPendingWrites()
        #expect(truncate(path + "-placements-0", 0) == 0)
        #expect(truncate(path + "-placements-1", 0) == 0)
        store.logPlacement("after", at: Date(timeIntervalSince1970: 2), params: [:])
        try store.commitPendingWrites()
        #expect(store.unwrittenCount == 0)
        #expect(try store.placementNames() == ["before", "after"])
        #expect(store.problemsFound.count == 1)
    }

    /// A journal costs the disk what it holds: its first file's first step is reserved when
    /// it opens (a full disk is found then), and a file grows a step ahead of its records, so
    /// no record is written into a block that was not reserved for it.
    @Test func theJournalsBlocksAreReservedAStepAheadOfItsRecords() throws {
        let path = temporaryDatabasePath()
        let step = PlacementJournal.reservationStep
        let journal = try PlacementJournal(besideDatabaseAt: path, capacity: 1 << 20)
        func allocated(_ index: Int) -> Int {
            var status = stat()
            guard stat(path + "-placements-\(index)", &status) == 0 else { return -1 }
            #expect(status.st_mode & 0o777 == 0o600)
            return Int(status.st_blocks) * 512
        }
        #expect(allocated(0) >= step && allocated(0) < 2 * step)
        #expect(allocated(1) == 0)
        let row = PlacementRow(
            name: "p",
            createdAtMs: 1,
            params: Array(repeating: 120, count: 1_000),
            eventId: nil,
            queued: false
        )
        for sequence in 1...100 {
            #expect(journal.append([row], from: UInt64(sequence), transferred: 0) == .appended)
        }
        let written = 100 * (8 + 41 + 1 + 1_000)
        #expect(allocated(0) >= written + step && allocated(0) <= written + 2 * step)
        #expect(try PlacementJournal(besideDatabaseAt: path, capacity: 1 << 20).recover().records.count == 100)
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
}
