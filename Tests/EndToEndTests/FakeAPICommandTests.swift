import Foundation
import JSONRPC
import TestSupport
import Testing

/// `superwall-bridge fake-api` as a test suite runs it: a bridge configured over HTTP on it.
@Suite struct FakeAPICommandTests {
    private static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)").path
    }

    /// The fake API started with `arguments`, and the base URL its first line gives.
    private func startFakeAPI(_ arguments: [String]) async throws -> (BridgeProcess, String) {
        let api = try BridgeProcess(arguments: ["fake-api"] + arguments)
        let first = try #require(await api.client.next(), "no first line; stderr: \(api.stderr)")
        let baseURL = try #require(first["baseUrl"]?.stringValue)
        #expect(baseURL.hasPrefix("http://127.0.0.1:"))
        return (api, baseURL)
    }

    private func recorded(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func aBridgeConfiguresOverHTTPOnItAndItRecordsTheEventsARegisterAndAFlushSent() async throws {
        let record = Self.temporaryPath("fake-api-record")
        let (api, baseURL) = try await startFakeAPI(["--record", record])
        let bridge = try BridgeProcess()
        // The events' `$publicApiKey` too: a record file is what CI uploads.
        defer { #expect(!((try? String(contentsOfFile: record, encoding: .utf8)) ?? "").contains("pk_fake_api_test")) }
        await bridge.initialize()
        bridge.client.request(
            1,
            "configure",
            [
                "apiKey": "pk_fake_api_test",
                "options": [
                    "configSource": ["type": "http", "baseUrl": .string(baseURL)],
                    "dataDirectory": .string(Self.temporaryPath("fake-api-data")),
                    "maxConfigRetryCount": 0,
                ],
            ]
        )
        #expect(await bridge.client.nextReply()?["result"]?["configurationStatus"] == "configured")
        bridge.client.request(2, "register", ["placement": "open_coach_chat"])
        #expect(await bridge.client.nextReply()?["error"] == nil)
        bridge.client.request(3, "flushEvents")
        let flushed = Int(try #require(await bridge.client.nextReply()?["result"]?["flushed"]?.int64Value))
        #expect(flushed > 0)

        let requests = try recorded(record)
        let config = try #require(requests.first { $0["path"] as? String == "/api/v1/static_config" })
        #expect(config["method"] as? String == "GET")
        #expect(config["query"] as? String == "pk=pk_f…")
        #expect((config["headers"] as? [String: String])?["authorization"] == "Bearer pk_f…")
        let events = try requests.filter { $0["path"] as? String == "/api/v1/events" }.flatMap { post in
            let body = try #require((post["body"] as? String).map { Data($0.utf8) })
            let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            return try #require(object["events"] as? [[String: Any]]).compactMap { $0["event_name"] as? String }
        }
        #expect(events.count == flushed)
        #expect(events.contains("open_coach_chat"))
        #expect(events.contains("app_launch"))

        api.client.closeWriting()
        #expect(await api.waitForExit() == 0, "end of input ends it")
    }

    @Test func sigtermEndsItAndAScriptThatCannotBeReadIsRefusedNamingThePlace() async throws {
        let (api, _) = try await startFakeAPI([])
        kill(api.pid, SIGTERM)
        #expect(await api.waitForExit() == 0)

        let script = Self.temporaryPath("fake-api-script") + ".json"
        try Data(#"{"answers": {"/api/v1/events": [{"status": "busy"}]}}"#.utf8).write(to: URL(fileURLWithPath: script))
        let refused = try await runBridge(["fake-api", "--script", script])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("$.answers./api/v1/events[0].status"))
    }
}
