import Foundation
import GRDB
import Logging
import GRDBSQLite
import DequeModule
import Synchronization

/// A placement-log row as accepted, before its insert.
struct PlacementRow: Equatable {
    let name: String
    let createdAtMs: Double
    /// The params, as a JSON object's UTF-8 text.
    let params: [UInt8]
    let eventId: UUID?
    let queued: Bool
}

/// Everything the core persists, in one SQLite database (WAL) per data directory.
///
/// Keyed values (identity, attributes, the last config, ...) live in one table with a scope,
/// so that `reset()` is one statement; the placement log is a table of its own, because
/// audience rules query it by name and time.
public final class Store: Sendable {
    /// Internal only so that tests can make SQLite refuse a write.
    let database: any DatabaseWriter
    /// The statements of the commit every answered request makes, prepared on first use.
    private let commitStatements = Mutex<CommitStatements?>(nil)
    /// Placement-log rows accepted but not yet committed (see `logPlacement`).
    private let unwritten = Mutex(UnwrittenPlacements())
    /// The log's times by name, committed or not: what rules read.
    private let timeline = Mutex(PlacementTimeline())
    /// How long an accepted row may wait for a commit that no reply asks for.
    public static let commitDelay: DispatchTimeInterval = .milliseconds(20)
    private let commitDelay: DispatchTimeInterval

    /// Rows made durable in `journal` and not yet in SQLite come first, in `journaled`; then
    /// rows accepted since the last commit, in `rows`.
    private struct UnwrittenPlacements {
        var journaled = Deque<PlacementJournal.Record>()
        var rows: [PlacementRow] = []
        var commitScheduled = false
        /// The next record's sequence number.
        var nextSequence: UInt64 = 1
        /// Every record up to this one is in SQLite.
        var transferred: UInt64 = 0
        /// Write transactions that took accepted rows not journaled and have not ended yet.
        /// An answer waits for them: its rows may be among theirs.
        var transactionsHoldingRows = 0

        /// True when the commit timer was not running: the caller starts it.
        mutating func claimCommitTimer() -> Bool {
            guard !commitScheduled else { return false }
            commitScheduled = true
            return true
        }
    }
    /// Set by a clean close, cleared by the next write.
    private let isClosedCleanly = Atomic<Bool>(false)
    /// Where an answered call's rows are made durable without a SQLite commit; nil for a
    /// store in memory, which commits them to SQLite.
    private let journal: PlacementJournal?
    /// Moves journaled rows into SQLite, a bounded step at a time, when the CPU is idle.
    private let transfers: IdleWorker?
    /// Asks the worker for the WAL's checkpoints; nil for a store in memory, which has no WAL.
    private let checkpoints: CheckpointRequests?
    /// Says whether the store was closed cleanly; nil in memory.
    private let closeMark: CleanCloseMark?
    /// What a user would want to know of the store's files (damage found when it opened, a
    /// journal gone out of use), each also logged as a warning when found.
    private let problems = Mutex<[String]>([])
    private let journalDamageReported = Mutex(false)
    private static let logger = Logger(label: "superwall.store")
    /// The most journaled rows one step of the transfer inserts.
    private static let transferStep = 64
    /// Journaled rows past which a call hurries the worker: under a load that leaves the CPU
    /// no idle time, a worker at idle priority gets no turn and the files would fill.
    private static let backlogLimit = 512

    /// Opens (creating and migrating as needed) the database file at `path`.
    ///
    /// The data directory's lock already makes this process the file's only user, so SQLite
    /// holds its own lock for the life of the connection (`locking_mode = EXCLUSIVE`): no
    /// file-lock system calls per transaction and no shared-memory index beside the WAL. A
    /// commit in WAL with `synchronous = NORMAL` survives the process being killed (it is in
    /// the kernel's page cache) and loses at most the last commits, never the file, on power loss.
    /// `commitDelay` is for tests that must tell the timer's commits from the others.
    public init(path: String, commitDelay: DispatchTimeInterval = Store.commitDelay) throws {
        self.commitDelay = commitDelay
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA page_size = 8192")
            try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let (database, findings) = try DatabaseOpening.open(at: path, configuration: configuration)
        self.database = database
        closeMark = CleanCloseMark(besideDatabaseAt: path)
        try Self.migrator.migrate(database)
        journal = try PlacementJournal(besideDatabaseAt: path)
        let transferDelay = commitDelay
        let step = Self.transferStep
        let store = WeakStore()
        let transfers = IdleWorker(name: "placement transfers", delay: transferDelay) {
            guard let store = store.value else { return false }
            return (try? store.backgroundStep(atMost: step)) ?? false
        }
        self.transfers = transfers
        let checkpoints = CheckpointRequests(worker: transfers)
        self.checkpoints = checkpoints
        store.value = self
        database.writeWithoutTransaction { checkpoints.install(on: $0) }
        for finding in findings { report(finding) }
        try recoverJournal()
        try loadTimeline()
    }

    /// The worker's step: the commit timer is rearmed, then a checkpoint if one was asked for,
    /// and up to `count` journaled rows go into SQLite; true while a full step's worth is
    /// journaled. Fewer wait for the commit timer: a worker that took whatever was there each
    /// time it found the CPU idle committed a few rows at a time, and every commit writes its
    /// partly filled pages to the WAL again (18 rows and 4.4 pages a commit under callgrind).
    private func backgroundStep(atMost count: Int) throws -> Bool {
        unwritten.withLock { $0.commitScheduled = false }
        if checkpoints?.take() == true {
            try database.writeWithoutTransaction { _ = try $0.checkpoint(.passive) }
        }
        try transferPendingWrites(journaledAtMost: count)
        let (fullStepLeft, startTimer) = unwritten.withLock { unwritten -> (Bool, Bool) in
            let remaining = unwritten.journaled.count
            return (remaining >= count, remaining > 0 && remaining < count && unwritten.claimCommitTimer())
        }
        if startTimer { startCommitTimer() }
        return fullStepLeft
    }

    /// Inserts the rows the journal holds that SQLite does not (those of calls answered
    /// before the last process ended), in their order.
    private func recoverJournal() throws {
        guard let journal else { return }
        let recovery = journal.recover()
        let records = recovery.records
        for rejected in recovery.rejected {
            report("the placement journal holds a record that is not valid (\(rejected)); it and the records after it in its file were skipped")
        }
        // Untrusted like the journal: a mark no journal can have written counts as none.
        let mark = try database.read { db in try Int64.fetchOne(db, sql: Self.transferredQuery) } ?? 0
        let transferred = UInt64(exactly: mark).map { min($0, PlacementJournal.largestSequence) } ?? 0
        let missing = records.filter { $0.sequence > transferred }
        unwritten.withLock { unwritten in
            unwritten.journaled = Deque(missing)
            unwritten.transferred = transferred
            unwritten.nextSequence = max(transferred, records.last?.sequence ?? 0) + 1
        }
        try transferPendingWrites()
    }

    /// Puts every accepted row and every commit into the main database file (a checkpoint
    /// that empties the write-ahead log) and marks the store closed cleanly: the data
    /// directory then holds everything in `superwall.sqlite` alone. At the end of a session.
    /// A failure is reported, not thrown: the session is ending either way.
    /// Closing again with nothing written since does nothing: a process that closed its store
    /// and then removed its directory (`explain`) was warned, at the store's end, that the
    /// files it had just removed could not be closed.
    public func closeCleanly() {
        guard let closeMark else {
            try? transferPendingWrites()
            return
        }
        guard !isClosedCleanly.load(ordering: .acquiring) || unwrittenCount > 0 else { return }
        do {
            try transferPendingWrites()
            try database.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
            try closeMark.write(.closed)
            isClosedCleanly.store(true, ordering: .releasing)
        } catch {
            report("the database could not be closed cleanly (\(error)); its latest commits stay in its write-ahead log")
        }
    }

    /// The problems found with the store's files so far, oldest first.
    public var problemsFound: [String] { problems.withLock { $0 } }

    private func report(_ problem: String) {
        problems.withLock { $0.append(problem) }
        Self.logger.warning("\(problem)")
    }

    /// A private database in memory, for tests and throwaway sessions.
    /// `commitDelay` is for tests that must see rows before the timer commits them.
    public init(commitDelay: DispatchTimeInterval = Store.commitDelay) throws {
        self.commitDelay = commitDelay
        journal = nil
        transfers = nil
        checkpoints = nil
        closeMark = nil
        database = try DatabaseQueue()
        try Self.migrator.migrate(database)
        try loadTimeline()
    }

    private func loadTimeline() throws {
        var loaded = PlacementTimeline()
        try database.read { db in
            let rows = try Row.fetchCursor(db, sql: "SELECT name, createdAtMs FROM placement WHERE forgotten = 0 ORDER BY id")
            while let row = try rows.next() { loaded.insert(row[0], atMs: row[1]) }
        }
        timeline.withLock { $0 = loaded }
    }

    deinit {
        transfers?.stop()
        // SQLite deletes the write-ahead log when the connection closes, after checkpointing
        // it: the mark says so, or the next open would take the log for lost.
        closeCleanly()
        let statements = commitStatements.withLock { $0 }
        database.writeWithoutTransaction { db in
            checkpoints?.uninstall(from: db)
            statements?.finalize()
        }
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "keyedValue") { table in
                table.primaryKey("key", .text)
                table.column("scope", .text).notNull()
                table.column("value", .blob).notNull()
            }
            try db.create(table: "placement") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("name", .text).notNull()
                table.column("createdAtMs", .double).notNull()
                table.column("params", .blob).notNull()
            }
            try db.create(index: "placementByNameAndTime", on: "placement", columns: ["name", "createdAtMs"])
        }
        migrator.registerMigration("v2: occurrences and assignments") { db in
            // An audience's occurrence limit counts these rows by key within its interval.
            try db.create(table: "occurrence") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("key", .text).notNull()
                table.column("createdAtMs", .double).notNull()
            }
            try db.create(index: "occurrenceByKeyAndTime", on: "occurrence", columns: ["key", "createdAtMs"])
            // The user's sticky variant per experiment (SuperwallKit `confirmedAssignments`).
            try db.create(table: "assignment") { table in
                table.primaryKey("experimentId", .text)
                table.column("variantId", .text).notNull()
                table.column("variantKind", .text).notNull()
                table.column("paywallIdentifier", .text)
                table.column("isSentToServer", .boolean).notNull().defaults(to: false)
            }
        }
        migrator.registerMigration("v3: logs without AUTOINCREMENT") { db in
            // AUTOINCREMENT's counter is one more page written by every commit; the rowid alone
            // is increasing as the logs need (rows are only deleted by a reset).
            try db.execute(sql: """
                CREATE TABLE placement_v3 (id INTEGER PRIMARY KEY, name TEXT NOT NULL, createdAtMs DOUBLE NOT NULL, params BLOB NOT NULL);
                INSERT INTO placement_v3 SELECT id, name, createdAtMs, params FROM placement;
                DROP TABLE placement;
                ALTER TABLE placement_v3 RENAME TO placement;
                CREATE INDEX placementByNameAndTime ON placement (name, createdAtMs);
                CREATE TABLE occurrence_v3 (id INTEGER PRIMARY KEY, key TEXT NOT NULL, createdAtMs DOUBLE NOT NULL);
                INSERT INTO occurrence_v3 SELECT id, key, createdAtMs FROM occurrence;
                DROP TABLE occurrence;
                ALTER TABLE occurrence_v3 RENAME TO occurrence;
                CREATE INDEX occurrenceByKeyAndTime ON occurrence (key, createdAtMs);
                """)
        }
        migrator.registerMigration("v4: the placement log's times in memory") { db in
            // `PlacementTimeline` answers by name and time; the index only cost writes.
            try db.execute(sql: "DROP INDEX placementByNameAndTime")
        }
        migrator.registerMigration("v5: the placement log is the outgoing event queue") { db in
            // Events go out in id order from a persisted cursor, so the log is append-only: a
            // reset marks rows forgotten instead of deleting them (a deleted last row would let
            // SQLite hand its id out again, behind the cursor).
            try db.execute(sql: """
                ALTER TABLE placement ADD COLUMN eventId TEXT;
                ALTER TABLE placement ADD COLUMN queued INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE placement ADD COLUMN forgotten INTEGER NOT NULL DEFAULT 0;
                """)
        }
        migrator.registerMigration("v6: the cached config as its bytes") { db in
            // It was a JSON string holding the config's text; `document(_:)` reads the text
            // itself, a chunk at a time.
            try db.execute(sql: """
                UPDATE keyedValue SET value = CAST(json_extract(CAST(value AS TEXT), '$') AS BLOB)
                WHERE key = 'lastConfig' AND json_valid(CAST(value AS TEXT)) AND json_type(CAST(value AS TEXT)) = 'text'
                """)
        }
        return migrator
    }

    // MARK: Keyed values

    public func value<Value>(_ key: StorageKey<Value>) throws -> Value? {
        let data = try database.read { db in
            try Data.fetchOne(db, sql: "SELECT value FROM keyedValue WHERE key = ?", arguments: [key.name])
        }
        guard let data else { return nil }
        return try JSONDecoder().decode(Value.self, from: data)
    }

    public func set<Value>(_ value: Value, for key: StorageKey<Value>) throws {
        try changing { try $0.set(value, for: key) }
    }

    public func remove<Value>(_ key: StorageKey<Value>) throws {
        try changing { try $0.remove(key) }
    }

    public func remove(_ key: DocumentKey) throws {
        try changing { try $0.remove(named: key.name) }
    }

    /// Changes that reach the disk together: after a crash at any moment, the database holds
    /// all of them or none (switching users is one of these).
    public final class Changes {
        fileprivate let db: Database
        fileprivate var resetsUser = false

        fileprivate init(_ db: Database) { self.db = db }

        public func set<Value>(_ value: Value, for key: StorageKey<Value>) throws {
            try db.execute(
                sql: "INSERT INTO keyedValue (key, scope, value) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [key.name, key.scope.rawValue, try JSONEncoder().encode(value)])
        }

        public func remove<Value>(_ key: StorageKey<Value>) throws {
            try remove(named: key.name)
        }

        fileprivate func remove(named name: String) throws {
            try db.execute(sql: "DELETE FROM keyedValue WHERE key = ?", arguments: [name])
        }

        /// What SuperwallKit's storage reset does: the user's values, assignments and
        /// occurrences go, and the placement log keeps only the install's own history
        /// (`app_install`, `app_launch`).
        public func resetUser() throws {
            try db.execute(sql: "DELETE FROM keyedValue WHERE scope = ?", arguments: [StorageKey<Bool>.Scope.user.rawValue])
            try db.execute(sql: "UPDATE placement SET forgotten = 1 WHERE forgotten = 0 AND name NOT IN \(Store.installHistorySQL)")
            try db.execute(sql: "DELETE FROM occurrence")
            try db.execute(sql: "DELETE FROM assignment")
            resetsUser = true
        }

        /// Replaces every stored assignment with `assignments`.
        public func replaceAssignments(with assignments: [Assignment]) throws {
            try db.execute(sql: "DELETE FROM assignment")
            try Store.upsert(assignments, in: db)
        }
    }

    /// Makes `body`'s changes in one transaction (see `Changes`).
    public func changing(_ body: (Changes) throws -> Void) throws {
        let resetsUser = try write { db in
            let changes = Changes(db)
            try body(changes)
            return changes.resetsUser
        }
        if resetsUser { timeline.withLock { $0.keepOnly(Self.installHistory) } }
    }

    /// The placement log's rows a reset keeps.
    private static let installHistory: Set<String> = ["app_install", "app_launch"]
    fileprivate static let installHistorySQL = "('app_install', 'app_launch')"

    // MARK: Documents

    /// Stores `bytes` as they are, written into SQLite a chunk at a time (incremental blob
    /// I/O): binding a multi-megabyte config would copy it whole, twice, into SQLite's memory.
    public func setDocument(_ bytes: Data, for key: DocumentKey) throws {
        try write { db in
            try db.execute(
                sql: "INSERT INTO keyedValue (key, scope, value) VALUES (?, ?, zeroblob(?)) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [key.name, key.scope.rawValue, bytes.count])
            guard let row = try Int64.fetchOne(db, sql: "SELECT rowid FROM keyedValue WHERE key = ?", arguments: [key.name]) else { return }
            try Self.withBlob(of: row, writable: true, in: db) { blob in
                try bytes.withUnsafeBytes { raw in
                    var offset = 0
                    while offset < raw.count {
                        let length = min(Self.documentChunk, raw.count - offset)
                        try Self.check(sqlite3_blob_write(blob, raw.baseAddress! + offset, Int32(length), Int32(offset)), in: db)
                        offset += length
                    }
                }
            }
        }
    }

    /// The bytes stored under `key`, read straight into the answer.
    public func document(_ key: DocumentKey) throws -> Data? {
        try database.read { db in
            guard let row = try Int64.fetchOne(db, sql: "SELECT rowid FROM keyedValue WHERE key = ?", arguments: [key.name]) else { return nil }
            return try Self.withBlob(of: row, writable: false, in: db) { blob in
                var bytes = Data(count: Int(sqlite3_blob_bytes(blob)))
                try bytes.withUnsafeMutableBytes { raw in
                    guard let base = raw.baseAddress else { return }
                    try Self.check(sqlite3_blob_read(blob, base, Int32(raw.count), 0), in: db)
                }
                return bytes
            }
        }
    }

    private static let documentChunk = 256 * 1024

    private static func withBlob<T>(of row: Int64, writable: Bool, in db: Database, _ body: (OpaquePointer) throws -> T) throws -> T {
        var blob: OpaquePointer?
        try check(sqlite3_blob_open(db.sqliteConnection, "main", "keyedValue", "value", row, writable ? 1 : 0, &blob), in: db)
        defer { sqlite3_blob_close(blob) }
        return try body(blob!)
    }

    /// Throws SQLite's error unless its own API answered `expected`.
    fileprivate static func check(_ code: Int32, is expected: Int32 = SQLITE_OK, in db: Database) throws {
        guard code == expected else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
        }
    }

    // MARK: Placement log

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
        let row = PlacementRow(name: name, createdAtMs: time.timeIntervalSince1970 * 1000, params: paramsJSON, eventId: eventId, queued: queued)
        timeline.withLock { $0.insert(name, atMs: row.createdAtMs) }
        let startTimer = unwritten.withLock { unwritten -> Bool in
            unwritten.rows.append(row)
            return unwritten.claimCommitTimer()
        }
        if startTimer { startCommitTimer() }
    }

    /// The commit timer, claimed by `claimCommitTimer()`: the rows accepted by the time it
    /// fires are committed then, by the worker for a store on disk.
    private func startCommitTimer() {
        if let transfers {
            transfers.signal()
        } else {
            DispatchQueue.global().asyncAfter(deadline: .now() + commitDelay) { [weak self] in
                guard let self else { return }
                self.unwritten.withLock { $0.commitScheduled = false }
                try? self.transferPendingWrites()
            }
        }
    }

    /// How many accepted rows are not yet in SQLite.
    var unwrittenCount: Int { unwritten.withLock { $0.rows.count + $0.journaled.count } }

    /// Makes the accepted rows durable: every answered call does this before its answer.
    ///
    /// With a journal (a store on disk) the rows are copied into it, and the background worker
    /// signalled when they were accepted inserts them into SQLite, off the call's path: a
    /// SQLite commit costs a call several writes, and every megabyte of them a checkpoint. Under
    /// a load that leaves the worker no idle CPU, a call that finds more than `backlogLimit`
    /// rows journaled hurries it: it then runs at normal priority, a step of a fraction of a
    /// millisecond at a time. A store in memory, or a full journal, commits to SQLite.
    public func commitPendingWrites() throws {
        guard let journal else { return try transferPendingWrites() }
        var appended = PlacementJournal.Appended.appended
        var rowsAreInFlight = false
        let backlog = unwritten.withLock { unwritten -> Int? in
            rowsAreInFlight = unwritten.transactionsHoldingRows > 0
            guard !unwritten.rows.isEmpty else { return 0 }
            appended = journal.append(unwritten.rows, from: unwritten.nextSequence, transferred: unwritten.transferred)
            guard appended == .appended else { return nil }
            for row in unwritten.rows {
                unwritten.journaled.append(PlacementJournal.Record(sequence: unwritten.nextSequence, row: row))
                unwritten.nextSequence += 1
            }
            unwritten.rows.removeAll(keepingCapacity: true)
            return unwritten.journaled.count
        }
        guard let backlog else {
            let firstSign = appended == .damaged && journalDamageReported.withLock { reported in
                defer { reported = true }
                return !reported
            }
            if firstSign, let damage = journal.damage {
                report("\(damage); each answer now commits its rows to SQLite instead")
            }
            return try transferPendingWrites()
        }
        if backlog > Self.backlogLimit { transfers?.hurry() }
        // Another write (the event queue's, a setting's) took rows accepted before this call's
        // answer into its transaction: answered before that commits, a crash would lose them.
        // Writes run one at a time, so an empty one behind it returns once it has ended.
        if rowsAreInFlight { database.writeWithoutTransaction { _ in } }
    }

    /// Inserts every row not yet in SQLite, journaled or not, in one transaction.
    ///
    /// Its statements are prepared once: GRDB's `write` parses its `BEGIN` again each time,
    /// and binding through `StatementArguments` cost more than SQLite's own insert.
    /// With `journaledAtMost`, only that many journaled rows (a background step).
    private func transferPendingWrites(journaledAtMost limit: Int? = nil) throws {
        guard unwritten.withLock({ (!$0.rows.isEmpty && limit == nil) || !$0.journaled.isEmpty }) else { return }
        isClosedCleanly.store(false, ordering: .releasing)
        var tookRows = false
        defer { if tookRows { unwritten.withLock { $0.transactionsHoldingRows -= 1 } } }
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
        forget(through: transferred)
    }

    /// After a commit that took the journaled records up to `transferred`.
    private func forget(through transferred: UInt64?) {
        guard let transferred else { return }
        unwritten.withLock { $0.transferred = max($0.transferred, transferred) }
        journal?.discard(through: transferred)
    }

    private func commitStatements(in db: Database) throws -> CommitStatements {
        if let statements = commitStatements.withLock({ $0 }) { return statements }
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
    private func writeUnwritten(
        _ db: Database, with prepared: CommitStatements? = nil, journaledAtMost limit: Int? = nil, tookRows: inout Bool
    ) throws -> UInt64? {
        let (records, rows) = unwritten.withLock { unwritten -> ([PlacementJournal.Record], [PlacementRow]) in
            if let limit {
                let records = Array(unwritten.journaled.prefix(limit))
                unwritten.journaled.removeFirst(records.count)
                return (records, [])
            }
            defer {
                unwritten.journaled.removeAll()
                unwritten.rows.removeAll(keepingCapacity: true)
            }
            if !unwritten.rows.isEmpty, !tookRows {
                tookRows = true
                unwritten.transactionsHoldingRows += 1
            }
            return (Array(unwritten.journaled), unwritten.rows)
        }
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
            unwritten.withLock {
                $0.journaled.prepend(contentsOf: records)
                $0.rows.insert(contentsOf: rows, at: 0)
            }
            throw error
        }
    }

    /// Where the journal's last transferred sequence number is kept, in the same
    /// transaction as the rows.
    fileprivate static let transferredKey = "placementJournal.transferred"
    private static let transferredQuery = "SELECT value FROM keyedValue WHERE key = '\(transferredKey)'"

    /// Binds `row` to the prepared insert and runs it. The values are bound where they lie
    /// (`SQLITE_STATIC`, a nil destructor) for the step alone: SQLite reads bound values only
    /// while it steps, and the next row binds its own before the next step. Copying them
    /// (`SQLITE_TRANSIENT`) cost an allocation and a copy of each value.
    private static func insert(_ row: PlacementRow, with statement: SQLiteStatement, in db: Database) throws {
        sqlite3_reset(statement)
        var name = row.name
        let id = row.eventId?.uuid ?? UUID.nilBytes
        let code = name.withUTF8 { name in
            row.params.withUnsafeBytes { params in
                withUnsafeBytes(of: id) { id in
                    var code = if let text = UnsafeRawPointer(name.baseAddress)?.assumingMemoryBound(to: CChar.self) {
                        sqlite3_bind_text(statement, 1, text, Int32(name.count), nil)
                    } else {
                        sqlite3_bind_text(statement, 1, "", 0, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
                    }
                    if code == SQLITE_OK { code = sqlite3_bind_double(statement, 2, row.createdAtMs) }
                    if code == SQLITE_OK {
                        code = params.isEmpty ? sqlite3_bind_zeroblob(statement, 3, 0) : sqlite3_bind_blob(statement, 3, params.baseAddress, Int32(params.count), nil)
                    }
                    if code == SQLITE_OK {
                        code = row.eventId == nil ? sqlite3_bind_null(statement, 4) : sqlite3_bind_blob(statement, 4, id.baseAddress, Int32(id.count), nil)
                    }
                    if code == SQLITE_OK { code = sqlite3_bind_int(statement, 5, row.queued ? 1 : 0) }
                    return code == SQLITE_OK ? sqlite3_step(statement) : code
                }
            }
        }
        try Self.check(code, is: SQLITE_DONE, in: db)
    }

    /// A write transaction that first commits the accepted rows, keeping their order.
    private func write<T>(_ updates: (Database) throws -> T) throws -> T {
        isClosedCleanly.store(false, ordering: .releasing)
        var transferred: UInt64?
        var tookRows = false
        defer { if tookRows { unwritten.withLock { $0.transactionsHoldingRows -= 1 } } }
        let result = try database.write { db in
            transferred = try writeUnwritten(db, tookRows: &tookRows)
            return try updates(db)
        }
        forget(through: transferred)
        return result
    }

    /// When `name` last happened at or before `time`, accepted rows included.
    public func lastPlacement(named name: String, before time: Date) throws -> Date? {
        timeline.withLock { $0.last(named: name, atOrBefore: time.timeIntervalSince1970 * 1000) }
            .map { Date(timeIntervalSince1970: $0 / 1000) }
    }

    /// How often `name` happened in `[since, until]`; all of its history when `since` is nil.
    public func placementCount(named name: String, since: Date?, until: Date) throws -> Int {
        timeline.withLock {
            $0.count(named: name, from: (since?.timeIntervalSince1970 ?? -.infinity) * 1000, to: until.timeIntervalSince1970 * 1000)
        }
    }

    /// The names logged, oldest first (for tests and diagnostics): a read of the table, so the
    /// accepted rows are committed first.
    public func placementNames() throws -> [String] {
        try transferPendingWrites()
        return try database.read { db in try String.fetchAll(db, sql: "SELECT name FROM placement WHERE forgotten = 0 ORDER BY id") }
    }

    // MARK: Occurrences

    public func recordOccurrence(key: String, at time: Date) throws {
        try write { db in
            try db.execute(sql: "INSERT INTO occurrence (key, createdAtMs) VALUES (?, ?)", arguments: [key, time.timeIntervalSince1970 * 1000])
        }
    }

    /// How many occurrences of `key` were recorded since `since` (ever, when nil).
    public func occurrenceCount(key: String, since: Date?) throws -> Int {
        try database.read { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM occurrence WHERE key = ? AND createdAtMs >= ?",
                arguments: [key, (since?.timeIntervalSince1970 ?? -.infinity) * 1000]) ?? 0
        }
    }

    // MARK: Assignments

    /// One experiment's variant for this user, and whether the server has been told.
    public struct Assignment: Sendable, Equatable {
        public var experimentId: String
        public var variant: Variant
        public var isSentToServer: Bool

        public init(experimentId: String, variant: Variant, isSentToServer: Bool) {
            self.experimentId = experimentId
            self.variant = variant
            self.isSentToServer = isSentToServer
        }
    }

    public func save(_ assignment: Assignment) throws {
        try write { db in try Self.upsert([assignment], in: db) }
    }

    /// Replaces every stored assignment with `assignments`, in one transaction.
    public func replaceAssignments(with assignments: [Assignment]) throws {
        try changing { try $0.replaceAssignments(with: assignments) }
    }

    /// Inserts or replaces each of `assignments` through SQLite's own calls: a `configure`
    /// stores thousands, and GRDB's argument handling costs several times SQLite's own work
    /// per row.
    fileprivate static func upsert(_ assignments: [Assignment], in db: Database) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO assignment (experimentId, variantId, variantKind, paywallIdentifier, isSentToServer) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(experimentId) DO UPDATE SET variantId = excluded.variantId, variantKind = excluded.variantKind,
            paywallIdentifier = excluded.paywallIdentifier, isSentToServer = excluded.isSentToServer
            """).sqliteStatement
        defer { sqlite3_reset(statement) }
        for assignment in assignments {
            sqlite3_reset(statement)
            var code = bind(assignment.experimentId, at: 1, of: statement)
            if code == SQLITE_OK { code = bind(assignment.variant.id, at: 2, of: statement) }
            if code == SQLITE_OK { code = bind(assignment.variant.kind.rawValue, at: 3, of: statement) }
            if code == SQLITE_OK { code = bind(assignment.variant.paywallIdentifier, at: 4, of: statement) }
            if code == SQLITE_OK { code = sqlite3_bind_int(statement, 5, assignment.isSentToServer ? 1 : 0) }
            if code == SQLITE_OK { code = sqlite3_step(statement) }
            try check(code, is: SQLITE_DONE, in: db)
        }
    }

    /// Binds `text`, or NULL, to parameter `index` of `statement`; SQLite copies the text.
    private static func bind(_ text: String?, at index: Int32, of statement: SQLiteStatement) -> Int32 {
        guard let text else { return sqlite3_bind_null(statement, index) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        return text.utf8.withContiguousStorageIfAvailable { bytes in
            sqlite3_bind_text(statement, index, bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }, Int32(bytes.count), transient)
        } ?? sqlite3_bind_text(statement, index, text, -1, transient)
    }

    public func assignments() throws -> [Assignment] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM assignment ORDER BY experimentId").map { row in
                Assignment(
                    experimentId: row["experimentId"],
                    variant: Variant(id: row["variantId"], kind: Variant.Kind(rawValue: row["variantKind"]) ?? .treatment,
                                     percentage: 0, paywallIdentifier: row["paywallIdentifier"]),
                    isSentToServer: row["isSentToServer"])
            }
        }
    }

    // MARK: Reset

    /// What SuperwallKit's storage reset does: the user's values, assignments and occurrences
    /// go, and the placement log keeps only the install's own history (`app_install`,
    /// `app_launch`).
    public func resetUser() throws {
        try changing { try $0.resetUser() }
    }

    // MARK: The outgoing event queue

    /// An event row as the collector takes it: `{event_id, event_name, parameters, created_at}`.
    public struct OutgoingEvent: Sendable, Equatable {
        /// Its place in the queue.
        public var position: Int64
        /// The row's JSON text.
        public var json: String
    }

    /// Up to `limit` queued events after `position`, oldest first. Accepted rows are committed
    /// first, so nothing accepted is passed over.
    public func outgoingEvents(after position: Int64, limit: Int) throws -> [OutgoingEvent] {
        try transferPendingWrites()
        return try database.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT id, eventId, name, createdAtMs, params FROM placement
                WHERE id > ? AND queued = 1 ORDER BY id LIMIT ?
                """, arguments: [position, limit])
            return rows.map { row in
                let name: String = row["name"]
                let params: Data = row["params"]
                let eventId = (row["eventId"] as Data?).map(Self.uuidText) ?? ""
                let createdAt = ISO8601.string(from: Date(timeIntervalSince1970: (row["createdAtMs"] as Double) / 1000))
                var json = #"{"event_id":"# + JSON.string(eventId).jsonText + #","event_name":"# + JSON.string(name).jsonText
                json += #","parameters":"# + String(decoding: params, as: UTF8.self) + #","created_at":"# + JSON.string(createdAt).jsonText + "}"
                return OutgoingEvent(position: row["id"], json: json)
            }
        }
    }

    /// The text of a UUID's 16 bytes, as SuperwallKit sends `event_id` (`uuidString`).
    private static func uuidText(_ bytes: Data) -> String {
        guard bytes.count == 16 else { return "" }
        var tuple = UUID.nilBytes
        withUnsafeMutableBytes(of: &tuple) { $0.copyBytes(from: bytes) }
        return UUID(uuid: tuple).text
    }

    /// How many queued events wait after `position`.
    public func outgoingEventCount(after position: Int64) throws -> Int {
        try transferPendingWrites()
        return try database.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM placement WHERE id > ? AND queued = 1", arguments: [position]) ?? 0
        }
    }

    /// The position of the `count`th queued event after `position`, if so many wait.
    public func outgoingPosition(after position: Int64, skipping count: Int) throws -> Int64? {
        try transferPendingWrites()
        return try database.read { db in
            try Int64.fetchOne(db, sql: "SELECT id FROM placement WHERE id > ? AND queued = 1 ORDER BY id LIMIT 1 OFFSET ?",
                               arguments: [position, count - 1])
        }
    }

    /// The position that leaves the newest `count` queued events after it.
    public func outgoingPosition(keepingNewest count: Int) throws -> Int64? {
        try database.read { db in
            try Int64.fetchOne(db, sql: "SELECT id FROM placement WHERE queued = 1 ORDER BY id DESC LIMIT 1 OFFSET ?", arguments: [count])
        }
    }
}

/// `BEGIN IMMEDIATE`, `COMMIT` and the placement insert, prepared once on the writer's
/// connection and run with SQLite's own calls, with the journal's mark: a transfer commits
/// every few dozen rows, and GRDB's statement cache and its bookkeeping around each statement
/// cost 7k instructions a commit.
/// Used only inside the writer's queue; finalized before the connection closes.
private final class CommitStatements: @unchecked Sendable {
    let begin: OpaquePointer
    let commit: OpaquePointer
    let insert: OpaquePointer
    let setTransferred: OpaquePointer

    init(_ db: Database) throws {
        func prepare(_ sql: String) throws -> OpaquePointer {
            var statement: OpaquePointer?
            let code = sqlite3_prepare_v3(db.sqliteConnection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
            try Store.check(code, in: db)
            guard let statement else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "no statement for \(sql)") }
            return statement
        }
        begin = try prepare("BEGIN IMMEDIATE TRANSACTION")
        commit = try prepare("COMMIT TRANSACTION")
        insert = try prepare("INSERT INTO placement (name, createdAtMs, params, eventId, queued) VALUES (?, ?, ?, ?, ?)")
        setTransferred = try prepare("""
            INSERT INTO keyedValue (key, scope, value) VALUES ('\(Store.transferredKey)', 'app', ?)
            ON CONFLICT(key) DO UPDATE SET value = excluded.value
            """)
    }

    func run(_ statement: OpaquePointer, in db: Database) throws {
        let code = sqlite3_step(statement)
        sqlite3_reset(statement)
        try Store.check(code, is: SQLITE_DONE, in: db)
    }

    func finalize() {
        for statement in [begin, commit, insert, setTransferred] { sqlite3_finalize(statement) }
    }
}

/// The store as its background worker sees it: not kept alive by it.
private final class WeakStore: @unchecked Sendable {
    weak var value: Store?
}

