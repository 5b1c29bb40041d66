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

/// The placement log: rows accepted at once, committed to SQLite before the call that
/// tracked them is answered.
extension Store {
    /// Inserts the rows an earlier version's journal holds that SQLite does not (those of
    /// calls it answered before its process was killed), in their order, then removes the
    /// journal's files (`LegacyPlacementJournal`). The rows and the mark of the last one go in
    /// one transaction, so a crash before the files are gone inserts none of them twice.
    func recoverLegacyJournal(besideDatabaseAt databasePath: String) throws {
        let paths = LegacyPlacementJournal.paths(besideDatabaseAt: databasePath)
        guard paths.contains(where: { access($0, F_OK) == 0 }) else { return }
        let recovery = LegacyPlacementJournal.read(paths)
        for rejected in recovery.rejected {
            report(
                "the placement journal of an earlier version holds a record that is not valid (\(rejected)); it and the records after it in its file were skipped"
            )
        }
        let query = "SELECT value FROM keyedValue WHERE key = ?"
        let key = LegacyPlacementJournal.transferredKey
        // Untrusted like the journal: a mark no journal can have written counts as none.
        let mark = try database.read { db in try Int64.fetchOne(db, sql: query, arguments: [key]) } ?? 0
        let transferred = UInt64(exactly: mark).map { min($0, LegacyPlacementJournal.largestSequence) } ?? 0
        let missing = recovery.records.filter { $0.sequence > transferred }
        if let last = missing.last {
            try write { db in
                let statements = try commitStatements(in: db)
                defer { sqlite3_reset(statements.insert) }
                for record in missing { try Self.insert(record.row, with: statements.insert, in: db) }
                try db.execute(
                    sql: """
                        INSERT INTO keyedValue (key, scope, value) VALUES (?, 'app', ?)
                        ON CONFLICT(key) DO UPDATE SET value = excluded.value
                        """,
                    arguments: [key, Int64(last.sequence)]
                )
            }
            Self.logger.notice(
                "\(missing.count) placement rows an earlier version answered for were moved from its journal into the database"
            )
        }
        for path in paths where unlink(path) != 0 && errno != ENOENT {
            let reason = String(cString: strerror(errno))
            report("the placement journal of an earlier version, \(path), could not be removed: \(reason)")
            return
        }
        try write { db in try db.execute(sql: "DELETE FROM keyedValue WHERE key = ?", arguments: [key]) }
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
        timeline.withLock { $0 = loaded }
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
        timeline.withLock { $0.insert(name, atMs: row.createdAtMs) }
        let startTimer = unwritten.withLock { unwritten -> Bool in
            unwritten.rows.append(row)
            return unwritten.claimCommitTimer()
        }
        if startTimer { startCommitTimer() }
    }

    /// The commit timer, claimed by `claimCommitTimer()`: the rows accepted by the time it
    /// fires are committed then.
    func startCommitTimer() {
        DispatchQueue.global().asyncAfter(deadline: .now() + commitDelay) { [weak self] in
            guard let self else { return }
            self.unwritten.withLock { $0.commitScheduled = false }
            try? self.transferPendingWrites()
        }
    }

    /// How many accepted rows are not yet in SQLite.
    var unwrittenCount: Int { unwritten.withLock { $0.rows.count } }

    /// Makes the accepted rows durable: every answered call does this before its answer, in
    /// one SQLite commit (a commit in WAL with `synchronous = NORMAL` writes the WAL and does
    /// not sync, so it survives the process being killed).
    public func commitPendingWrites() throws {
        let rowsAreInFlight = unwritten.withLock { $0.transactionsHoldingRows > 0 }
        try transferPendingWrites()
        // Another write (the event queue's, a setting's) took rows accepted before this call's
        // answer into its transaction: answered before that commits, a crash would lose them.
        // Writes run one at a time, so an empty one behind it returns once it has ended.
        if rowsAreInFlight { try database.writeWithoutTransaction { _ in } }
    }

    /// A passive checkpoint, asked for by the WAL hook (`BackgroundCheckpoints`), on its queue.
    /// A failure is logged: the commits stay in the WAL, and the next checkpoint takes them.
    func checkpointInBackground() {
        do {
            try database.writeWithoutTransaction { db in
                guard !isClosed.load(ordering: .acquiring) else { return }
                _ = try db.checkpoint(.passive)
            }
        } catch StoreFault.closed {
        } catch {
            Self.logger.warning("the write-ahead log could not be checkpointed yet (\(error)); its commits stay in it")
        }
    }

    /// Inserts every row not yet in SQLite in one transaction.
    ///
    /// Its statements are prepared once: GRDB's `write` parses its `BEGIN` again each time,
    /// and binding through `StatementArguments` cost more than SQLite's own insert.
    func transferPendingWrites() throws {
        guard unwritten.withLock({ !$0.rows.isEmpty }) else { return }
        isClosedCleanly.store(false, ordering: .releasing)
        var tookRows = false
        defer { if tookRows { unwritten.withLock { $0.transactionsHoldingRows -= 1 } } }
        try database.writeWithoutTransaction { db in
            let statements = try commitStatements(in: db)
            try statements.run(statements.begin, in: db)
            do {
                try writeUnwritten(db, with: statements, tookRows: &tookRows)
                try statements.run(statements.commit, in: db)
            } catch {
                if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK TRANSACTION") }
                throw error
            }
        }
    }

    func commitStatements(in db: Database) throws -> CommitStatements {
        if let statements = commitStatements.withLock({ $0 }) { return statements }
        guard !isClosed.load(ordering: .acquiring) else { throw StoreFault.closed }
        let statements = try CommitStatements(db)
        commitStatements.withLock { $0 = statements }
        return statements
    }

    /// Inserts the accepted rows in `db`'s transaction. They are taken inside the
    /// transaction, so rows are committed in the order they were accepted whichever thread
    /// commits; if the insert fails they are put back for the next commit.
    ///
    /// `tookRows` is set when it took rows: the caller's transaction then holds the only copy
    /// of them, and counts in `transactionsHoldingRows` until it ends (the caller takes it off).
    func writeUnwritten(_ db: Database, with prepared: CommitStatements? = nil, tookRows: inout Bool) throws {
        let rows = unwritten.withLock { unwritten -> [PlacementRow] in
            defer { unwritten.rows.removeAll(keepingCapacity: true) }
            if !unwritten.rows.isEmpty, !tookRows {
                tookRows = true
                unwritten.transactionsHoldingRows += 1
            }
            return unwritten.rows
        }
        guard !rows.isEmpty else { return }
        do {
            let statements = try prepared ?? commitStatements(in: db)
            defer { sqlite3_reset(statements.insert) }
            for row in rows { try Self.insert(row, with: statements.insert, in: db) }
        } catch {
            unwritten.withLock { $0.rows.insert(contentsOf: rows, at: 0) }
            throw error
        }
    }

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
        var tookRows = false
        defer { if tookRows { unwritten.withLock { $0.transactionsHoldingRows -= 1 } } }
        return try database.write { db in
            try writeUnwritten(db, tookRows: &tookRows)
            return try updates(db)
        }
    }

    /// When `name` last happened at or before `time`, accepted rows included.
    public func lastPlacement(named name: String, before time: Date) throws -> Date? {
        timeline.withLock { $0.last(named: name, atOrBefore: time.timeIntervalSince1970 * 1000) }
            .map { Date(timeIntervalSince1970: $0 / 1000) }
    }

    /// How often `name` happened in `[since, until]`; all of its history when `since` is nil.
    public func placementCount(named name: String, since: Date?, until: Date) throws -> Int {
        timeline.withLock {
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
