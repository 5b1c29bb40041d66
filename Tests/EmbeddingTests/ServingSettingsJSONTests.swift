import BridgeServer
import Foundation
import Logging
import Testing

@testable import BridgeCommandLine
@testable import SuperwallBridgeEmbedding

@Suite struct ServingSettingsJSONTests {
    private func options(_ text: String) throws -> ServingSettings {
        try ServingSettings(json: Array(text.utf8))
    }

    @Test func noOptionsAreTheCommandLinesDefaults() throws {
        #expect(try ServingSettings(json: nil) == ServingSettings())
        #expect(try options("") == ServingSettings())
        #expect(ServingSettings().logLevel == .warning)
        #expect(ServingSettings().maxMessageSize == 64 * 1024 * 1024)
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
        #expect(try options(#"{"record":"/tmp/session.jsonl"}"#).record == "/tmp/session.jsonl")
    }

    @Test func aRecordingNamesItsSeedAndCannotShareTheConnectionWithATrace() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("record-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var settings = ServingSettings()
        settings.record = directory.appendingPathComponent("session.jsonl").path
        let ready = settings.readyToServe()
        let seed = try #require(ready.recordSeed)
        #expect(ready.readyToServe().recordSeed == seed, "a seed once chosen is kept")
        #expect(ServingSettings().readyToServe().recordSeed == nil, "no recording, no seed")
        do {
            let options = try ready.connectionOptions()
            _ = options
        }
        let header = try String(contentsOfFile: settings.record!, encoding: .utf8)
        #expect(header.contains(#""direction":"note""#) && header.contains(#""randomSeed":\#(seed)"#), "\(header)")
        settings.trace = directory.appendingPathComponent("trace.jsonl").path
        #expect(throws: ServingSettings.Conflict.self) { try settings.connectionOptions() }
    }

    @Test(arguments: [
        (#"{"logLevel":"loud"}"#, "logLevel must be one of"),
        (#"{"maxMessageSize":0}"#, "maxMessageSize must be a positive"),
        (#"{"maxMessageSize":"1"}"#, "maxMessageSize must be a positive"),
        (#"{"watch":1}"#, "watch must be true or false"),
        (#"{"recordRedact":true}"#, "give record too"),
        (#"{"trace":"/tmp/a","record":"/tmp/b"}"#, "cannot both be given"),
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

/// The command line and `superwall_bridge_open` take one list of serving settings: each
/// in-process option is a flag of the command line (in kebab case), with the same default.
@Suite struct OneListOfServingSettingsTests {
    @Test func everyOptionIsAFlagOfTheCommandLineAndTheDefaultsAgree() throws {
        let help = Serve.helpMessage(columns: 200)
        for name in ServingSettings.names {
            let flag = "--" + name.replacing(/[A-Z]/) { "-" + $0.output.lowercased() }
            #expect(help.contains(flag), "the command line has no \(flag)")
        }
        let parsed = try SuperwallBridgeCommand.parseAsRoot([]) as? Serve
        #expect(parsed?.settings == ServingSettings())
    }

    /// A root option is read anywhere on the line: `--record` is `serve`'s, so that `fake-api`
    /// keeps its own.
    @Test func recordIsTheServingFlagAndFakeAPIKeepsItsOwn() throws {
        let serve =
            try SuperwallBridgeCommand.parseAsRoot(["--log-level", "debug", "--record", "/tmp/s.jsonl"]) as? Serve
        #expect(serve?.settings.record == "/tmp/s.jsonl")
        #expect(serve?.settings.logLevel == .debug)
        let fake = try SuperwallBridgeCommand.parseAsRoot(["fake-api", "--record", "/tmp/r.jsonl"]) as? FakeAPICommand
        #expect(fake?.record == "/tmp/r.jsonl")
    }
}
