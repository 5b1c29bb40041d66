import Logging

/// Sets the least severe level the process logs; `setLogLevel` goes through it.
public protocol LogLevelControl: Sendable {
    func setLevel(_ level: Logger.Level)
    /// The level in effect.
    var level: Logger.Level { get }
    /// SuperwallKit's `logging.scopes`: only the core's lines of these scopes are logged; nil
    /// logs every scope. The bridge's own lines are logged whatever the scopes.
    func setScopes(_ scopes: Set<String>?)
}

extension Logger.Level {
    /// SuperwallKit's log levels (`debug`, `info`, `warn`, `error`, `none`), and swift-log's
    /// own names.
    init?(superwallName name: String) {
        switch name {
        case "warn": self = .warning
        case "none": self = .critical
        default: self.init(rawValue: name)
        }
    }
}
