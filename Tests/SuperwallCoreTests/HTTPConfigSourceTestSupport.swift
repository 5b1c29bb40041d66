import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

/// The scripted API server (`Fixtures/config_server.py`) running for one test.
final class ScriptedAPIServer: @unchecked Sendable {
    struct Step: Encodable {
        var status: Int
        var body: String = ""
        var delay_ms: Int = 0
        /// The body sent this many times over.
        var body_repeat: Int = 1
        /// Streamed in chunks with no Content-Length.
        var chunked = false
    }

    let baseURL: URL
    private let process: ChildProcess
    private let logPath: String
    private let planPath: String

    /// `plan` answers the config fetches in turn; `posts` the POSTs (by default, 200 `{}`).
    ///
    /// The server is spawned from the calling thread (its parent-death signal follows the
    /// thread that spawned it, and the pool's threads outlive the test), and its port is read
    /// without blocking: blocking one of Swift's few cooperative threads stalls every other
    /// test of the run meanwhile.
    /// `paths` answer other GETs, and POSTs, by path (a path ending in `*` is a prefix), with a
    /// list of steps served in order in `pathSequences`; a POST to no such path takes `posts`.
    static func start(
        _ plan: [Step],
        posts: [Step] = [Step(status: 200, body: "{}")],
        paths: [String: Step] = [:],
        pathSequences: [String: [Step]] = [:]
    ) async throws -> ScriptedAPIServer {
        let logPath = FileManager.default.temporaryDirectory.appendingPathComponent("api-\(UUID().uuidString).jsonl")
            .path
        let planPath = FileManager.default.temporaryDirectory.appendingPathComponent("plan-\(UUID().uuidString).json")
            .path
        let script = try #require(
            Bundle.module.url(forResource: "config_server", withExtension: "py", subdirectory: "Fixtures")
        )
        struct Plan: Encodable {
            var get: [Step]
            var post: [Step]
            var paths: [String: [Step]]
        }
        try JSONEncoder().encode(
            Plan(get: plan, post: posts, paths: paths.mapValues { [$0] }.merging(pathSequences) { $1 })
        ).write(to: URL(fileURLWithPath: planPath))
        // The port goes to a file that is polled: no thread of the cooperative pool blocks.
        let portPath = FileManager.default.temporaryDirectory.appendingPathComponent("port-\(UUID().uuidString)").path
        _ = FileManager.default.createFile(atPath: portPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: portPath) }
        let portFile = open(portPath, O_WRONLY)
        defer { close(portFile) }
        let process = try ChildProcess("/usr/bin/env", ["python3", script.path, planPath, logPath], stdout: portFile)
        var portText = ""
        for _ in 0..<2500 where !portText.hasSuffix("\n") {
            try await Task.sleep(for: .milliseconds(2))
            portText = (try? String(contentsOfFile: portPath, encoding: .utf8)) ?? ""
        }
        let port = try #require(Int(portText.trimmingCharacters(in: .whitespacesAndNewlines)))
        return ScriptedAPIServer(
            baseURL: URL(string: "http://127.0.0.1:\(port)")!,
            process: process,
            logPath: logPath,
            planPath: planPath
        )
    }

    private init(baseURL: URL, process: ChildProcess, logPath: String, planPath: String) {
        self.baseURL = baseURL
        self.process = process
        self.logPath = logPath
        self.planPath = planPath
    }

    /// The GET requests served so far: path, query and headers.
    var requests: [(path: String, query: String, headers: [String: String])] {
        logged(method: "GET").map { ($0.path, $0.query, $0.headers) }
    }
    /// The GET requests for the config alone.
    var configRequests: [(path: String, query: String, headers: [String: String])] {
        requests.filter { $0.path == "/api/v1/static_config" }
    }

    /// The POST requests served so far, with their bodies.
    var posts: [(path: String, body: String)] { logged(method: "POST").map { ($0.path, $0.body) } }

    private func logged(method: String) -> [(path: String, query: String, headers: [String: String], body: String)] {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["method"] as? String == method
            else { return nil }
            // Header names are case-insensitive; keep them lowercased.
            let headers = (object["headers"] as? [String: String] ?? [:]).reduce(into: [String: String]()) {
                $0[$1.key.lowercased()] = $1.value
            }
            return (
                object["path"] as? String ?? "", object["query"] as? String ?? "", headers,
                object["body"] as? String ?? ""
            )
        }
    }

    deinit {
        process.terminateInTheBackground()
        try? FileManager.default.removeItem(atPath: logPath)
        try? FileManager.default.removeItem(atPath: planPath)
    }
}

func demoConfigBody() async throws -> String {
    String(decoding: try await EmbeddedConfigSource().fetchConfig(ConfigRequest(apiKey: "pk")), as: UTF8.self)
}

/// The demo config with `enable_config_refresh_v2` off, so a cached copy does not change the
/// fetch strategy.
func configBodyWithoutRefreshV2() async throws -> String {
    var config = try #require(
        try JSONSerialization.jsonObject(with: Data(try await demoConfigBody().utf8)) as? [String: Any]
    )
    config["toggles"] = [["key": "enable_config_refresh_v2", "enabled": false]]
    return String(decoding: try JSONSerialization.data(withJSONObject: config), as: UTF8.self)
}

func configure(
    _ server: ScriptedAPIServer,
    directory: String = FileManager.default.temporaryDirectory.appendingPathComponent("http-\(UUID().uuidString)").path,
    retries: Int = 6,
    delegate: RecordingDelegate = RecordingDelegate()
) async throws -> (Superwall, Superwall.ConfigureOutcome) {
    let superwall = Superwall(
        clock: FakeClock(),
        random: CountingRandomSource(),
        delegate: delegate,
        retryDelay: { _, _ in .milliseconds(5) }
    )
    let outcome = try await superwall.configure(
        apiKey: "pk_http_test",
        options: Superwall.ConfigureOptions(
            configSource: HTTPConfigSource(baseURL: server.baseURL),
            dataDirectory: directory,
            device: ["platform": "iOS", "appVersion": "2.0.0"],
            maxConfigRetryCount: retries
        )
    )
    // The launch events' implicit triggers hold the instance (and its data directory) until they settle.
    await superwall.awaitPresentationQueue()
    await superwall.awaitPreloading()
    return (superwall, outcome)
}
