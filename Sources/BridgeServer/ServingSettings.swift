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

    /// The settings' names, in camel case.
    public static let names = ["logLevel", "trace", "maxMessageSize", "maxQueuedOutput", "maxConfigSize", "watch"]

    public init() {}

    /// The connection's options: the limits, and the trace file, opened now.
    public func connectionOptions(framing: Framing? = nil) throws -> Connection.Options {
        var options = Connection.Options()
        options.maximumMessageSize = maxMessageSize
        options.maximumQueuedOutput = maxQueuedOutput
        options.framing = framing
        if let trace {
            options.trace = try FrameTrace(path: trace, masking: ["apiKey", "publicApiKey"])
        }
        return options
    }

    /// The server these settings describe, logging through `logger` at `sink`'s level and to a
    /// client's `delegate/handleLog` through `clientLog`.
    public func server(logger: Logger, sink: StderrLogHandler.Sink, clientLog: ClientLog) -> BridgeServer {
        BridgeServer(
            logger: logger,
            logLevel: sink,
            clientLog: clientLog,
            watchConfigFiles: watch,
            maximumConfigSize: maxConfigSize
        )
    }
}
