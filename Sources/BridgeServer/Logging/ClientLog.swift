import Dispatch
import JSONRPC
import Logging
import Synchronization

/// SuperwallKit's `handleLog`: every line the process logs also goes to the client's delegate
/// as `delegate/handleLog`, while one is bound. Lines are not buffered for a delegate not bound
/// yet: the delegate's other notifications keep that room.
///
/// The delegate hears the lines of the process's log level (`--log-level`, `setLogLevel`,
/// `configure`'s `logging.level`), as stderr does. SuperwallKit hands its delegate every line
/// whatever the level; here the debug level narrates every placement's decision, and building
/// those lines for each `register` when nobody asked for them would cost every call.
///
/// At most `linesPerSecond` lines a second are forwarded; past that, lines are counted, and
/// one line at the end of the second says how many were not forwarded. A flood of ignored
/// notifications (one debug line each) otherwise cost the client a notification each, and
/// stalled the next answer by seconds.
public final class ClientLog: Sendable {
    public static let linesPerSecond = 100

    private let channel = Mutex<DelegateChannel?>(nil)
    private let budget = Mutex(LineBudget())

    public init() {}

    func attach(_ delegate: DelegateChannel) {
        channel.withLock { $0 = delegate }
    }

    /// The lines forwarded in the current second, and those held back.
    private struct LineBudget {
        var windowStart = ContinuousClock.now
        var forwarded = 0
        var heldBack = 0
    }

    public func forward(level: Logger.Level, scope: String, message: String, metadata: Logger.Metadata) {
        guard let delegate = channel.withLock({ $0 }), delegate.isBound else { return }
        let now = ContinuousClock.now
        let (allowed, startsCount) = budget.withLock { budget -> (Bool, Bool) in
            if now - budget.windowStart >= .seconds(1), budget.heldBack == 0 {
                budget = LineBudget(windowStart: now)
            }
            guard budget.forwarded < Self.linesPerSecond, budget.heldBack == 0 else {
                budget.heldBack += 1
                return (false, budget.heldBack == 1)
            }
            budget.forwarded += 1
            return (true, false)
        }
        if startsCount {
            DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(1)) { [self] in reportHeldBack() }
        }
        guard allowed else { return }
        send(level: level, scope: scope, message: message, metadata: metadata, to: delegate)
    }

    /// The line that says how many were held back, and a new second's budget.
    private func reportHeldBack() {
        let heldBack = budget.withLock { budget -> Int in
            defer { budget = LineBudget(windowStart: .now, forwarded: 1) }
            return budget.heldBack
        }
        guard heldBack > 0, let delegate = channel.withLock({ $0 }) else { return }
        send(
            level: .warning,
            scope: "superwall-bridge",
            message:
                "\(heldBack) log line(s) were not forwarded to the delegate: more than \(Self.linesPerSecond) a second",
            metadata: [:],
            to: delegate
        )
    }

    private func send(
        level: Logger.Level,
        scope: String,
        message: String,
        metadata: Logger.Metadata,
        to delegate: DelegateChannel
    ) {
        // SuperwallKit's `error` is the line's Swift error; here, the line's `error` metadata.
        let error = metadata["error"]
        let info = metadata.filter { $0.key != "error" }
        delegate.sendIfBound(
            "delegate/handleLog",
            [
                "level": .string(Self.superwallName(of: level)),
                "scope": .string(scope),
                "message": .string(message),
                "info": info.isEmpty
                    ? .null
                    : .object(
                        JSONObject(
                            uniqueKeysWithValues: info.sorted { $0.key < $1.key }.map {
                                ($0.key, .string("\($0.value)"))
                            }
                        )
                    ),
                "error": error.map { .string("\($0)") } ?? .null,
            ]
        )
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

    /// A log handler that forwards every line it is given, for a process whose loggers hand
    /// their lines to this alone (the command's handler forwards through `forward` itself).
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
