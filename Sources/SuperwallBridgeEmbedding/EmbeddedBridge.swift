import BridgeServer
import Dispatch
import JSONRPC
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One bridge served in-process: the same connection and server as the executable's, reading
/// the messages the host sends and handing what it sends to the host's callback. Each has its
/// own threads, log level and `delegate/handleLog`; its data directory is whatever `configure`
/// names, as in its own process.
final class EmbeddedBridge: @unchecked Sendable {
    /// The host's callback and its context, called on the bridge's threads.
    struct Callback: @unchecked Sendable {
        let function: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int) -> Void
        let context: UnsafeMutableRawPointer?
    }

    /// Where what the bridge sends goes: to the host's callback, or into a mailbox the host
    /// receives from on its own thread.
    enum Output {
        case callback(Callback)
        case mailbox
    }

    /// The mailbox, for a bridge opened without a callback.
    let mailbox: OutputMailbox?

    let maximumMessageSize: Int
    private let inbox: MessageInbox
    private let connection: Connection
    private let sink: StderrLogHandler.Sink
    private let logger: Logger
    private let route: LogRouting.Route
    private let routeToken: Int
    private let status = Mutex<Int32?>(nil)
    private var thread = pthread_t()

    init(options given: ServingSettings, output: Output, closeLimit: Duration = .seconds(10)) throws {
        let options = given.readyToServe()
        self.closeLimit = closeLimit
        maximumMessageSize = options.maxMessageSize
        sink = StderrLogHandler.Sink(level: options.logLevel)
        let clientLog = ClientLog()
        route = LogRouting.Route(sink: sink, clientLog: clientLog)
        var connectionOptions = try options.connectionOptions()
        let logger = Logger(label: "superwall-bridge") { [sink] label in
            StderrLogHandler(label: label, sink: sink, clientLog: clientLog)
        }
        self.logger = logger
        let server = try options.server(
            logger: logger,
            sink: sink,
            clientLog: clientLog,
            connection: &connectionOptions
        )
        let inbox = MessageInbox(maximumQueuedBytes: options.maxQueuedOutput)
        self.inbox = inbox
        let deliver: @Sendable (UnsafeBufferPointer<UInt8>) -> Void
        switch output {
        case .callback(let callback):
            mailbox = nil
            deliver = { message in
                message.withMemoryRebound(to: CChar.self) {
                    callback.function(callback.context, $0.baseAddress, $0.count)
                }
            }
        case .mailbox:
            let mailbox = OutputMailbox(maximumQueuedBytes: options.maxQueuedOutput)
            self.mailbox = mailbox
            deliver = { mailbox.deliver($0) }
        }
        connection = Connection(
            inbox: inbox,
            deliver: deliver,
            handler: server,
            options: connectionOptions,
            logger: logger
        )
        routeToken = LogRouting.add(route)
        try start()
    }

    private func start() throws {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, 8 << 20)
        let retained = Unmanaged.passRetained(self).toOpaque()
        let started = pthread_create(
            &thread,
            &attributes,
            { argument in
                let bridge = Unmanaged<EmbeddedBridge>.fromOpaque(argument!).takeRetainedValue()
                bridge.serve()
                return nil
            },
            retained
        )
        guard started == 0 else {
            Unmanaged<EmbeddedBridge>.fromOpaque(retained).release()
            connection.abandonOutput()
            LogRouting.remove(routeToken)
            throw StartFailure(code: started)
        }
    }

    struct StartFailure: Error, CustomStringConvertible {
        let code: Int32
        var description: String { "cannot start the bridge's thread: \(String(cString: strerror(code)))" }
    }

    private func serve() {
        let code = LogRouting.$current.withValue(route) { connection.run() }
        sink.flush()
        mailbox?.end()
        status.withLock { $0 = code }
        finished.signal()
    }

    /// Signalled when `serve` has returned.
    private let finished = DispatchSemaphore(value: 0)

    /// How long `close` waits for the bridge: its drain and flush deadlines, and a margin.
    let closeLimit: Duration

    /// `taken`, `ended` or `tooLarge`.
    func send(_ message: UnsafeRawBufferPointer) -> BridgeCode {
        guard message.count <= maximumMessageSize else {
            logger.warning(
                "refused a message of \(message.count) bytes, over the limit of \(maximumMessageSize)"
            )
            return .tooLarge
        }
        return inbox.send(Array(message)) == .taken ? .taken : .ended
    }

    /// Whether the calling thread is inside this bridge's output callback (the only host code
    /// that runs on the bridge's threads), where waiting for the bridge to finish would wait
    /// for itself.
    var isCallingBack: Bool { connection.ownsTheCallingThread }

    /// Ends the input, waits for the bridge to finish (bounded by its drain deadline, then
    /// for as long as the output callback keeps returning), and returns its exit status.
    /// With a mailbox, messages not yet received are dropped.
    /// Returns `abandoned` when `closeLimit` (whole seconds) passes with the bridge unfinished
    /// and no call of the callback returning, which only a callback that does not return can
    /// cause: the bridge is then left to its thread, and nothing more reaches the callback.
    func close() -> Int32 {
        // The host receives no more: what it has not received is dropped, and the bridge
        // finishes without waiting for it.
        mailbox?.discard()
        inbox.endInput()
        var delivered = connection.outputDeliveries
        while finished.wait(timeout: .now() + .milliseconds(Int(closeLimit.components.seconds * 1000))) != .success {
            let now = connection.outputDeliveries
            if now != delivered {
                delivered = now
                continue
            }
            // A bridge received from has no callback to blame: it answered nothing in that time.
            logger.error(
                mailbox == nil
                    ? "the bridge did not finish within \(closeLimit) of close: its output callback has not returned; it is left running, and the callback is called no more"
                    : "the bridge did not finish within \(closeLimit) of close and sent nothing in that time; it is left running, and what it sends is dropped"
            )
            connection.abandonOutput()
            pthread_detach(thread)
            LogRouting.remove(routeToken)
            return Self.abandoned
        }
        pthread_join(thread, nil)
        LogRouting.remove(routeToken)
        return status.withLock { $0 } ?? 1
    }

    /// What `close` answers for a bridge it had to leave running.
    static let abandoned: Int32 = 2
}
