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
    private let connection: DatabaseQueue
    /// The database, until `close()`; then every access throws `StoreFault.closed`. A queue:
    /// reads and writes take turns, which `outgoingEventCount` relies on.
    /// Tests reach it to make SQLite refuse a write.
    var database: DatabaseQueue {
        get throws {
            guard !isClosed.load(ordering: .acquiring) else { throw StoreFault.closed }
            return connection
        }
    }
    /// Set by `close()`.
    let isClosed = Atomic<Bool>(false)
    /// The statements of the commit every answered request makes, prepared on first use.
    let commitStatements = Mutex<CommitStatements?>(nil)
    /// The placement log's rows until they are in SQLite, and the times rules read.
    let log: PlacementLog
    /// How long an accepted row may wait for a commit that no reply asks for.
    public static let commitDelay: DispatchTimeInterval = .milliseconds(20)
    let commitDelay: DispatchTimeInterval

    /// Where the worker that moves journaled rows into SQLite runs beside the calls. Told by
    /// whoever runs the store, which knows the machine it runs on: the store reads no scheduler
    /// facts of its own.
    public enum WorkerPlacement: Sendable, Equatable {
        /// On a CPU the calls are not using: it steps beside them, and a backlog past
        /// `backlogLimit` hurries it.
        case besideTheCalls
        /// On the calls' one CPU, where whatever moves rows holds up a call: it waits while
        /// the calls are busy, and a backlog past the limit is moved when the host is next
        /// idle (`moveBacklogIfAsked`).
        case sharingTheCallsCPU
    }

    /// Set by a clean close, cleared by the next write.
    let isClosedCleanly = Atomic<Bool>(false)
    /// The database's path, which its documents' files extend (`Store+Documents.swift`); nil
    /// in memory.
    let documentsPrefix: String?
    /// Says whether the store was closed cleanly; nil in memory.
    let closeMark: CleanCloseMark?
    /// What a user would want to know of the store's files (damage found when it opened, a
    /// journal gone out of use), each also logged as a warning when found.
    let problems = Mutex<[String]>([])
    static let logger = Logger(label: "superwall.store")
    /// The most journaled rows one step of the transfer inserts.
    static let transferStep = 64
    /// Journaled rows past which they are moved into SQLite in one go: under a load that leaves
    /// the CPU no idle time, a worker at idle priority gets no turn and the files would fill.
    /// The call that finds them hurries the worker, which moves them on another CPU; on one CPU
    /// whatever moves them holds up a call, so the call asks for them to be moved when the host
    /// is next idle (`moveBacklogIfAsked`), and one call in two thousand rows waits for all of
    /// them (a few milliseconds, most of it the checkpoint's syncs) rather than the worker
    /// cutting into the calls around it (Benchmarks/README, B9). About a megabyte of the
    /// journal's two.
    static let backlogLimit = 2048
    /// Journaled rows past which the call that finds them moves them itself, before it
    /// answers: the host did not take the work when it was idle, or is never idle.
    static let backlogCeiling = 2 * backlogLimit

    /// Opens (creating and migrating as needed) the database file at `path`.
    ///
    /// The data directory's lock already makes this process the file's only user, so SQLite
    /// holds its own lock for the life of the connection (`locking_mode = EXCLUSIVE`): no
    /// file-lock system calls per transaction and no shared-memory index beside the WAL. A
    /// commit in WAL with `synchronous = NORMAL` survives the process being killed (it is in
    /// the kernel's page cache) and loses at most the last commits, never the file, on power loss.
    /// `commitDelay` is for tests that must tell the timer's commits from the others.
    /// `worker` says where the worker may run (`WorkerPlacement`).
    public init(
        path: String,
        commitDelay: DispatchTimeInterval = Store.commitDelay,
        worker: WorkerPlacement = .besideTheCalls
    ) throws {
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
        connection = database
        closeMark = CleanCloseMark(besideDatabaseAt: path)
        documentsPrefix = path
        try Self.migrator.migrate(database)
        let journal = try PlacementJournal(besideDatabaseAt: path)
        let transferDelay = commitDelay
        let step = Self.transferStep
        let store = WeakStore()
        let transfers = IdleWorker(
            name: "placement transfers",
            delay: transferDelay,
            isDue: { store.value?.transferIsDue(step: step) ?? false },
            work: {
                guard let store = store.value else { return false }
                return (try? store.backgroundStep(atMost: step)) ?? false
            }
        )
        let checkpoints = CheckpointRequests(worker: transfers)
        log = PlacementLog(journal: journal, transfers: transfers, checkpoints: checkpoints, worker: worker)
        store.value = self
        connection.writeWithoutTransaction { checkpoints.install(on: $0) }
        for finding in findings { report(finding) }
        try recoverJournal()
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
        log = PlacementLog(journal: nil, transfers: nil, checkpoints: nil, worker: .besideTheCalls)
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
    /// then its worker stops, its journal's files are unmapped and its SQLite connection
    /// closes, so nothing of this store writes to the files any more. Every later call
    /// throws `StoreFault.closed`. The data directory calls it before it lets go of its lock,
    /// so the next session to take the lock is the files' only writer.
    public func close() {
        closeCleanly()
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        log.transfers?.stop()
        // SQLite deletes the write-ahead log when the connection closes, after checkpointing
        // it: the clean close's mark says so, or the next open would take the log for lost.
        // The statements are taken inside the write: one running before it may have prepared
        // them, and none after it can (`commitStatements(in:)` refuses a closed store).
        connection.writeWithoutTransaction { db in
            log.checkpoints?.uninstall(from: db)
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
        log.journal?.closeFiles()
    }
}

/// The store as its background worker sees it: not kept alive by it. Unchecked because its
/// one field is set once, in the store's `init`, before the worker's first step reads it.
final class WeakStore: @unchecked Sendable {
    weak var value: Store?
}
