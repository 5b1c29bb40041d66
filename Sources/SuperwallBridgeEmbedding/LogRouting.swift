import BridgeServer
import Logging
import Synchronization

/// Where a process holding bridges sends its log lines. swift-log has one factory per
/// process, bootstrapped once; the SDK's own loggers are made by it, so each of their lines
/// goes to the bridge whose work logged it (a task-local, bound on the bridge's reader and
/// inherited by the tasks it starts), or, from work outside any bridge's tasks, to the bridge
/// opened last that is still open. Each bridge has its own level and its own `delegate/handleLog`.
enum LogRouting {
    struct Route: Sendable {
        let sink: StderrLogHandler.Sink
        let clientLog: ClientLog
    }

    @TaskLocal static var current: Route?

    private static let open = Mutex<[(token: Int, route: Route)]>([])
    private static let fallback = Route(sink: StderrLogHandler.Sink(level: .warning), clientLog: ClientLog())

    private static let bootstrapped: Void = {
        LoggingSystem.bootstrap { label in RoutedLogHandler(label: label) }
    }()

    /// Starts routing to `route` (and bootstraps the process's logging once); returns the
    /// token that ends it.
    static func add(_ route: Route) -> Int {
        _ = bootstrapped
        return open.withLock { open in
            let token = (open.map(\.token).max() ?? 0) + 1
            open.append((token, route))
            return token
        }
    }

    static func remove(_ token: Int) {
        open.withLock { $0.removeAll { $0.token == token } }
    }

    static var route: Route {
        current ?? open.withLock { $0.last?.route } ?? fallback
    }
}

/// The process's log handler: each call goes through the route of the moment.
struct RoutedLogHandler: LogHandler {
    let label: String
    var metadata: Logger.Metadata = [:]

    var logLevel: Logger.Level {
        get { LogRouting.route.sink.level }
        set { LogRouting.route.sink.level = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let route = LogRouting.route
        var handler = StderrLogHandler(label: label, sink: route.sink, clientLog: route.clientLog)
        handler.metadata = metadata
        handler.log(event: event)
    }
}
