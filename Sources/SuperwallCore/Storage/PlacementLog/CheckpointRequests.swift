import GRDB
import GRDBSQLite
import Synchronization

/// Keeps WAL checkpoints off the calls' path. SQLite's automatic checkpoint runs inside the
/// commit that passes its mark, on whichever thread commits, and a checkpoint copies the WAL's
/// pages into the database and waits for two `fsync`s: 2–3 ms here, in the call that happened
/// to commit. This hook replaces it (a WAL hook turns SQLite's own checkpoint off, so the
/// store sets no `wal_autocheckpoint`): SQLite calls it after every commit with the WAL's
/// length. Past `pages` it asks for a checkpoint, which the store's worker makes at its next
/// step, or the call that moves a backlog into SQLite right after it (`commitPendingWrites`);
/// it does not wake the worker for it, since a wakeup takes the CPU from a call. Past
/// `urgentPages`, when neither came (other writes under a load that leaves the worker no idle
/// CPU), it hurries the worker, which then checkpoints at normal priority.
final class CheckpointRequests: Sendable {
    /// A megabyte of 8 KiB pages: each checkpoint a fraction of a millisecond of copying
    /// (1,000 pages, SQLite's default, held a call up to 14 ms when calls still checkpointed).
    static let pages: Int32 = 128
    static let urgentPages: Int32 = pages * 4
    private let wanted = Atomic(false)
    private let worker: IdleWorker

    init(worker: IdleWorker) {
        self.worker = worker
    }

    /// Installs the hook on `db`'s connection. `uninstall(from:)` must remove it before `self`
    /// goes: SQLite keeps only a pointer to it.
    func install(on db: Database) {
        sqlite3_wal_hook(db.sqliteConnection, walHook, Unmanaged.passUnretained(self).toOpaque())
    }

    func uninstall(from db: Database) {
        sqlite3_wal_hook(db.sqliteConnection, nil, nil)
    }

    /// Whether a checkpoint was asked for since the last call.
    func take() -> Bool {
        wanted.exchange(false, ordering: .acquiringAndReleasing)
    }

    /// Hurried again after every commit that leaves the WAL past `urgentPages`, so a request
    /// the worker has not yet reached is not lost whatever priority it was left at.
    fileprivate func walGrew(to pages: Int32) {
        guard pages >= Self.pages else { return }
        wanted.store(true, ordering: .releasing)
        if pages >= Self.urgentPages { worker.hurry() }
    }
}

private func walHook(
    context: UnsafeMutableRawPointer?,
    connection: OpaquePointer?,
    database: UnsafePointer<CChar>?,
    pages: Int32
) -> Int32 {
    if let context {
        Unmanaged<CheckpointRequests>.fromOpaque(context).takeUnretainedValue().walGrew(to: pages)
    }
    return SQLITE_OK
}
