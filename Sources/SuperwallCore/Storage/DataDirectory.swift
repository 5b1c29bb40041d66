import Foundation

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
    private let lockDescriptor: Int32

    public enum OpenError: Error, Sendable, Equatable, CustomStringConvertible {
        /// Another live process holds the directory.
        case inUse(path: String, holderPid: Int32?)
        case unusable(path: String, reason: String)
        /// The disk has no room for the files the directory needs.
        case full(path: String, reason: String)

        public var description: String {
            switch self {
            case .inUse(let path, let pid):
                return "the data directory \(path) is in use by another superwall-bridge process\(pid.map { " (pid \($0))" } ?? ""); give each bridge its own dataDirectory"
            case .unusable(let path, let reason):
                return "the data directory \(path) cannot be used: \(reason)"
            case .full(let path, let reason):
                return "the data directory \(path) has no room for its files: \(reason); free space on its disk"

            }
        }
    }

    /// Opens (creating as needed) the directory, takes its lock, and opens its database.
    public init(path: String) throws(OpenError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw .unusable(path: path, reason: error.localizedDescription)
        }
        let lockPath = (path as NSString).appendingPathComponent("bridge.lock")
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .unusable(path: path, reason: String(cString: strerror(errno))) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            // The holder writes its pid just after taking the lock; a bridge started at the
            // same moment gives it a few milliseconds to.
            var holder = Self.readPid(descriptor)
            for _ in 0..<20 where holder == nil {
                usleep(5_000)
                holder = Self.readPid(descriptor)
            }
            close(descriptor)
            throw .inUse(path: path, holderPid: holder)
        }
        Self.writePid(descriptor)
        do {
            store = try Store(path: (path as NSString).appendingPathComponent("superwall.sqlite"))
        } catch {
            close(descriptor)
            throw StoreFault.isFull(error) ? .full(path: path, reason: "\(error)") : .unusable(path: path, reason: "\(error)")
        }
        self.path = path
        lockDescriptor = descriptor
    }

    deinit {
        close(lockDescriptor)
    }

    /// `$XDG_DATA_HOME/superwall-bridge/<api key>`, or `~/.local/share/...` without it: one
    /// folder per API key, so two apps on one machine never share state.
    public static func defaultPath(apiKey: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) as NSString).appendingPathComponent(".local/share")
        let safeKey = String(apiKey.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "_" })
        return ((base as NSString).appendingPathComponent("superwall-bridge") as NSString).appendingPathComponent(safeKey.isEmpty ? "default" : safeKey)
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
