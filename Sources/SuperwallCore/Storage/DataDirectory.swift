import CForkGuard
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The folder that holds one app's (one API key's) persisted state, held by one process at a
/// time.
///
/// SQLite would let two bridges share a database safely, but not sensibly: both would act as
/// the same device, drawing assignments and logging placements over each other. So the first
/// process takes an exclusive lock (`flock` on `bridge.lock`, released by the kernel even if
/// the process is killed) and a second one fails at once with `inUse`, naming the holder.
public final class DataDirectory: Sendable {
    public let path: String
    public let store: Store
    /// The lock's descriptor; nil once `close()` let go of it.
    private let lockDescriptor: Mutex<Int32?>

    public enum OpenError: Error, Sendable, Equatable, CustomStringConvertible {
        /// Another live process holds the directory.
        case inUse(path: String, holderPid: Int32?)
        case unusable(path: String, reason: String)
        /// The disk has no room for the files the directory needs.
        case full(path: String, reason: String)

        public var description: String {
            switch self {
            case .inUse(let path, let pid) where pid == getpid():
                return
                    "the data directory \(path) is in use by another bridge in this process; give each bridge its own dataDirectory"
            case .inUse(let path, let pid):
                return
                    "the data directory \(path) is in use by another superwall-bridge process\(pid.map { " (pid \($0))" } ?? ""); give each bridge its own dataDirectory"
            case .unusable(let path, let reason):
                return "the data directory \(path) cannot be used: \(reason)"
            case .full(let path, let reason):
                return "the data directory \(path) has no room for its files: \(reason); free space on its disk"

            }
        }
    }

    /// Opens (creating as needed) the directory, takes its lock, and opens its database.
    ///
    /// The directory is the current user's alone: created `0700` (an existing one of ours
    /// loses its group and other bits), refused when it is a system folder or belongs to
    /// another user, and none of its files is opened through a symbolic link.
    /// A session of this same process holds the directory: one that is closing (its last
    /// tasks ending) lets go within moments, so a new session on it waits up to two seconds
    /// instead of failing. Another process's lock is refused at once.
    private static func lockOnceThisProcessLetsGo(_ descriptor: Int32) -> Bool {
        guard readPid(descriptor) == getpid() else { return false }
        for _ in 0..<400 {
            usleep(5_000)
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
        }
        return false
    }

    /// `waitingForThisProcess`: whether a lock this process holds is waited for.
    public init(
        path: String,
        waitingForThisProcess: Bool = true,
        storeWorker: Store.WorkerPlacement = .besideTheCalls
    ) throws(OpenError) {
        if let reason = Self.refusal(of: path) { throw .unusable(path: path, reason: reason) }
        do {
            try FileManager.default.createDirectory(
                atPath: path,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw .unusable(path: path, reason: error.localizedDescription)
        }
        if let reason = Self.ownershipProblem(of: path) { throw .unusable(path: path, reason: reason) }
        // Written at each flush with O_NOFOLLOW, a planted link would fail every flush unseen.
        do {
            try PrivateFile.refuseLink(at: (path as NSString).appendingPathComponent(Self.eventsFile))
        } catch {
            throw .unusable(path: path, reason: "\(error)")
        }
        let lockPath = (path as NSString).appendingPathComponent("bridge.lock")
        let descriptor: Int32
        do {
            descriptor = try PrivateFile.open(lockPath, O_RDWR | O_CREAT)
        } catch {
            throw .unusable(path: path, reason: "\(error)")
        }
        guard
            flock(descriptor, LOCK_EX | LOCK_NB) == 0
                || (waitingForThisProcess && Self.lockOnceThisProcessLetsGo(descriptor))
        else {
            // The holder writes its pid just after taking the lock; a bridge started at the
            // same moment gives it a few milliseconds to.
            var holder = Self.readPid(descriptor)
            for _ in 0..<20 where holder == nil {
                usleep(5_000)
                holder = Self.readPid(descriptor)
            }
            Glibc.close(descriptor)
            throw .inUse(path: path, holderPid: holder)
        }
        Self.writePid(descriptor)
        // A forked child closes its copy at once, so the lock goes when this process lets go.
        _ = fork_guard_hold(descriptor)
        do {
            store = try Store(path: (path as NSString).appendingPathComponent("superwall.sqlite"), worker: storeWorker)
        } catch {
            fork_guard_close(descriptor)
            throw StoreFault.isFull(error)
                ? .full(path: path, reason: "\(error)") : .unusable(path: path, reason: "\(error)")
        }
        self.path = path
        lockDescriptor = Mutex(descriptor)
        HeldDataDirectories.hold(path)
    }

    /// How long a session of this process takes at most to let go of its directory: its
    /// last tasks ending.
    public static let thisProcessLetsGoWithin: Duration = .seconds(2)

    /// Waits, without holding a thread, until no session of this process holds the directory
    /// at `path` (one closing lets go within moments), for at most `limit`; a directory another
    /// process holds is not waited for (its open fails at once with `inUse`).
    public static func waitUntilThisProcessLetsGo(of path: String, within limit: Duration) async {
        _ = await HeldDataDirectories.waitUntilReleased(path, within: limit)
    }

    /// The events written with the `embedded` and `file` config sources, one JSON line each.
    public static let eventsFile = "events.jsonl"

    /// Folders no app's state belongs in, whoever runs the bridge: it wrote its files into `/`.
    static let systemFolders: Set<String> = [
        "/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib64", "/opt", "/proc", "/root", "/run", "/sbin",
        "/srv", "/sys",
        "/tmp", "/usr", "/var", "/var/tmp",
    ]

    /// Why `path` may not be a data directory, if it may not.
    private static func refusal(of path: String) -> String? {
        let standardized = (path as NSString).standardizingPath
        let resolved = URL(fileURLWithPath: standardized).resolvingSymlinksInPath().path
        guard !systemFolders.contains(standardized), !systemFolders.contains(resolved) else {
            return "it is a system folder; give the bridge a folder of its own (the default is under ~/.local/share)"
        }
        return nil
    }

    /// Why the existing directory at `path` is not ours alone, if it is not; a directory of
    /// ours that others could write into is made private.
    private static func ownershipProblem(of path: String) -> String? {
        var link = stat()
        if lstat(path, &link) == 0, link.st_mode & S_IFMT == S_IFLNK, link.st_uid != getuid() {
            return "it is a symbolic link that belongs to another user (uid \(link.st_uid))"
        }
        var status = stat()
        guard stat(path, &status) == 0 else { return String(cString: strerror(errno)) }
        guard status.st_mode & S_IFMT == S_IFDIR else { return "it is not a directory" }
        guard status.st_uid == getuid() else {
            return
                "it belongs to another user (uid \(status.st_uid)); the bridge keeps its state only in a directory of its own user"
        }
        if status.st_mode & 0o077 != 0, chmod(path, 0o700) != 0 {
            return "it is open to other users and its mode cannot be made private: \(String(cString: strerror(errno)))"
        }
        return nil
    }

    deinit {
        close()
    }

    /// Ends the session's hold on the directory: the store closes for good (see
    /// `Store.close()`), then the lock goes, so a session opened after it, in this process or
    /// another, is the files' only writer. The directory is not usable after it.
    public func close() {
        store.close()
        let released = lockDescriptor.withLock { descriptor -> Bool in
            guard let held = descriptor else { return false }
            fork_guard_close(held)
            descriptor = nil
            return true
        }
        if released { HeldDataDirectories.release(path) }
    }

    /// `$XDG_DATA_HOME/superwall-bridge/<api key>`, or `~/.local/share/...` without it: one
    /// folder per API key, so two apps on one machine never share state.
    public static func defaultPath(
        apiKey: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        let base =
            environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) as NSString).appendingPathComponent(".local/share")
        let safeKey = String(apiKey.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "_" })
        return ((base as NSString).appendingPathComponent("superwall-bridge") as NSString).appendingPathComponent(
            safeKey.isEmpty ? "default" : safeKey
        )
    }

    /// Written over the old pid, then cut to length, so the file never reads empty: a reader
    /// sees the new pid's line, or the old one's.
    private static func writePid(_ descriptor: Int32) {
        let text = "\(getpid())\n"
        _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        _ = ftruncate(descriptor, off_t(text.utf8.count))
    }

    private static func readPid(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        let firstLine = buffer.prefix(count).prefix { $0 != UInt8(ascii: "\n") }
        return Int32(String(decoding: firstLine, as: UTF8.self).trimmingCharacters(in: .whitespaces))
    }
}
