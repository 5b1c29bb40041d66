import Dispatch
import GRDB
import GRDBSQLite
import Synchronization

/// Keeps WAL checkpoints off the calls' path. SQLite's automatic checkpoint runs inside the
/// commit that passes its mark, on whichever thread commits, and a checkpoint copies the WAL's
/// pages into the database and waits for two `fsync`s: milliseconds, in the call that happened
/// to commit. This hook replaces it (a WAL hook turns SQLite's own checkpoint off): SQLite
/// calls it after every commit with the WAL's length, and past `pages` it asks a queue of its
/// own for a passive checkpoint, one at a time, made after the commit's call has answered.
final class BackgroundCheckpoints: Sendable {
    /// A megabyte of 8 KiB pages: each checkpoint a fraction of a millisecond of copying, so a
    /// call that comes while one runs waits little (1,000 pages, SQLite's default, held a call
    /// up to 14 ms when calls checkpointed themselves).
    static let pages: Int32 = 128
    /// What the WAL file is cut back to once a checkpoint has emptied it (`journal_size_limit`):
    /// a burst of writes does not leave a data directory megabytes larger.
    static let walSizeLimit = 2 * Int(pages) * 8192
    private let asked = Atomic(false)
    private let checkpoint = Mutex<(@Sendable () -> Void)?>(nil)
    private let queue = DispatchQueue(label: "superwall.store.checkpoints", qos: .utility)

    /// Installs the hook on `db`'s connection; `checkpoint` makes one when asked.
    /// `uninstall(from:)` must remove it before `self` goes: SQLite keeps only a pointer to it.
    func install(on db: Database, checkpoint: @escaping @Sendable () -> Void) {
        self.checkpoint.withLock { $0 = checkpoint }
        sqlite3_wal_hook(db.sqliteConnection, walHook, Unmanaged.passUnretained(self).toOpaque())
    }

    func uninstall(from db: Database) {
        sqlite3_wal_hook(db.sqliteConnection, nil, nil)
        checkpoint.withLock { $0 = nil }
    }

    /// Asks for a checkpoint unless one is already asked for and not yet begun.
    fileprivate func walGrew(to pages: Int32) {
        guard pages >= Self.pages, !asked.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.async { [self] in
            asked.store(false, ordering: .releasing)
            checkpoint.withLock { $0 }?()
        }
    }
}

private func walHook(
    context: UnsafeMutableRawPointer?,
    connection: OpaquePointer?,
    database: UnsafePointer<CChar>?,
    pages: Int32
) -> Int32 {
    if let context {
        Unmanaged<BackgroundCheckpoints>.fromOpaque(context).takeUnretainedValue().walGrew(to: pages)
    }
    return SQLITE_OK
}
