import Foundation
import GRDB
import GRDBSQLite
import Logging
import Synchronization

/// Everything the core persists, in one SQLite database (WAL) per data directory.
///
/// Keyed values (identity, attributes, the last config, ...) live in one table with a scope,
/// so that `reset()` is one statement; the placement log is a table of its own, because
/// audience rules query it by name and time.
public final class Store: Sendable {
    private let connection: any DatabaseWriter
    /// The database, until `close()`; then every access throws `StoreFault.closed`.
    /// Tests reach it to make SQLite refuse a write.
    var database: any DatabaseWriter {
        get throws {
            guard !isClosed.load(ordering: .acquiring) else { throw StoreFault.closed }
            return connection
        }
    }
    /// Set by `close()`.
    let isClosed = Atomic<Bool>(false)
    /// The statements of the commit every answered request makes, prepared on first use.
    let commitStatements = Mutex<CommitStatements?>(nil)
    /// Placement-log rows accepted but not yet committed (see `logPlacement`).
    let unwritten = Mutex(UnwrittenPlacements())
    /// The log's times by name, committed or not: what rules read.
    let timeline = Mutex(PlacementTimeline())
    /// How long an accepted row may wait for a commit that no reply asks for.
    public static let commitDelay: DispatchTimeInterval = .milliseconds(20)
    let commitDelay: DispatchTimeInterval

    /// Rows accepted since the last commit.
    struct UnwrittenPlacements {
        var rows: [PlacementRow] = []
        var commitScheduled = false
        /// Write transactions that took accepted rows and have not ended yet. An answer waits
        /// for them: its rows may be among theirs.
        var transactionsHoldingRows = 0

        /// True when the commit timer was not running: the caller starts it.
        mutating func claimCommitTimer() -> Bool {
            guard !commitScheduled else { return false }
            commitScheduled = true
            return true
        }
    }
    /// Set by a clean close, cleared by the next write.
    let isClosedCleanly = Atomic<Bool>(false)
    /// Checkpoints the WAL off the calls' path; nil for a store in memory, which has no WAL.
    let checkpoints: BackgroundCheckpoints?
    /// The database's path, which its documents' files extend (`Store+Documents.swift`); nil
    /// in memory.
    let documentsPrefix: String?
    /// Says whether the store was closed cleanly; nil in memory.
    let closeMark: CleanCloseMark?
    /// What a user would want to know of the store's files (damage found when it opened,
    /// rows recovered from an earlier version's journal), each also logged as a warning when found.
    let problems = Mutex<[String]>([])
    static let logger = Logger(label: "superwall.store")

    /// Opens (creating and migrating as needed) the database file at `path`.
    ///
    /// The data directory's lock already makes this process the file's only user, so SQLite
    /// holds its own lock for the life of the connection (`locking_mode = EXCLUSIVE`): no
    /// file-lock system calls per transaction and no shared-memory index beside the WAL. A
    /// commit in WAL with `synchronous = NORMAL` survives the process being killed (it is in
    /// the kernel's page cache) and loses at most the last commits, never the file, on power
    /// loss; every answered call commits its rows so before its answer (`commitPendingWrites`).
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
            try db.execute(sql: "PRAGMA journal_size_limit = \(BackgroundCheckpoints.walSizeLimit)")
        }
        let (database, findings) = try DatabaseOpening.open(at: path, configuration: configuration)
        connection = database
        closeMark = CleanCloseMark(besideDatabaseAt: path)
        documentsPrefix = path
        try Self.migrator.migrate(database)
        let checkpoints = BackgroundCheckpoints()
        self.checkpoints = checkpoints
        connection.writeWithoutTransaction { db in
            checkpoints.install(on: db) { [weak self] in self?.checkpointInBackground() }
        }
        for finding in findings { report(finding) }
        try recoverLegacyJournal(besideDatabaseAt: path)
        try loadTimeline()
    }

    /// Puts every accepted row and every commit into the main database file (a checkpoint
    /// that empties the write-ahead log) and marks the store closed cleanly: the data
    /// directory then holds everything in `superwall.sqlite` and its documents' files. At the
    /// end of a session.
    /// A failure is reported, not thrown: the session is ending either way.
    /// Closing again with nothing written since does nothing: a process that closed its store
    /// and then removed its directory (`explain`) was warned, at the store's end, that the
    /// files it had just removed could not be closed.
    public func closeCleanly() {
        guard !isClosed.load(ordering: .acquiring) else { return }
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
            report(
                "the database could not be closed cleanly (\(error)); its latest commits stay in its write-ahead log"
            )
        }
    }

    /// The problems found with the store's files so far, oldest first.
    public var problemsFound: [String] { problems.withLock { $0 } }

    func report(_ problem: String) {
        problems.withLock { $0.append(problem) }
        Self.logger.warning("\(problem)")
    }

    /// A private database in memory, for tests and throwaway sessions.
    /// `commitDelay` is for tests that must see rows before the timer commits them.
    public init(commitDelay: DispatchTimeInterval = Store.commitDelay) throws {
        self.commitDelay = commitDelay
        checkpoints = nil
        closeMark = nil
        documentsPrefix = nil
        connection = try DatabaseQueue()
        try Self.migrator.migrate(connection)
        try loadTimeline()
    }

    deinit {
        close()
    }

    /// Ends the store for good: its rows go into the main database file (a clean close),
    /// then its SQLite connection closes, so nothing of this store writes to the files any more. Every later call
    /// throws `StoreFault.closed`. The data directory calls it before it lets go of its lock,
    /// so the next session to take the lock is the files' only writer.
    public func close() {
        closeCleanly()
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // SQLite deletes the write-ahead log when the connection closes, after checkpointing
        // it: the clean close's mark says so, or the next open would take the log for lost.
        // The statements are taken inside the write: one running before it may have prepared
        // them, and none after it can (`commitStatements(in:)` refuses a closed store).
        connection.writeWithoutTransaction { db in
            checkpoints?.uninstall(from: db)
            commitStatements.withLock { statements in
                statements?.finalize()
                statements = nil
            }
        }
        do {
            try connection.close()
        } catch {
            report("the database could not be closed (\(error)); its connection closes when the process ends")
        }
    }
}
