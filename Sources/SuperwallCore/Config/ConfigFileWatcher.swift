import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Watches one config file for edits and calls back once a burst of them has settled.
///
/// It watches the file's directory with inotify, not the file: editors that save by writing a
/// new file and renaming it over the old one (vim, most IDEs) replace the inode a file watch
/// would follow. Events for other names in the directory are ignored. A path that is a
/// symlink is followed: the directory of the file it points to is watched too (an edit of the
/// target changes the config without touching the link), and again after the link is
/// pointed elsewhere.
public final class ConfigFileWatcher: @unchecked Sendable {
    /// How long the file must be quiet before the change is reported: an editor's save is
    /// often several writes (truncate, write, rename, chmod).
    public static let defaultDebounce: DispatchTimeInterval = .milliseconds(40)

    private let path: String
    private let descriptor: Int32
    /// The names that matter in each watched directory, by watch descriptor. Guarded by
    /// `queue` once watching has started.
    private var names: [Int32: Set<String>] = [:]
    private let queue = DispatchQueue(label: "superwall.config-watcher")
    private let source: any DispatchSourceRead
    private let debounce: DispatchTimeInterval
    private let onChange: @Sendable () -> Void
    /// Guarded by `queue`.
    private var pending: DispatchWorkItem?

    public enum StartError: Error, CustomStringConvertible {
        case unavailable(String)
        public var description: String {
            switch self {
            case .unavailable(let reason): "cannot watch the config file: \(reason)"
            }
        }
    }

    /// Starts watching `path`; `onChange` runs on a private queue.
    public init(
        path: String,
        debounce: DispatchTimeInterval = ConfigFileWatcher.defaultDebounce,
        onChange: @escaping @Sendable () -> Void
    ) throws(StartError) {
        self.path = URL(fileURLWithPath: path).standardizedFileURL.path
        self.debounce = debounce
        self.onChange = onChange
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw .unavailable(String(cString: strerror(errno))) }
        var names: [Int32: Set<String>] = [:]
        switch Self.watch(self.path, with: descriptor) {
        case .success(let (watch, name)): names[watch] = [name]
        case .failure(let failure):
            close(descriptor)
            throw .unavailable(failure.reason)
        }
        self.names = names
        source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        watchTarget()
        let descriptor = descriptor
        source.setEventHandler { [weak self] in self?.drain() }
        source.setCancelHandler { close(descriptor) }
        source.resume()
    }

    deinit {
        source.cancel()
    }

    private static let mask = UInt32(
        IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_MODIFY | IN_DELETE | IN_MOVED_FROM | IN_ATTRIB
    )

    private struct WatchFailure: Error {
        let reason: String
    }

    /// Watches the directory of `file` for events; answers the watch and the name that matters.
    private static func watch(_ file: String, with descriptor: Int32) -> Result<(Int32, String), WatchFailure> {
        let url = URL(fileURLWithPath: file)
        let directory = url.deletingLastPathComponent().path
        let watch = inotify_add_watch(descriptor, directory, mask)
        guard watch >= 0 else {
            return .failure(WatchFailure(reason: "\(directory): \(String(cString: strerror(errno)))"))
        }
        return .success((watch, url.lastPathComponent))
    }

    /// When the path is a symlink, watches where it leads as well.
    private func watchTarget() {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard target != path, case .success(let (watch, name)) = Self.watch(target, with: descriptor) else { return }
        names[watch, default: []].insert(name)
    }

    /// Reads every queued event; one for a watched name (re)starts the quiet period.
    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var touched = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let (watch, length, eventName) = buffer.withUnsafeBytes { bytes -> (Int32, Int, String) in
                    let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let start = offset + MemoryLayout<inotify_event>.size
                    let nameBytes = bytes[start..<min(start + Int(event.len), count)].prefix { $0 != 0 }
                    return (event.wd, Int(event.len), String(decoding: nameBytes, as: UTF8.self))
                }
                if names[watch]?.contains(eventName) == true { touched = true }
                offset += MemoryLayout<inotify_event>.size + length
            }
        }
        guard touched else { return }
        // The link may now lead elsewhere.
        watchTarget()
        pending?.cancel()
        let work = DispatchWorkItem { [onChange] in onChange() }
        pending = work
        queue.asyncAfter(deadline: .now() + debounce, execute: work)
    }
}
