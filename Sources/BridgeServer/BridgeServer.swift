import Executors
import JSONRPC
import Logging
import SuperwallCore
import Synchronization

/// The bridge's side of the connection: the method table and what the client said of itself.
public final class BridgeServer: ConnectionHandler {
    public static let name = "superwall-bridge"
    public static let version = BridgeVersion.current
    /// The version of the wire contract this build speaks.
    public static let protocolVersion = "1.0"

    private let logger: Logger
    private let client = Mutex<ClientInfo?>(nil)
    private let delegate = DelegateChannel()
    private let host = ClientHost()
    private let superwall: Superwall
    private let methods: MethodTable

    /// `logLevel` is how `setLogLevel` changes what the process logs; `clientLog` (when the
    /// process's loggers forward to it) carries every line to the client's delegate.
    /// `watchConfigFiles` (the command line's `--watch`) watches every file config source
    /// that does not say `watch: false`; `maximumConfigSize` (`--max-config-size`) bounds a
    /// config file; `httpTransport` carries the Superwall API's requests.
    public init(
        logger: Logger,
        logLevel: any LogLevelControl,
        clientLog: ClientLog? = nil,
        watchConfigFiles: Bool = false,
        maximumConfigSize: Int = FileConfigSource.defaultMaximumSize,
        httpTransport: any HTTPTransport = NetworkTransport(),
        recordSeed: UInt64? = nil,
        pinnedDataDirectory: String? = nil
    ) {
        self.logger = logger
        clientLog?.attach(delegate)
        let clock = StoppableClock()
        superwall = Superwall(
            clock: clock,
            delegate: delegate,
            presenter: ClientPaywallPresenter(host: host),
            purchaseController: ClientPurchaseController(host: host),
            testModeChooser: ClientTestModeChooser(host: host)
        )
        methods = MethodTable(
            MethodContext(
                superwall: superwall,
                clock: clock,
                delegate: delegate,
                host: host,
                logLevel: logLevel,
                logger: logger,
                watchConfigFiles: watchConfigFiles,
                maximumConfigSize: maximumConfigSize,
                httpTransport: httpTransport,
                entryOrder: EntryOrder(),
                recordSeed: recordSeed,
                pinnedDataDirectory: pinnedDataDirectory
            )
        )
    }

    public func connectionIsIdle() {
        superwall.performUpkeep()
    }

    /// Who the client said it is, once `initialize` has been answered.
    public var clientInfo: ClientInfo? { client.withLock { $0 } }

    public func initialize(_ request: IncomingRequest, connection: Connection) async throws -> JSONValue {
        let client = try ClientInfo(initializeParams: Params(request))
        self.client.withLock { $0 = client }
        delegate.attach(connection)
        host.attach(connection, capabilities: client.capabilities)
        delegate.bind(client.capabilities.delegate)
        logger.info(
            "initialized by \(client.clientName) \(client.clientVersion ?? "") (protocol \(client.protocolVersion))"
        )
        for warning in client.warnings { logger.warning("initialize: \(warning.message)") }
        return [
            "protocolVersion": .string(Self.protocolVersion),
            "server": ["name": .string(Self.name), "version": .string(Self.version)],
            "sdkVersion": .string(SuperwallSDK.referenceVersion),
            "methods": .array(methods.advertised.map(JSONValue.string)),
            "warnings": .array(client.warnings.map(\.jsonValue)),
        ]
    }

    public func handle(_ request: IncomingRequest, connection: Connection) async throws -> JSONValue {
        if let method = methods[request.method] {
            let order = methods.entryOrder
            let route = route(of: request.method)
            let (earlier, own) = order.arrive(route)
            defer { if let own { order.entered(own) } }
            for gate in earlier { await gate.value }
            // Back on the reader, a direct call reaches the SDK before the reader runs anything else.
            if route == .direct, let own { order.entered(own) }
            // What the call tracked is durable before it returns (the core's `answering`):
            // the answer never reports an event a crash could lose.
            do {
                return try await method(request)
            } catch {
                throw await explained(error)
            }
        }
        if MethodTable.unbuilt.contains(request.method) { throw MethodTable.notImplemented(request.method) }
        throw RPCError.methodNotFound(request.method)
    }

    /// Whether the request leaves the reader before it reaches the SDK (see `EntryOrder`): a
    /// property of its method alone.
    private func route(of method: String) -> EntryOrder.Route {
        method == ConfigurationMethods.Configure.name ? .configure : .direct
    }

    /// `notConfigured` after a `configure` that failed says why it failed (`data.cause`):
    /// alone, it suggested `configure` was never called.
    private func explained(_ error: any Error) async -> any Error {
        guard let rpc = error as? RPCError, rpc.kind == "notConfigured", let failure = await superwall.configureFailure,
            case .object(var data)? = rpc.data
        else { return error }
        data["cause"] = failure.rpcError.jsonValue
        return RPCError(
            code: rpc.code,
            message: "\(rpc.message) The last configure failed: \(failure.description)",
            data: .object(data)
        )
    }

    /// The client's notifications: the app's foreground and background (UIKit's names).
    public func handle(_ notification: IncomingNotification, connection: Connection) async {
        switch notification.method {
        case "app/didBecomeActive": await reportingFailure { try await superwall.appDidBecomeActive() }
        case "app/willResignActive": await reportingFailure { try await superwall.appWillResignActive() }
        case let method where methods[method] != nil || method == "initialize" || method == "shutdown":
            // A request sent without an id (a client whose id 0 was dropped by `omitempty`):
            // JSON-RPC forbids answering it, so the log says why nothing happened.
            logger.warning(
                "\(method.prefix(64)) was sent as a notification (without an id) and was not run: it is a request, and a notification gets no answer. Give it an id (0 is a valid id)."
            )
            return
        default:
            logger.debug("ignored notification \(notification.method)")
        }
    }

    public func shutdown(connection: Connection) async {
        logger.info("shutdown requested")
        await flushEventsAtTheEnd()
        await superwall.closeStore()
    }

    /// The client is gone: a paywall on screen closes, so the `register` waiting on it ends;
    /// queued events get a last chance to go out (what does not stays on disk).
    public func inputDidClose(connection: Connection) async {
        await reportingFailure { try await superwall.hostDisconnected() }
        await flushEventsAtTheEnd()
        await superwall.closeStore()
    }

    /// The session ends with its connection: its data directory is let go of at once, so a
    /// bridge started next in this process (an in-process host's restart) can open it.
    public func connectionDidEnd(connection: Connection) async {
        await superwall.endSession()
        delegate.detach()
    }

    /// The end of the connection waits for the event flush at most `ConnectionEnd.flushLimit` in all:
    /// a `shutdown` and the end of input that follows it each waited that long, twice the
    /// documented bound with a collector that fails.
    private let connectionEnd = ConnectionEnd()

    private func flushEventsAtTheEnd() async {
        guard let remaining = connectionEnd.remainingFlushTime(at: .now) else { return }
        await superwall.flushEvents(within: remaining)
    }

    /// A notification has no answer to carry a failure (events that could not be made
    /// durable): the log says it.
    private func reportingFailure(_ call: () async throws -> Void) async {
        do {
            try await call()
        } catch {
            logger.error("could not commit tracked events: \(error)")
        }
    }
}

/// The flush budget of the connection's end, started by the first flush that asks for it.
final class ConnectionEnd: Sendable {
    static let flushLimit = Duration.seconds(2)
    private let deadline = Mutex<ContinuousClock.Instant?>(nil)

    /// What is left of the budget at `now`, the first call starting it; nil once spent.
    func remainingFlushTime(at now: ContinuousClock.Instant) -> Duration? {
        let end = deadline.withLock { deadline in
            if deadline == nil { deadline = now + Self.flushLimit }
            return deadline!
        }
        let remaining = end - now
        return remaining > .zero ? remaining : nil
    }
}
