import Foundation
import GRDB
import GRDBSQLite

/// A placement-log row as accepted, before its insert.
struct PlacementRow: Equatable {
    let name: String
    let createdAtMs: Double
    /// The params, as a JSON object's UTF-8 text.
    let params: [UInt8]
    let eventId: UUID?
    let queued: Bool
}

/// The placement log's SQLite side: rows accepted at once (`PlacementLog` keeps their books),
/// made durable by the journal before a call is answered, and moved into SQLite in the
/// background.
extension Store {
    /// The worker's step: the commit timer is rearmed, then a checkpoint if one was asked for,
    /// and up to `count` journaled rows go into SQLite; true while a full step's worth is
    /// journaled. Fewer wait for the commit timer: a worker that took whatever was there each
    /// time it found the CPU idle committed a few rows at a time, and every commit writes its
    /// partly filled pages to the WAL again (18 rows and 4.4 pages a commit under callgrind).
    /// A backlog past `backlogLimit` goes in one step, as few commits as can be. The step also
    /// gives back the journal's pages that hold nothing to keep.
    func backgroundStep(atMost count: Int) throws -> Bool {
        let backlog = log.stepStarts()
        try checkpointIfAsked()
        try transferPendingWrites(journaledAtMost: backlog > Self.backlogLimit ? backlog : count)
        let (fullStepLeft, startTimer, transferred) = log.stepEnds(count: count)
        log.journal?.releasePages(through: transferred)
        if startTimer { startCommitTimer() }
        return fullStepLeft
    }

    /// Whether the worker's step is due, asked at idle priority before it takes the database.
    /// When the process may run on one CPU only and more than a `step` of rows came since the
    /// last time it asked, the calls are busy and the step would take the CPU from them (each
    /// step held up the calls around it), so the rows wait for a later run, which the commit
    /// timer asks for, or for the host's idle time past `backlogLimit`. So does a checkpoint
    /// asked for: the backlog's move makes it, or the worker when hurried
    /// (`CheckpointRequests.urgentPages`) or the calls are quiet. With more CPUs a worker that
    /// found one idle steps beside the calls.
    func transferIsDue(step: Int) -> Bool {
        let (callsAreBusy, startTimer) = log.callsAreBusy(step: step)
        if startTimer { startCommitTimer() }
        return !callsAreBusy
    }

    /// Inserts the rows the journal holds that SQLite does not (those of calls answered
    /// before the last process ended), in their order.
    func recoverJournal() throws {
        guard let journal = log.journal else { return }
        let recovery = journal.recover()
        let records = recovery.records
        for rejected in recovery.rejected {
            report(
                "the placement journal holds a record that is not valid (\(rejected)); it and the records after it in its file were skipped"
            )
        }
        // Untrusted like the journal: a mark no journal can have written counts as none.
        let mark = try database.read { db in try Int64.fetchOne(db, sql: Self.transferredQuery) } ?? 0
        let transferred = UInt64(exactly: mark).map { min($0, PlacementJournal.largestSequence) } ?? 0
        let missing = records.filter { $0.sequence > transferred }
        log.recovered(missing, lastInJournal: records.last?.sequence, transferred: transferred)
        try transferPendingWrites()
    }

    func loadTimeline() throws {
        var loaded = PlacementTimeline()
        try database.read { db in
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT name, createdAtMs FROM placement WHERE forgotten = 0 ORDER BY id"
            )
            while let row = try rows.next() { loaded.insert(row[0], atMs: row[1]) }
        }
        log.timeline.withLock { $0 = loaded }
    }

    /// Records that a placement (or event) happened, for `*Since` and `placementsIn*` rules,
    /// which see it at once (`PlacementTimeline`).
    ///
    /// The row is kept until the next commit, so the several events of one call (a `register`
    /// tracks the placement, `trigger_fire` and `paywallPresentationRequest`) share one
    /// transaction. Whoever answers for the call commits before answering
    /// (`commitPendingWrites`); every other write, and every read of the table, commits them
    /// first, so order holds; and a row no reply asks for is committed within `commitDelay`.
    public func logPlacement(_ name: String, at time: Date, params: [String: JSON]) {
        logPlacement(name, at: time, paramsJSON: Array(JSON.object(params).jsonText.utf8))
    }

    /// `logPlacement` with the params already written as a JSON object. A `queued` row is also
    /// an event to send (`outgoingEvents`), under `eventId`, stored as its 16 bytes: the text
    /// form made every row 20 bytes longer, and commits measurably slower.
    func logPlacement(_ name: String, at time: Date, paramsJSON: [UInt8], eventId: UUID? = nil, queued: Bool = false) {
        let row = PlacementRow(
            name: name,
            createdAtMs: time.timeIntervalSince1970 * 1000,
            params: paramsJSON,
            eventId: eventId,
            queued: queued
        )
        if log.accept(row) { startCommitTimer() }
    }

    /// The commit timer, claimed by `claimCommitTimer()`: the rows accepted by the time it
    /// fires are committed then, by the worker for a store on disk.
    func startCommitTimer() {
        if let transfers = log.transfers {
            transfers.signal()
        } else {
            DispatchQueue.global().asyncAfter(deadline: .now() + commitDelay) { [weak self] in
                guard let self else { return }
                self.log.commitTimerFired()
                try? self.transferPendingWrites()
            }
        }
    }

    /// How many accepted rows are not yet in SQLite.
    var unwrittenCount: Int { log.unwrittenCount }

    /// Makes the accepted rows durable: every answered call does this before its answer.
    ///
    /// With a journal (a store on disk) the rows are copied into it, and the background worker
    /// signalled when they were accepted inserts them into SQLite, off the call's path: a
    /// SQLite commit costs a call several writes, and every megabyte of them a checkpoint. Under
    /// a load that leaves the worker no idle CPU, a call that finds more than `backlogLimit`
    /// rows journaled hurries the worker, or on one CPU asks for them to be moved when the host
    /// is next idle; the call that finds more than `backlogCeiling` moves them itself. A store
    /// in memory, or a full journal, commits to SQLite.
    public func commitPendingWrites() throws {
        let (backlog, rowsAreInFlight): (Int, Bool)
        switch log.makeDurable() {
        case .journaled(let journaled, let rowsInFlight):
            (backlog, rowsAreInFlight) = (journaled, rowsInFlight)
        case .refused(let appended):
            if appended == .closed { throw StoreFault.closed }
            if appended == .damaged, log.isFirstSignOfDamage(), let damage = log.journal?.damage {
                report("\(damage); each answer now commits its rows to SQLite instead")
            }
            return try transferPendingWrites()
        }
        if backlog > Self.backlogCeiling {
            moveBacklog()
        } else if backlog > Self.backlogLimit {
            log.askForTheBacklogToMove()
        }
        // Another write (the event queue's, a setting's) took rows accepted before this call's
        // answer into its transaction: answered before that commits, a crash would lose them.
        // Writes run one at a time, so an empty one behind it returns once it has ended.
        if rowsAreInFlight { try database.writeWithoutTransaction { _ in } }
    }

    /// Moves the journaled backlog into SQLite if a call asked for it (see `backlogLimit`).
    public func moveBacklogIfAsked() {
        guard log.takeBacklogMoveRequest() else { return }
        moveBacklog()
    }

    /// Every journaled row into SQLite, then a checkpoint if the WAL asks. The rows are safe in
    /// the journal, so a failure is the worker's to retry, not a call's.
    private func moveBacklog() {
        do {
            try transferPendingWrites()
            try checkpointIfAsked()
        } catch {
            Self.logger.warning(
                "journaled rows could not be moved into SQLite yet (\(error)); they stay in the journal"
            )
        }
    }

    /// A passive checkpoint, if the WAL passed its mark since the last one (`CheckpointRequests`).
    func checkpointIfAsked() throws {
        guard log.checkpoints?.take() == true else { return }
        try database.writeWithoutTransaction { _ = try $0.checkpoint(.passive) }
    }

    /// Inserts every row not yet in SQLite, journaled or not, in one transaction.
    ///
    /// Its statements are prepared once: GRDB's `write` parses its `BEGIN` again each time,
    /// and binding through `StatementArguments` cost more than SQLite's own insert.
    /// With `journaledAtMost`, only that many journaled rows (a background step).
    func transferPendingWrites(journaledAtMost limit: Int? = nil) throws {
        guard log.hasRowsToWrite(journaledOnly: limit != nil) else { return }
        isClosedCleanly.store(false, ordering: .releasing)
        var tookRows = false
        defer { if tookRows { log.transactionEnded() } }
        let transferred = try database.writeWithoutTransaction { db -> UInt64? in
            let statements = try commitStatements(in: db)
            try statements.run(statements.begin, in: db)
            do {
                let transferred = try writeUnwritten(db, with: statements, journaledAtMost: limit, tookRows: &tookRows)
                try statements.run(statements.commit, in: db)
                return transferred
            } catch {
                if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK TRANSACTION") }
                throw error
            }
        }
        log.forget(through: transferred)
    }

    func commitStatements(in db: Database) throws -> CommitStatements {
        if let statements = commitStatements.withLock({ $0 }) { return statements }
        guard !isClosed.load(ordering: .acquiring) else { throw StoreFault.closed }
        let statements = try CommitStatements(db)
        commitStatements.withLock { $0 = statements }
        return statements
    }

    /// Inserts the rows not yet in SQLite in `db`'s transaction, journaled ones first, and
    /// notes the last journaled one's sequence number with them; returns it. They are taken
    /// inside the transaction, so rows are committed in the order they were accepted whichever
    /// thread commits; if the insert fails they are put back for the next commit.
    @discardableResult
    ///
    /// `tookRows` is set when it took rows that were not journaled: the caller's transaction
    /// then holds the only copy of them, and counts in `transactionsHoldingRows` until it ends
    /// (the caller takes it off).
    func writeUnwritten(
        _ db: Database,
        with prepared: CommitStatements? = nil,
        journaledAtMost limit: Int? = nil,
        tookRows: inout Bool
    ) throws -> UInt64? {
        let (records, rows) = log.take(journaledAtMost: limit, tookRows: &tookRows)
        guard !records.isEmpty || !rows.isEmpty else { return nil }
        do {
            let statements = try prepared ?? commitStatements(in: db)
            defer { sqlite3_reset(statements.insert) }
            for record in records { try Self.insert(record.row, with: statements.insert, in: db) }
            for row in rows { try Self.insert(row, with: statements.insert, in: db) }
            guard let last = records.last?.sequence else { return nil }
            let code = sqlite3_bind_int64(statements.setTransferred, 1, Int64(last))
            try Self.check(code, in: db)
            try statements.run(statements.setTransferred, in: db)
            return last
        } catch {
            log.putBack(records, rows)
            throw error
        }
    }

    /// Where the journal's last transferred sequence number is kept, in the same
    /// transaction as the rows.
    static let transferredKey = "placementJournal.transferred"
    static let transferredQuery = "SELECT value FROM keyedValue WHERE key = '\(transferredKey)'"

    /// Binds `row` to the prepared insert and runs it. The values are bound where they lie
    /// (`SQLITE_STATIC`, a nil destructor) for the step alone: SQLite reads bound values only
    /// while it steps, and the next row binds its own before the next step. Copying them
    /// (`SQLITE_TRANSIENT`) cost an allocation and a copy of each value.
    static func insert(_ row: PlacementRow, with statement: SQLiteStatement, in db: Database) throws {
        sqlite3_reset(statement)
        var name = row.name
        let id = row.eventId?.uuid ?? UUID.nilBytes
        let code = name.withUTF8 { name in
            row.params.withUnsafeBytes { params in
                withUnsafeBytes(of: id) { id in
                    var code =
                        if let text = UnsafeRawPointer(name.baseAddress)?.assumingMemoryBound(to: CChar.self) {
                            sqlite3_bind_text(statement, 1, text, Int32(name.count), nil)
                        } else {
                            sqlite3_bind_text(statement, 1, "", 0, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
                        }
                    if code == SQLITE_OK { code = sqlite3_bind_double(statement, 2, row.createdAtMs) }
                    if code == SQLITE_OK {
                        code =
                            params.isEmpty
                            ? sqlite3_bind_zeroblob(statement, 3, 0)
                            : sqlite3_bind_blob(statement, 3, params.baseAddress, Int32(params.count), nil)
                    }
                    if code == SQLITE_OK {
                        code =
                            row.eventId == nil
                            ? sqlite3_bind_null(statement, 4)
                            : sqlite3_bind_blob(statement, 4, id.baseAddress, Int32(id.count), nil)
                    }
                    if code == SQLITE_OK { code = sqlite3_bind_int(statement, 5, row.queued ? 1 : 0) }
                    return code == SQLITE_OK ? sqlite3_step(statement) : code
                }
            }
        }
        try Self.check(code, is: SQLITE_DONE, in: db)
    }

    /// A write transaction that first commits the accepted rows, keeping their order.
    func write<T>(_ updates: (Database) throws -> T) throws -> T {
        isClosedCleanly.store(false, ordering: .releasing)
        var transferred: UInt64?
        var tookRows = false
        defer { if tookRows { log.transactionEnded() } }
        let result = try database.write { db in
            transferred = try writeUnwritten(db, tookRows: &tookRows)
            return try updates(db)
        }
        log.forget(through: transferred)
        return result
    }

    /// When `name` last happened at or before `time`, accepted rows included.
    public func lastPlacement(named name: String, before time: Date) throws -> Date? {
        log.timeline.withLock { $0.last(named: name, atOrBefore: time.timeIntervalSince1970 * 1000) }
            .map { Date(timeIntervalSince1970: $0 / 1000) }
    }

    /// How often `name` happened in `[since, until]`; all of its history when `since` is nil.
    public func placementCount(named name: String, since: Date?, until: Date) throws -> Int {
        log.timeline.withLock {
            $0.count(
                named: name,
                from: (since?.timeIntervalSince1970 ?? -.infinity) * 1000,
                to: until.timeIntervalSince1970 * 1000
            )
        }
    }

    /// The names logged, oldest first (for tests and diagnostics): a read of the table, so the
    /// accepted rows are committed first.
    public func placementNames() throws -> [String] {
        try transferPendingWrites()
        return try database.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM placement WHERE forgotten = 0 ORDER BY id")
        }
    }
}
