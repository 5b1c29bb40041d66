import ArgumentParser
import BridgeServer
import JSONRPC
import Logging
import SuperwallCore

#if canImport(Glibc)
import Glibc
import CMalloc
#endif

/// The `superwall-bridge` command line, for the executable and for the library's
/// `superwall_bridge_main` (what the packages' launcher runs).
public enum BridgeCommand {
    /// Runs the command line `arguments` (the program's name first), as the executable does:
    /// serving ends the process; another subcommand returns once done, or ends the process
    /// with its exit status on an error.
    ///
    /// A bare `superwall-bridge`, how wrappers spawn it, serves with the defaults at once:
    /// the argument parser's reflection would otherwise cost a millisecond of every startup.
    public static func main(arguments: [String]) {
        if arguments.count <= 1 {
            Serve.serve(ServingSettings(), framing: nil)
        }
        SuperwallBridgeCommand.main(Array(arguments.dropFirst()))
    }
}

/// The root command serves when given no subcommand: it parses the serving flags, so its help
/// shows them beside the subcommands, and hands on to `serve`, which takes them over (an option
/// group of the same type is decoded once) with the recording flags. Those are `serve`'s alone:
/// the parser reads a root option anywhere on the line, so a root `--record` would take
/// `fake-api --record` from the subcommand.
struct SuperwallBridgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "superwall-bridge",
        abstract: "A headless Superwall SDK core, served as JSON-RPC 2.0 over stdio.",
        discussion: """
            With no subcommand, serves the protocol on stdin and stdout with the options below. Spawn it from a \
            wrapper SDK or a test harness. Logs go to stderr. To record the session for `superwall-bridge replay`, \
            add --record FILE (and --record-redact): see `superwall-bridge serve --help`.
            """,
        version: "\(BridgeServer.name) \(BridgeServer.version) (protocol \(BridgeServer.protocolVersion))",
        subcommands: [
            Serve.self, Eval.self, Validate.self, Explain.self, Replay.self, DemoConfig.self, FakeAPICommand.self,
        ],
        defaultSubcommand: Serve.self
    )

    @OptionGroup var serving: ServingOptions
}

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the JSON-RPC protocol on stdin and stdout (what superwall-bridge does with no subcommand)."
    )

    @OptionGroup var serving: ServingOptions
    @OptionGroup var recording: RecordingOptions

    func validate() throws {
        if let conflict = settings.conflict { throw ValidationError(conflict.commandLine) }
    }

    func run() throws {
        Self.serve(settings, framing: serving.framing.framing)
    }

    var settings: ServingSettings {
        var settings = serving.settings
        settings.record = recording.record
        settings.recordRedact = recording.redact
        settings.httpAnswers = recording.answerHTTPFrom
        settings.httpAnswersLimit = recording.answerHTTPLimit
        settings.pinnedDataDirectory = recording.replayDataDirectory
        return settings
    }

    static func serve(_ given: ServingSettings, framing: Framing?) -> Never {
        let settings = given.readyToServe()
        // A parent that spawns us from one of its worker threads hands down that thread's
        // blocked (or ignored) signals; SIGTERM, SIGINT and SIGHUP must always reach us.
        var nothing = sigset_t()
        sigemptyset(&nothing)
        sigprocmask(SIG_SETMASK, &nothing, nil)
        // A write past the file-size limit (`ulimit -f`) is an error (EFBIG) the store reports
        // as storageFull, as it does a full disk, instead of a signal that kills the process.
        signal(SIGXFSZ, SIG_IGN)
        // Buffers of a megabyte or more (a large message and its answer) are mapped on their
        // own and given back to the system when freed. glibc otherwise raises this threshold
        // after the first such free, and later large buffers stay in the heap: one 16 MiB
        // message left the process 48 MiB larger for good.
        mallopt(M_MMAP_THRESHOLD, 1 << 20)
        // Setting that threshold leaves glibc's trim threshold at 128 KiB, and the heap's top was
        // handed back after every move of recorded events into SQLite, to be faulted in again
        // by the calls that followed: a `register`'s p99 on one core was 7 % higher. Up to 4 MiB
        // of free heap is kept, in at most four arenas: glibc makes up to eight per CPU, one
        // for each thread that allocates while another holds one, and each kept its own
        // memory (B11's RSS was 58–62 MiB with the default, 46–49 with four).
        mallopt(M_TRIM_THRESHOLD, 4 << 20)
        mallopt(M_ARENA_MAX, 4)
        let sink = StderrLogHandler.Sink(level: settings.logLevel)
        let clientLog = ClientLog()
        LoggingSystem.bootstrap { label in StderrLogHandler(label: label, sink: sink, clientLog: clientLog) }
        let logger = Logger(label: "superwall-bridge")
        do {
            let descriptors = try StandardStreams.protect()
            var options = try settings.connectionOptions(framing: framing)
            let server = try settings.server(logger: logger, sink: sink, clientLog: clientLog, connection: &options)
            let connection = Connection(
                input: descriptors.input,
                output: descriptors.output,
                handler: server,
                options: options,
                logger: logger
            )
            let stopOnSignals = SignalHandling.stop(connection, logger: logger)
            let status = connection.run()
            _ = stopOnSignals
            sink.flush()
            Glibc.exit(status)
        } catch {
            logger.critical("Cannot serve: \(error)")
            sink.flush()
            Glibc.exit(1)
        }
    }
}

/// The serving flags, shared by the root command and `serve`.
struct ServingOptions: ParsableArguments {
    @Option(
        name: .long,
        help: "Least severe log level written to stderr: trace, debug, info, notice, warning, error or critical."
    )
    var logLevel = LogLevel(rawValue: ServingSettings().logLevel.rawValue)!

    @Option(name: .long, help: "Write every frame in and out, with its direction and time, to this file (JSON lines).")
    var trace: String?

    @Option(name: .long, help: "Framing: auto (detected from the first byte), ndjson or content-length.")
    var framing: FramingChoice = .auto

    @Option(
        name: .long,
        help: "Largest message accepted, in bytes; a longer one is answered with an error and skipped."
    )
    var maxMessageSize = ServingSettings().maxMessageSize

    @Option(
        name: .long,
        help:
            "Bytes of output that may wait for a client that is not reading; past it, input is not read until half are out."
    )
    var maxQueuedOutput = ServingSettings().maxQueuedOutput

    @Option(
        name: .long,
        help:
            "Largest config read, from a file or over HTTP, in bytes; a larger one fails configure (configUnavailable) before it is read whole."
    )
    var maxConfigSize = ServingSettings().maxConfigSize

    @Flag(
        name: .long,
        help:
            "Watch file config sources and refresh on every change (config/didRefresh), unless configure says watch: false."
    )
    var watch = false

    func validate() throws {
        guard maxMessageSize > 0 else { throw ValidationError("--max-message-size must be positive.") }
        guard maxConfigSize > 0 else { throw ValidationError("--max-config-size must be positive.") }
        guard maxQueuedOutput > 0 else { throw ValidationError("--max-queued-output must be positive.") }
    }

    var settings: ServingSettings {
        var settings = ServingSettings()
        settings.logLevel = logLevel.level
        settings.trace = trace
        settings.maxMessageSize = maxMessageSize
        settings.maxQueuedOutput = maxQueuedOutput
        settings.maxConfigSize = maxConfigSize
        settings.watch = watch
        return settings
    }
}

/// The flags that record a session for `superwall-bridge replay`.
struct RecordingOptions: ParsableArguments {
    @Option(
        name: .long,
        help:
            "Record the session to this file for `superwall-bridge replay`: every frame in and out, the HTTP exchanges, and the seed of its random draws."
    )
    var record: String?

    @Flag(
        name: .customLong("record-redact"),
        help:
            "With --record: replace the user values the session carries (ids, attributes, params, what a page posts, codes) with tokens in the recording, in every encoding, the same value by the same token."
    )
    var redact = false

    @Option(
        name: .customLong("answer-http-from"),
        help: .private
    )
    var answerHTTPFrom: String?

    @Option(name: .customLong("answer-http-limit"), help: .private)
    var answerHTTPLimit = RecordingLines.defaultLimit

    /// A replay's: the one data directory every `configure` of the session opens.
    @Option(name: .customLong("replay-data-directory"), help: .private)
    var replayDataDirectory: String?
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
