import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Watches one config file for edits and calls back once a burst of them has settled.
///
/// It watches the file's directory with inotify, not the file: editors that save by writing a
/// new file and renaming it over the old one (vim, most IDEs) replace the inode a file watch
/// would follow. Events for other names in the directory are ignored.
public final class ConfigFileWatcher: @unchecked Sendable {
    /// How long the file must be quiet before the change is reported: an editor's save is
    /// often several writes (truncate, write, rename, chmod).
    public static let defaultDebounce: DispatchTimeInterval = .milliseconds(40)

    private let name: String
    private let descriptor: Int32
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
    public init(path: String, debounce: DispatchTimeInterval = ConfigFileWatcher.defaultDebounce, onChange: @escaping @Sendable () -> Void) throws(StartError) {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        name = url.lastPathComponent
        self.debounce = debounce
        self.onChange = onChange
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw .unavailable(String(cString: strerror(errno))) }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_MODIFY | IN_DELETE | IN_MOVED_FROM | IN_ATTRIB)
        guard inotify_add_watch(descriptor, url.deletingLastPathComponent().path, mask) >= 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw .unavailable("\(url.deletingLastPathComponent().path): \(reason)")
        }
        source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        let descriptor = descriptor
        source.setEventHandler { [weak self] in self?.drain() }
        source.setCancelHandler { close(descriptor) }
        source.resume()
    }

    deinit {
        source.cancel()
    }

    /// Reads every queued event; one for the watched name (re)starts the quiet period.
    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var touched = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let (length, eventName) = buffer.withUnsafeBytes { bytes -> (Int, String) in
                    let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let start = offset + MemoryLayout<inotify_event>.size
                    let nameBytes = bytes[start..<min(start + Int(event.len), count)].prefix { $0 != 0 }
                    return (Int(event.len), String(decoding: nameBytes, as: UTF8.self))
                }
                if eventName == name { touched = true }
                offset += MemoryLayout<inotify_event>.size + length
            }
        }
        guard touched else { return }
        pending?.cancel()
        let work = DispatchWorkItem { [onChange] in onChange() }
        pending = work
        queue.asyncAfter(deadline: .now() + debounce, execute: work)
    }
}
