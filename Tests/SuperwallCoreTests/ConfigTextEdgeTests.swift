import Foundation
import Testing

@testable import SuperwallCore

/// Config text as editors and hand-written configs leave it: a byte order mark, a key written
/// twice, thousands of unknown keys.
@Suite struct ConfigTextEdgeTests {
    private func sampleText() throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: try sampleJSON()), as: UTF8.self)
    }

    @Test func aConfigThatStartsWithAByteOrderMarkIsRead() throws {
        let text = try sampleText()
        let marked = Data([0xEF, 0xBB, 0xBF]) + Data(text.utf8)
        let config = try Config.decode(from: marked)
        #expect(config.buildId == (try Config.decode(from: Data(text.utf8))).buildId)
    }

    @Test func ofAKeyWrittenTwiceTheLastIsReadAtEveryLevel() throws {
        let text = try sampleText()
        // At the top: an empty trigger_options first, then the real one; a build id twice.
        let top =
            "{\"trigger_options\": [], \"build_id\": \"first\"," + text.dropFirst().dropLast()
            + ", \"build_id\": \"last\"}"
        let config = try Config.decode(from: Data(top.utf8))
        #expect(!config.triggers.isEmpty)
        #expect(config.buildId == "last")
        // The real trigger_options first, then an empty one: the empty one is read.
        let emptyLast = "{" + text.dropFirst().dropLast() + ", \"trigger_options\": []}"
        #expect(try Config.decode(from: Data(emptyLast.utf8)).triggers.isEmpty)
        // Inside an element.
        let edited = text.replacingOccurrences(
            of: "\"experiment_id\":",
            with: "\"experiment_id\":\"first\",\"experiment_id\":"
        )
        #expect(edited.contains("\"first\""))
        let read = try Config.decode(from: Data(edited.utf8))
        #expect(read.triggers[0].audiences[0].experimentId != "first")
    }

    @Test func unknownKeysPastTheListedOnesAreCountedInOneWarning() throws {
        let text = try sampleText()
        let extra = (0..<5_000).map { "\"unknown_\($0)\": 1" }.joined(separator: ",")
        let config = try Config.decode(from: Data(("{" + extra + "," + text.dropFirst()).utf8))
        #expect(config.ignoredMembers.count == DroppedElementLog.ignoredListed + 1)
        #expect(
            config.ignoredMembers.last?.message
                == "\(5_000 - DroppedElementLog.ignoredListed) more unknown keys are ignored: only the first \(DroppedElementLog.ignoredListed) are listed"
        )
    }

    @Test func anUnknownKeyOfMegabytesIsNamedByItsStart() throws {
        let text = try sampleText()
        let long = String(repeating: "k", count: 1 << 20)
        let config = try Config.decode(from: Data(("{\"\(long)\": 1," + text.dropFirst()).utf8))
        let warning = try #require(config.ignoredMembers.first)
        #expect(warning.description.utf8.count < 1_000)
        #expect(warning.message.hasPrefix("unknown key \"kkkk"))
    }
}
