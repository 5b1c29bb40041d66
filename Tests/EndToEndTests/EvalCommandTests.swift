import Foundation
import JSONRPC
import TestSupport
import Testing

@Suite struct EvalCommandTests {
    @Test func evalPrintsTheTaggedValueAndExitsZero() async throws {
        let result = try await runBridge(["eval", "size('héllo') + 1"])
        #expect(result.status == 0)
        #expect(result.stdout == "{\"value\":{\"type\":\"int\",\"value\":7}}\n")
    }

    @Test func evalReadsAContextFile() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("context-\(UUID().uuidString).json")
            .path
        try Data(
            #"{"variables": {"map": {"user": {"type": "map", "value": {"plan": {"type": "string", "value": "pro"}}}}}}"#
                .utf8
        )
        .write(to: URL(fileURLWithPath: path))
        let result = try await runBridge(["eval", "user.plan == 'pro' && user.missing < 3", "--context", path])
        #expect(result.status == 0)
        #expect(result.stdout == "{\"value\":{\"type\":\"bool\",\"value\":true}}\n")
    }

    /// `{"user": {"plan": "pro"}}` is read as plain JSON: not `Null` with exit 0.
    @Test func evalReadsAPlainJSONContext() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("context-\(UUID().uuidString).json")
            .path
        try Data(#"{"user": {"plan": "pro", "workouts": 3, "tags": ["a"]}}"#.utf8).write(to: URL(fileURLWithPath: path))
        let result = try await runBridge([
            "eval", "user.plan == 'pro' && user.workouts >= 3 && size(user.tags) == 1", "--context", path,
        ])
        #expect(result.status == 0)
        #expect(result.stdout == "{\"value\":{\"type\":\"bool\",\"value\":true}}\n")
    }

    /// A typed context that declares only host functions was read as plain JSON, and
    /// `device.daysSince("x") > 3` answered Null.
    @Test func evalRecognisesATypedContextThatDeclaresOnlyHostFunctions() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("context-\(UUID().uuidString).json")
            .path
        try Data(
            #"{"device": {"daysSince": [{"type": "string", "value": "x"}]}, "host": {"daysSince": {"type": "int", "value": 5}}}"#
                .utf8
        )
        .write(to: URL(fileURLWithPath: path))
        let result = try await runBridge(["eval", #"device.daysSince("x") > 3"#, "--context", path])
        #expect(result.status == 0)
        #expect(result.stdout == "{\"value\":{\"type\":\"bool\",\"value\":true}}\n")
        // Plain JSON that happens to have a `device` is still plain JSON.
        try Data(#"{"device": {"platform": "iOS"}}"#.utf8).write(to: URL(fileURLWithPath: path))
        let plain = try await runBridge(["eval", #"device.platform == "iOS""#, "--context", path])
        #expect(plain.stdout == "{\"value\":{\"type\":\"bool\",\"value\":true}}\n")
    }

    @Test func aTypedContextWithStrayKeysIsRefusedNotReadAsNull() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("context-\(UUID().uuidString).json")
            .path
        try Data(#"{"variables": {}, "user": {"plan": "pro"}}"#.utf8).write(to: URL(fileURLWithPath: path))
        let result = try await runBridge(["eval", "user.plan", "--context", path])
        #expect(result.status == 64)
        #expect(result.stderr.contains("context.user is not part of the typed form"))
    }

    @Test func anExpressionStartingWithAMinusNeedsNoDoubleDash() async throws {
        let result = try await runBridge(["eval", "-1 + 2"])
        #expect(result.status == 0)
        #expect(result.stdout == "{\"value\":{\"type\":\"int\",\"value\":1}}\n")
    }

    /// `--context /dev/zero` ran the machine out of memory; a FIFO blocked for ever.
    @Test func aContextThatIsNotARegularFileIsRefusedAtOnce() async throws {
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("context-\(UUID().uuidString)").path
        #expect(mkfifo(fifo, 0o600) == 0)
        for (path, words) in [("/dev/zero", "character device"), (fifo, "FIFO")] {
            let result = try await runBridge(["eval", "true", "--context", path])
            #expect(result.status == 64)
            #expect(result.stderr.contains(words))
        }
    }

    @Test func evalPrintsAnErrorAndExitsOneForABadExpression() async throws {
        let result = try await runBridge(["eval", "0x10 == 16"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("\"error\"") && result.stdout.contains("Hexadecimal"))
    }

    @Test func evalRefusesAMissingOrMalformedContextFile() async throws {
        let missing = try await runBridge(["eval", "true", "--context", "/nonexistent/context.json"])
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("Cannot open the context file"))
        #expect(missing.stdout.isEmpty)
    }
}
