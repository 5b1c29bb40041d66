import Executors
import Foundation
import Synchronization

/// The data directories this process's sessions hold, so that a `configure` on one another
/// session of the process is letting go of (a wrapper's hot restart) waits for it without a
/// thread: suspended until the holder closes, or its time is out. Waiting in `DataDirectory`'s
/// open instead held an offload thread each: seventy bridges waiting on one directory held
/// the pool, and another bridge's `configure` waited 1.8 s behind them.
enum HeldDataDirectories {
    private static let held = Mutex<[String: OneShot<Void>]>([:])

    /// The key of a directory, however its path is written.
    static func key(_ path: String) -> String {
        (path as NSString).standardizingPath
    }

    static func hold(_ path: String) {
        held.withLock { $0[key(path)] = OneShot() }
    }

    /// What resolves when the session holding `path` lets go of it; nil when none holds it.
    static func releaseSignal(of path: String) -> OneShot<Void>? {
        held.withLock { $0[key(path)] }
    }

    static func release(_ path: String) {
        held.withLock { $0.removeValue(forKey: key(path)) }?.resolve(())
    }

    /// Waits until no session of this process holds the directory at `path`, or `limit` has
    /// passed; true when none holds it.
    static func waitUntilReleased(_ path: String, within limit: Duration) async -> Bool {
        guard let release = releaseSignal(of: path) else { return true }
        let done = OneShot<Bool>()
        let timer = DeadlineTimer(after: limit) { done.resolve(false) }
        defer { timer.cancel() }
        Task(executorPreference: OffloadExecutor.shared) {
            await release.value
            done.resolve(true)
        }
        return await done.value
    }
}
