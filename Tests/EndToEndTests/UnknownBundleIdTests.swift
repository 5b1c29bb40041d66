import Foundation
import JSONRPC
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite struct UnknownBundleIdTests {
    /// A config naming the app's bundle id, and a client that gave none: test mode stays off,
    /// and the log says what to set, rather than test mode switching on without a word.
    @Test func aConfigNamingTheBundleIdWhenTheClientGaveNoneIsWarnedOfAtTheDefaultLevel() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bundle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let demo = try await runBridge(["demo-config"]).stdout
        guard case .object(var config) = try JSONDecoding.decode(demo) else {
            Issue.record("the demo config is not an object")
            return
        }
        config["bundle_id_config"] = "com.pockettrainer"
        let path = folder.appendingPathComponent("config.json").path
        try Data(JSONWriter.encode(.object(config))).write(to: URL(fileURLWithPath: path))
        let bridge = try BridgeProcess()
        await bridge.initialize()
        let configured = await call(
            bridge,
            1,
            "configure",
            [
                "apiKey": "pk_bundle",
                "options": [
                    "configSource": ["type": "file", "path": .string(path)],
                    "dataDirectory": .string(folder.appendingPathComponent("data").path),
                ],
            ]
        )
        #expect(configured?["result"]?["configurationStatus"] == "configured")
        bridge.client.closeWriting()
        #expect(await bridge.waitForExit() == 0)
        #expect(
            bridge.stderr.contains("bundle_id_config com.pockettrainer") && bridge.stderr.contains("device.bundleId"),
            "\(bridge.stderr)"
        )
    }
}
