import Logging
import Testing

@testable import SuperwallBridgeEmbedding

@Suite struct EmbeddingOptionsTests {
    private func options(_ text: String) throws -> EmbeddingOptions {
        try EmbeddingOptions(json: Array(text.utf8))
    }

    @Test func noOptionsAreTheCommandLinesDefaults() throws {
        #expect(try EmbeddingOptions(json: nil) == EmbeddingOptions())
        #expect(try options("") == EmbeddingOptions())
        #expect(EmbeddingOptions().logLevel == .warning)
        #expect(EmbeddingOptions().maxMessageSize == 64 * 1024 * 1024)
    }

    @Test func theServingFlagsAreReadByTheirCamelCaseNames() throws {
        let read = try options(
            #"{"logLevel":"debug","trace":"/tmp/t.jsonl","maxMessageSize":4096,"maxQueuedOutput":8192,"maxConfigSize":1000,"watch":true}"#
        )
        #expect(read.logLevel == .debug)
        #expect(read.trace == "/tmp/t.jsonl")
        #expect(read.maxMessageSize == 4096)
        #expect(read.maxQueuedOutput == 8192)
        #expect(read.maxConfigSize == 1000)
        #expect(read.watch)
    }

    @Test(arguments: [
        (#"{"logLevel":"loud"}"#, "logLevel must be one of"),
        (#"{"maxMessageSize":0}"#, "maxMessageSize must be a positive"),
        (#"{"maxMessageSize":"1"}"#, "maxMessageSize must be a positive"),
        (#"{"watch":1}"#, "watch must be true or false"),
        (#"{"framing":"ndjson"}"#, #"unknown option "framing""#),
        (#"["logLevel"]"#, "must be a JSON object"),
        (#"{"logLevel":"#, "not JSON"),
    ])
    func aMistakeIsRefusedSayingWhat(text: String, expected: String) {
        #expect {
            try options(text)
        } throws: { error in
            "\(error)".contains(expected)
        }
    }
}
