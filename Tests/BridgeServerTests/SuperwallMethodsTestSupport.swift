import BridgeServer
import Foundation
import JSONRPC
import Logging
import TestSupport
import Testing

func bridgeProcess(
    delegate: Bool = false,
    logLevel: RecordingLogLevel = RecordingLogLevel()
) async -> InProcessServer {
    let process = InProcessServer(handler: BridgeServer(logger: quietLogger(), logLevel: logLevel))
    process.client.request(0, "initialize", ["protocolVersion": "1.0", "capabilities": ["delegate": .bool(delegate)]])
    _ = await process.client.nextReply()
    return process
}

/// The checkout's demo config as an object, for a test to edit and write to a file.
func demoConfigObject() throws -> [String: Any] {
    let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("config/demo.json")
    return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: demo)) as? [String: Any])
}

func temporaryDirectory() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("bridge-\(UUID().uuidString)").path
}

func configureParams(_ directory: String, source: JSONValue = ["type": "embedded"]) -> JSONValue {
    [
        "apiKey": "pk_test", "options": ["configSource": source, "dataDirectory": .string(directory)],
        "device": ["platform": "iOS"],
    ]
}

/// Sends a request and returns its reply, collecting the notifications that come before it.
func call(
    _ process: InProcessServer,
    _ method: String,
    _ params: JSONValue = [:],
    notifications: inout [JSONValue]
) async -> JSONValue? {
    process.client.request("call", method, params)
    return await process.client.nextReply(skipped: &notifications)
}

func call(_ process: InProcessServer, _ method: String, _ params: JSONValue = [:]) async -> JSONValue? {
    var ignored: [JSONValue] = []
    return await call(process, method, params, notifications: &ignored)
}
