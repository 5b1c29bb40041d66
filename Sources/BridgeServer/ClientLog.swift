import JSONRPC
import Logging
import Synchronization

/// SuperwallKit's `handleLog`: every line the process logs, whatever the log level, also goes
/// to the client's delegate as `delegate/handleLog`, while one is bound. Lines are not
/// buffered for a delegate not bound yet: the delegate's other notifications keep that room.
public final class ClientLog: Sendable {
    private let channel = Mutex<DelegateChannel?>(nil)

    public init() {}

    func attach(_ delegate: DelegateChannel) {
        channel.withLock { $0 = delegate }
    }

    func forward(level: Logger.Level, scope: String, message: String, metadata: Logger.Metadata) {
        guard let delegate = channel.withLock({ $0 }) else { return }
        delegate.sendIfBound("delegate/handleLog", [
            "level": .string(Self.superwallName(of: level)),
            "scope": .string(scope),
            "message": .string(message),
            "info": metadata.isEmpty ? .null : .object(JSONObject(uniqueKeysWithValues: metadata.sorted { $0.key < $1.key }.map { ($0.key, .string("\($0.value)")) })),
            "error": .null,
        ])
    }

    /// SuperwallKit's level names: `debug`, `info`, `warn`, `error`.
    static func superwallName(of level: Logger.Level) -> String {
        switch level {
        case .trace, .debug: "debug"
        case .info, .notice: "info"
        case .warning: "warn"
        case .error, .critical: "error"
        }
    }

    /// A log handler that forwards every line (its level is `trace`: the process's level
    /// decides what is printed, not what the delegate hears).
    public struct Handler: LogHandler {
        public var metadata: Logger.Metadata = [:]
        public var logLevel: Logger.Level = .trace
        private let label: String
        private let log: ClientLog

        public init(label: String, log: ClientLog) {
            self.label = label
            self.log = log
        }

        public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        public func log(event: LogEvent) {
            var merged = metadata
            if let extra = event.metadata { merged.merge(extra, uniquingKeysWith: { _, new in new }) }
            log.forward(level: event.level, scope: label, message: "\(event.message)", metadata: merged)
        }
    }
}
