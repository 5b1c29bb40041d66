import JSONRPC
import Logging
import SuperwallCore

/// How a bridge serves, whatever carries its messages: the command line's serving flags and
/// the options `superwall_bridge_open` reads are these, by the same names (kebab case on the
/// command line, camel case in-process), with the same defaults. Framing, which only a pipe
/// has, is the command line's alone.
public struct ServingSettings: Equatable, Sendable {
    public var logLevel: Logger.Level = .warning
    /// A file to write every frame in and out to (JSON lines), API keys masked.
    public var trace: String?
    public var maxMessageSize = 64 * 1024 * 1024
    public var maxQueuedOutput = 64 * 1024 * 1024
    public var maxConfigSize = FileConfigSource.defaultMaximumSize
    public var watch = false
    /// A file to record the session to, for `superwall-bridge replay`: every frame in and out
    /// (as `trace` writes them), and the seed of the session's random draws.
    public var record: String?
    /// With `record`: the user values the session carries (ids, attributes, params, what a
    /// page posts, codes) are replaced in the recording by tokens, in every encoding, the same
    /// value by the same token (`TraceRedaction`).
    public var recordRedact = false
    /// The seed a recorded session draws from when `configure` gives none; chosen by
    /// `readyToServe()`.
    public var recordSeed: UInt64?
    /// A recording whose HTTP exchanges answer the bridge's requests instead of the network:
    /// what `superwall-bridge replay` serves its bridge with.
    public var httpAnswers: String?
    /// The largest recording `httpAnswers` may name, in bytes.
    public var httpAnswersLimit = RecordingLines.defaultLimit
    /// The data directory every `configure` opens, whatever it names (a replay's, so that a
    /// recording never chooses where the bridge writes).
    public var pinnedDataDirectory: String?

    /// The settings' names, in camel case.
    public static let names = [
        "logLevel", "trace", "maxMessageSize", "maxQueuedOutput", "maxConfigSize", "watch", "record",
        "recordRedact",
    ]

    public init() {}

    /// Settings that cannot go together: `description` names them as the library's options do,
    /// `commandLine` as the flags do.
    public struct Conflict: Error, CustomStringConvertible {
        public let description: String
        public let commandLine: String
    }

    /// Why these settings cannot serve, if they cannot: a trace and a recording both write the
    /// frames to a file of their own, and a redaction needs a recording.
    public var conflict: Conflict? {
        if recordRedact, record == nil {
            return Conflict(
                description: "recordRedact redacts a recording: give record too",
                commandLine: "--record-redact redacts a recording: give --record too."
            )
        }
        if trace != nil, record != nil {
            return Conflict(
                description: "trace and record cannot both be given: a recording holds the trace",
                commandLine: "--trace and --record cannot both be given: a recording holds the trace."
            )
        }
        return nil
    }

    /// The settings as a server uses them: a recording's seed chosen.
    public func readyToServe() -> ServingSettings {
        var settings = self
        if record != nil, settings.recordSeed == nil { settings.recordSeed = UInt64.random(in: 0...UInt64.max) }
        return settings
    }

    /// The connection's options: the limits, and the trace or record file, opened now.
    public func connectionOptions(framing: Framing? = nil) throws -> Connection.Options {
        var options = Connection.Options()
        options.maximumMessageSize = maxMessageSize
        options.maximumQueuedOutput = maxQueuedOutput
        options.framing = framing
        if let conflict { throw conflict }
        if let path = trace ?? record {
            let recording = record != nil
            let file = try FrameTrace(
                path: path,
                masking: ["apiKey", "publicApiKey"],
                redactingUserValues: recording && recordRedact
            )
            if recording {
                file.note([
                    "recording": .int(Int64(SessionRecording.formatVersion)),
                    "randomSeed": recordSeed.map { .uint($0) } ?? .null,
                    "redacted": .bool(recordRedact),
                ])
            }
            options.trace = file
        }
        return options
    }

    /// The server these settings describe, logging through `logger` at `sink`'s level and to a
    /// client's `delegate/handleLog` through `clientLog`, for the connection `connection`
    /// describes (`connectionOptions`): a recording's HTTP exchanges go to its trace, and
    /// recorded answers are told of the frames it reads.
    public func server(
        logger: Logger,
        sink: StderrLogHandler.Sink,
        clientLog: ClientLog,
        connection: inout Connection.Options
    ) throws -> BridgeServer {
        var transport: any HTTPTransport = NetworkTransport()
        if let httpAnswers {
            let answers = try RecordedHTTPAnswers(path: httpAnswers, limit: httpAnswersLimit)
            if answers.count > 0 { connection.frameRead = { answers.clientSent($0) } }
            transport = answers
        }
        if record != nil, let trace = connection.trace {
            transport = RecordingTransport(transport) { attempt, outcome in
                trace.exchange(HTTPExchangeRecording.members(attempt, outcome))
            }
        }
        return BridgeServer(
            logger: logger,
            logLevel: sink,
            clientLog: clientLog,
            watchConfigFiles: watch,
            maximumConfigSize: maxConfigSize,
            httpTransport: transport,
            recordSeed: record == nil ? nil : recordSeed,
            pinnedDataDirectory: pinnedDataDirectory
        )
    }
}

/// What `superwall-bridge replay` reads of a recording beyond its frames.
public enum SessionRecording {
    /// The version of the recording's layout, in its first line (`{"direction": "note",
    /// "recording": N, "randomSeed": ...}`).
    public static let formatVersion = 1
}
