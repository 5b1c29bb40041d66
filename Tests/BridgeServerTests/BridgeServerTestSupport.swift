import Foundation
import JSONRPC
import Logging
import TestSupport
import Testing

@testable import BridgeServer

/// Remembers the levels `setLogLevel` asked for.
final class RecordingLogLevel: LogLevelControl, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Logger.Level] = []
    func setLevel(_ level: Logger.Level) { lock.withLock { recorded.append(level) } }
    var levels: [Logger.Level] { lock.withLock { recorded } }
    var level: Logger.Level { lock.withLock { recorded.last ?? .info } }
    private var recordedScopes: [Set<String>?] = []
    func setScopes(_ scopes: Set<String>?) { lock.withLock { recordedScopes.append(scopes) } }
    var scopes: [Set<String>?] { lock.withLock { recordedScopes } }
}

func quietLogger() -> Logger {
    var logger = Logger(label: "bridge-tests")
    logger.logLevel = .critical
    return logger
}

func bridge() -> (InProcessServer, BridgeServer) {
    let server = BridgeServer(logger: quietLogger(), logLevel: RecordingLogLevel())
    return (InProcessServer(handler: server), server)
}
