import ArgumentParser
import BridgeServer
import JSONRPC
import Logging

#if canImport(Glibc)
import Glibc
#endif

@main
struct SuperwallBridgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "superwall-bridge",
        abstract: "A headless Superwall SDK core, served as JSON-RPC 2.0 over stdio.",
        discussion: "Spawn it from a wrapper SDK or a test harness and speak the protocol on its stdin and stdout. Logs go to stderr.",
        version: "\(BridgeServer.name) \(BridgeServer.version) (protocol \(BridgeServer.protocolVersion))",
        subcommands: [Serve.self, Eval.self],
        defaultSubcommand: Serve.self
    )
}

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the JSON-RPC protocol on stdin and stdout (the default).")

    @Option(name: .long, help: "Least severe log level written to stderr: trace, debug, info, notice, warning, error or critical.")
    var logLevel: LogLevel = .warning

    @Option(name: .long, help: "Write every frame in and out, with its direction and time, to this file (JSON lines).")
    var trace: String?

    @Option(name: .long, help: "Framing: auto (detected from the first byte), ndjson or content-length.")
    var framing: FramingChoice = .auto

    @Option(name: .long, help: "Largest message accepted, in bytes; a longer one is answered with an error and skipped.")
    var maxMessageSize: Int = 64 * 1024 * 1024

    func validate() throws {
        guard maxMessageSize > 0 else { throw ValidationError("--max-message-size must be positive.") }
    }

    func run() throws {
        // A parent that spawns us from one of its worker threads hands down that thread's
        // blocked (or ignored) signals; SIGTERM and SIGINT must always be able to stop us.
        var nothing = sigset_t()
        sigemptyset(&nothing)
        sigprocmask(SIG_SETMASK, &nothing, nil)
        signal(SIGTERM, SIG_DFL)
        signal(SIGINT, SIG_DFL)
        let descriptors = try StandardStreams.protect()
        let sink = StderrLogHandler.Sink(level: logLevel.level)
        LoggingSystem.bootstrap { label in StderrLogHandler(label: label, sink: sink) }
        let logger = Logger(label: "superwall-bridge")

        var options = Connection.Options()
        options.maximumMessageSize = maxMessageSize
        options.framing = framing.framing
        if let trace { options.trace = try FrameTrace(path: trace) }

        let server = BridgeServer(logger: logger, logLevel: sink)
        let connection = Connection(
            input: descriptors.input, output: descriptors.output, handler: server, options: options, logger: logger)
        let status = connection.run()
        sink.flush()
        Glibc.exit(status)
    }
}

enum LogLevel: String, ExpressibleByArgument, CaseIterable {
    case trace, debug, info, notice, warning, error, critical

    var level: Logger.Level { Logger.Level(rawValue: rawValue)! }
}

enum FramingChoice: String, ExpressibleByArgument, CaseIterable {
    case auto
    case ndjson
    case contentLength = "content-length"

    var framing: Framing? {
        switch self {
        case .auto: return nil
        case .ndjson: return .newlineDelimited
        case .contentLength: return .contentLength
        }
    }
}
