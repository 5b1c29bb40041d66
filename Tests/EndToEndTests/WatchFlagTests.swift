import Foundation
import JSONRPC
import TestSupport
import Testing

@Suite struct WatchFlagTests {
    /// A bridge started with `arguments`, configured on a copy of the holdout config in a fresh
    /// folder; answers the bridge and the copy's path.
    private func bridgeOnAConfigFile(arguments: [String]) async throws -> (BridgeProcess, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("watch-flag-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let config = folder.appendingPathComponent("config.json")
        try Data(contentsOf: conformanceConfig("demo-holdout.json")).write(to: config)
        let bridge = try BridgeProcess(arguments: arguments)
        await bridge.initialize()
        bridge.client.request(
            1,
            "configure",
            [
                "apiKey": "pk",
                "options": [
                    "configSource": ["type": "file", "path": .string(config.path)],
                    "dataDirectory": .string(folder.appendingPathComponent("data").path),
                ],
            ]
        )
        #expect(await bridge.client.nextReply()?["result"]?["configurationStatus"] == "configured")
        return (bridge, config)
    }

    /// Reads until a notification named `method` arrives.
    private func notification(_ method: String, from bridge: BridgeProcess) async -> JSONValue? {
        while let message = await bridge.client.next() {
            if message["method"] == .string(method) { return message }
        }
        return nil
    }

    @Test func withWatchAFileSourceRefreshesWhenItsFileChanges() async throws {
        let (bridge, config) = try await bridgeOnAConfigFile(arguments: ["--watch"])
        try Data(contentsOf: conformanceConfig("demo-refreshed.json")).write(to: config)
        let didRefresh = await notification("config/didRefresh", from: bridge)
        #expect(didRefresh?["params"]?["buildId"] == "pt-conformance-refreshed")
        #expect(didRefresh?["params"]?["removed"] == ["summer-sale"])
    }

    @Test func withoutWatchNothingIsWatched() async throws {
        let (bridge, config) = try await bridgeOnAConfigFile(arguments: [])
        try Data("{}".utf8).write(to: config)
        var skipped: [JSONValue] = []
        bridge.client.request(2, "$/ping")
        try await Task.sleep(for: .milliseconds(200))
        bridge.client.request(3, "$/ping")
        _ = await bridge.client.nextReply(skipped: &skipped)
        _ = await bridge.client.nextReply(skipped: &skipped)
        #expect(!skipped.contains { $0["method"] == "config/didRefresh" })
    }
}
