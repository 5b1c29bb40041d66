import FakeAPI
import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

/// The fake Superwall API (`FakeAPI`, what `superwall-bridge fake-api` serves) running in the
/// test process for one test, its answers scripted.
final class ScriptedAPIServer: Sendable {
    struct Step {
        var status: Int
        var body: String = ""
        var delay_ms: Int = 0
        /// The body sent this many times over.
        var body_repeat: Int = 1
        /// Streamed in chunks with no Content-Length.
        var chunked = false
        /// Held until the test opens this gate.
        var held: AnswerGate? = nil

        var answer: FakeAPIScript.Answer {
            FakeAPIScript.Answer(
                status: status,
                body: Data(String(repeating: body, count: max(1, body_repeat)).utf8),
                delayMilliseconds: delay_ms,
                chunked: chunked,
                heldUntil: held
            )
        }
    }

    private let server: FakeAPIServer
    var baseURL: URL { server.baseURL }

    /// `plan` answers the config fetches in turn, the last repeating. `paths` answer other
    /// requests by path (a path ending in `*` is a prefix), with a list of steps served in order
    /// in `pathSequences`; any other request gets the fake API's default answer.
    static func start(
        _ plan: [Step],
        paths: [String: Step] = [:],
        pathSequences: [String: [Step]] = [:]
    ) async throws -> ScriptedAPIServer {
        var script = FakeAPIScript()
        script.answers = paths.mapValues { [$0.answer] }.merging(pathSequences.mapValues { $0.map(\.answer) }) { $1 }
        script.answers["/api/v1/static_config"] = plan.map(\.answer)
        // The config a paywall is looked up in: the plan's last served one.
        let config = Data((plan.last { $0.status == 200 }?.body ?? "{}").utf8)
        let api = try FakeAPI(config: { config }, script: script)
        return ScriptedAPIServer(server: try await FakeAPIServer.start(api))
    }

    private init(server: FakeAPIServer) {
        self.server = server
    }

    /// The GET requests served so far: path, query and headers (names lowercased).
    var requests: [(path: String, query: String, headers: [String: String])] {
        server.api.requests.filter { $0.method == "GET" }.map { ($0.path, $0.query, $0.headers) }
    }
    /// The GET requests for the config alone.
    var configRequests: [(path: String, query: String, headers: [String: String])] {
        requests.filter { $0.path == "/api/v1/static_config" }
    }

    /// The POST requests served so far, with their bodies.
    var posts: [(path: String, body: String)] {
        server.api.requests.filter { $0.method == "POST" }.map {
            ($0.path, String(decoding: $0.body ?? Data(), as: UTF8.self))
        }
    }
}

extension Superwall {
    /// Waits for what `configure` started: the launch events' implicit triggers and the preloads.
    func settle() async {
        await awaitPresentationQueue()
        await awaitPreloading()
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
    delegate: RecordingDelegate = RecordingDelegate(),
    settling: Bool = true
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
    if settling { await superwall.settle() }
    return (superwall, outcome)
}
