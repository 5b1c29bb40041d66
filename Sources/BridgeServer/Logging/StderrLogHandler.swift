import Dispatch
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Writes log lines to stderr off the caller's thread, and drops them rather than block.
///
/// A client that pipes stderr but never reads it fills the pipe after 64 KiB; a plain
/// synchronous handler would then stall whatever thread logged, request handling included.
/// Here lines queue up to a bound, and past it are counted and dropped.
///
/// Each line also goes to the client's delegate (`clientLog`). One handler for both, at one
/// level: swift-log's multiplexing handler fixes its level when it is made, so with the
/// delegate's handler beside this one every debug line was built, whatever the level.
public struct StderrLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let sink: Sink
    private let clientLog: ClientLog?

    public init(label: String, sink: Sink, clientLog: ClientLog? = nil) {
        self.label = label
        self.sink = sink
        self.clientLog = clientLog
    }

    /// One level for the whole process, so that `setLogLevel` reaches every logger.
    public var logLevel: Logger.Level {
        get { sink.level }
        set { sink.level = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        guard sink.logs(label) else { return }
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra, uniquingKeysWith: { _, new in new }) }
        let details =
            merged.isEmpty
            ? "" : " " + merged.sorted(by: { $0.key < $1.key }).map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        sink.write("\(label) \(event.level): \(event.message)\(details)\n")
        clientLog?.forward(level: event.level, scope: label, message: "\(event.message)", metadata: merged)
    }

    /// The shared queue in front of descriptor 2, and the process's log level.
    public final class Sink: LogLevelControl, Sendable {
        static let capacity = 1024
        private let queue = DispatchQueue(label: "superwall-bridge.stderr")
        private let queued = Atomic<Int>(0)
        private let dropped = Atomic<Int>(0)
        private let levelIndex: Atomic<Int>

        public init(level: Logger.Level) {
            levelIndex = Atomic(Self.levels.firstIndex(of: level) ?? 0)
        }

        /// Read by every log call's level check: an array made once (`allCases` makes one on
        /// each use).
        private static let levels = Logger.Level.allCases

        public var level: Logger.Level {
            get { Self.levels[levelIndex.load(ordering: .relaxed)] }
            set { levelIndex.store(Self.levels.firstIndex(of: newValue) ?? 0, ordering: .relaxed) }
        }

        public func setLevel(_ level: Logger.Level) {
            self.level = level
        }

        /// The SuperwallKit scopes logged, nil for all (`logging.scopes`).
        private let scopes = Mutex<Set<String>?>(nil)

        public func setScopes(_ scopes: Set<String>?) {
            self.scopes.withLock { $0 = scopes?.contains("all") == true ? nil : scopes }
        }

        /// Whether the lines of the logger `label` are logged under the scopes in effect.
        func logs(_ label: String) -> Bool {
            guard let scope = LogScopes.of(label: label) else { return true }
            return scopes.withLock { $0?.contains(scope) ?? true }
        }

        public func write(_ line: String) {
            guard queued.add(1, ordering: .relaxed).newValue <= Self.capacity else {
                queued.subtract(1, ordering: .relaxed)
                dropped.add(1, ordering: .relaxed)
                return
            }
            queue.async { [self] in
                var text = line
                let lost = dropped.exchange(0, ordering: .relaxed)
                if lost > 0 {
                    text = "superwall-bridge warning: \(lost) log lines dropped (stderr was not being read)\n" + text
                }
                text.withUTF8 { bytes in
                    var offset = 0
                    while offset < bytes.count {
                        let written = Glibc.write(2, bytes.baseAddress! + offset, bytes.count - offset)
                        if written < 0 && errno == EINTR { continue }
                        if written <= 0 { break }
                        offset += written
                    }
                }
                queued.subtract(1, ordering: .relaxed)
            }
        }

        /// Waits, briefly, for queued lines to reach stderr before the process exits.
        public func flush() {
            let done = DispatchSemaphore(value: 0)
            queue.async { done.signal() }
            _ = done.wait(timeout: .now() + .milliseconds(200))
        }
    }
}
