import ArgumentParser
import FakeAPI
import Foundation
import SuperwallCore

#if canImport(Glibc)
import Glibc
#endif

struct FakeAPICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fake-api",
        abstract: "Serve a local stand-in for the Superwall API on 127.0.0.1, for tests and demos.",
        discussion: """
            Serves the config, paywalls (localized from the script), assignments and their confirmations, the \
            events collector, code redemption and web entitlements, as the bridge's http config source asks for \
            them. The first line on stdout is {"baseUrl": "http://127.0.0.1:PORT"}: give it to configure as \
            configSource {type: "http", baseUrl}. Ends at end of input or on SIGTERM. The script's format is in \
            docs/testing.md.
            """
    )

    @Option(help: "The config served as /api/v1/static_config, read at each request (default: the embedded demo's).")
    var config: String?

    @Option(help: "The port to listen on (default: any free port).")
    var port: Int = 0

    @Option(help: "Append every request to this file as a JSON line, the API key masked.")
    var record: String?

    @Option(help: "Scripted answers and starting state (a JSON file).")
    var script: String?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535.") }
        if let config, !FileManager.default.isReadableFile(atPath: config) {
            throw ValidationError("The config file \(config) cannot be read.")
        }
    }

    func run() throws {
        let scripted: FakeAPIScript
        do {
            scripted =
                try script.map { try FakeAPIScript(json: try Data(contentsOf: URL(fileURLWithPath: $0))) }
                ?? FakeAPIScript()
        } catch {
            throw FakeAPIFailure(description: "the script \(script ?? "") cannot be used: \(error)")
        }
        let configPath = config
        let api = try FakeAPI(
            config: {
                guard let configPath else { return Data(EmbeddedConfigSource.json.utf8) }
                return try Data(contentsOf: URL(fileURLWithPath: configPath))
            },
            script: scripted,
            recordPath: record
        )
        let server: FakeAPIServer
        do {
            server = try FakeAPIServer.startWaiting(api, port: port)
        } catch {
            throw FakeAPIFailure(description: "cannot listen on 127.0.0.1:\(port): \(error)")
        }
        // What was recorded is on disk line by line: a signal can end the process at once.
        for number in [SIGTERM, SIGINT, SIGHUP] { signal(number) { _ in _exit(0) } }
        let line = Array(#"{"baseUrl": "\#(server.baseURL.absoluteString)"}"#.utf8) + [0x0A]
        _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(0, &buffer, buffer.count)
            if count == 0 || (count < 0 && errno != EINTR) { break }
        }
        withExtendedLifetime(server) {}
    }
}

/// Why the fake API could not start, printed without the usage text: the arguments were fine.
struct FakeAPIFailure: Error, CustomStringConvertible {
    let description: String
}
