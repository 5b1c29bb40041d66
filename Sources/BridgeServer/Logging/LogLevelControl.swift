import Logging

/// Sets the least severe level the process logs; `setLogLevel` goes through it.
public protocol LogLevelControl: Sendable {
    func setLevel(_ level: Logger.Level)
    /// The level in effect.
    var level: Logger.Level { get }
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
