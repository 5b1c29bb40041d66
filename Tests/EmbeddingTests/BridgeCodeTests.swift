import Foundation
import Testing

@testable import SuperwallBridgeEmbedding

/// The codes of superwall_bridge.h are one list: the header's, this module's and the Java
/// class's agree, name for name (the Python client's is checked by its own suite).
@Suite struct BridgeCodeTests {
    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    private static func codes(in path: String, matching pattern: String) throws -> [String: Int32] {
        let text = try String(contentsOf: repository.appendingPathComponent(path), encoding: .utf8)
        let expression = try NSRegularExpression(pattern: pattern)
        var codes: [String: Int32] = [:]
        for match in expression.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            let name = String(text[Range(match.range(at: 1), in: text)!])
            codes[name] = Int32(text[Range(match.range(at: 2), in: text)!])
        }
        return codes
    }

    private static let swift: [String: Int32] = [
        "TAKEN": BridgeCode.taken.rawValue, "ENDED": BridgeCode.ended.rawValue,
        "INVALID_ARGUMENT": BridgeCode.invalidArgument.rawValue, "TOO_LARGE": BridgeCode.tooLarge.rawValue,
        "TIMED_OUT": BridgeCode.timedOut.rawValue, "BUSY": BridgeCode.busy.rawValue,
    ]

    @Test func theHeaderTheBridgeAndTheJavaClassNameTheSameCodes() throws {
        var header = try Self.codes(
            in: "embedding/include/superwall_bridge.h",
            matching: #"#define SUPERWALL_BRIDGE_(\w+) (\d+)"#
        )
        // receive's name for 0, which send calls TAKEN.
        #expect(header.removeValue(forKey: "RECEIVED") == BridgeCode.taken.rawValue)
        #expect(header == Self.swift)
        let java = try Self.codes(
            in: "embedding/java/com/superwall/bridge/SuperwallBridge.java",
            matching: #"\b([A-Z_]+) = (\d+)[,;]"#
        )
        #expect(java == Self.swift)
    }
}
