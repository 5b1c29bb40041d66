import Foundation
import JSONRPC
import SuperwallCore
import Testing

@testable import BridgeServer

@Suite struct RecordedHTTPAnswersTests {
    private static func attempt(_ method: String, _ url: String) -> HTTPAttempt {
        HTTPAttempt(
            method: method,
            url: URL(string: url)!,
            headers: [:],
            body: nil,
            timeout: .milliseconds(20),
            bodyLimit: 1 << 20
        )
    }

    /// Writes `exchanges` as a recording's lines, each after `framesBefore` more of the client's
    /// frames (none by default), and loads them.
    private static func answers(
        _ exchanges: [(HTTPAttempt, HTTPOutcome)],
        framesBefore: [Int]? = nil
    ) throws -> RecordedHTTPAnswers {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("recording-\(UUID().uuidString).jsonl")
        var lines = [#"{"direction":"note","recording":1}"#]
        for (index, (attempt, outcome)) in exchanges.enumerated() {
            let frames = framesBefore?[index] ?? 0
            lines += Array(repeating: #"{"direction":"in","frame":"{}"}"#, count: frames)
            lines.append(#"{"direction":"out","frame":"{}"}"#)
            var entry = HTTPExchangeRecording.members(attempt, outcome)
            entry["direction"] = "http"
            lines.append(String(decoding: JSONWriter.encode(.object(entry)), as: UTF8.self))
        }
        try Data(lines.joined(separator: "\n").utf8).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        return try RecordedHTTPAnswers(path: path.path)
    }

    @Test func eachAttemptGetsTheNextRecordedOutcomeOfItsMethodAndURLThenTheLastAgain() async throws {
        let config = Self.attempt("GET", "http://api.test/api/v1/static_config?pk=pk_live_secret")
        let events = Self.attempt("POST", "http://api.test/api/v1/events")
        let answers = try Self.answers([
            (config, .answered(status: 503, body: Data("busy".utf8))),
            (events, .answered(status: 200, body: Data(#"{"status":"ok"}"#.utf8))),
            (config, .answered(status: 200, body: Data(#"{"build_id":"b"}"#.utf8))),
        ])
        #expect(answers.count == 3)
        // The replayed key is masked differently: the key is not what an attempt is matched by.
        let replayed = Self.attempt("GET", "http://api.test/api/v1/static_config?pk=pk_l%E2%80%A6(masked)")
        #expect(try await answers.send(replayed) == .answered(status: 503, body: Data("busy".utf8)))
        #expect(try await answers.send(replayed) == .answered(status: 200, body: Data(#"{"build_id":"b"}"#.utf8)))
        #expect(try await answers.send(replayed) == .answered(status: 200, body: Data(#"{"build_id":"b"}"#.utf8)))
        #expect(try await answers.send(events) == .answered(status: 200, body: Data(#"{"status":"ok"}"#.utf8)))
    }

    @Test func anAnswerWaitsForTheClientsFramesTheRecordingHasBeforeIt() async throws {
        var assignments = Self.attempt("GET", "http://api.test/api/v1/assignments")
        assignments.timeout = .seconds(600)
        let config = Self.attempt("GET", "http://api.test/api/v1/static_config")
        let answers = try Self.answers(
            [
                (config, .answered(status: 200, body: Data("{}".utf8))),
                (assignments, .answered(status: 200, body: Data(#"{"assignments":[]}"#.utf8))),
            ],
            framesBefore: [0, 2]
        )
        let held = Task { try await answers.send(assignments) }
        for _ in 0..<10_000 where answers.answersWaiting == 0 { try await Task.sleep(for: .milliseconds(1)) }
        try #require(answers.answersWaiting == 1)
        // An exchange with no frames before it is answered at once.
        #expect(try await answers.send(config) == .answered(status: 200, body: Data("{}".utf8)))
        answers.clientSent(Array(#"{"jsonrpc":"2.0","id":"replay-1","method":"debug/advanceClock"}"#.utf8))
        answers.clientSent(Array(#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#.utf8))
        // The replay's own request is not the session's: one of the two frames is read.
        #expect(answers.answersWaiting == 1)
        answers.clientSent(Array(#"{"jsonrpc":"2.0","id":2,"method":"identify"}"#.utf8))
        #expect(try await held.value == .answered(status: 200, body: Data(#"{"assignments":[]}"#.utf8)))
        #expect(answers.answersWaiting == 0)
    }

    @Test func anAnswerWhoseFramesNeverComeIsGivenWhenTheAttemptsTimeIsOut() async throws {
        let events = Self.attempt("POST", "http://api.test/api/v1/events")
        let answers = try Self.answers([(events, .answered(status: 200, body: Data("{}".utf8)))], framesBefore: [3])
        #expect(try await answers.send(events) == .answered(status: 200, body: Data("{}".utf8)))
    }

    @Test func aURLThatDiffersOnlyByAUUIDIsTheSameRequest() async throws {
        let recorded = Self.attempt(
            "GET",
            "http://api.test/users/$SuperwallAlias:CF43CEED-D67B-411F-9876-203F2C313508/entitlements"
        )
        let answers = try Self.answers([(recorded, .answered(status: 200, body: Data("{}".utf8)))])
        let replayed = Self.attempt(
            "GET",
            "http://api.test/users/$SuperwallAlias:0A1B2C3D-D67B-411F-9876-203F2C31350F/entitlements"
        )
        #expect(try await answers.send(replayed) == .answered(status: 200, body: Data("{}".utf8)))
    }

    @Test func failuresReplayAsTheyCameAndARequestNeverMadeFailsSayingSo() async throws {
        let refused = Self.attempt("GET", "http://api.test/api/v1/assignments")
        let large = Self.attempt("GET", "http://api.test/api/v1/paywall/p")
        let silent = Self.attempt("POST", "http://api.test/api/v1/events")
        let answers = try Self.answers([
            (refused, .failed(.transport("the connection was refused"))),
            (large, .failed(.tooLarge(limit: 10))),
            (silent, .noAnswer),
        ])
        #expect(try await answers.send(refused) == .failed(.transport("the connection was refused")))
        #expect(try await answers.send(large) == .failed(.tooLarge(limit: 10)))
        #expect(try await answers.send(silent) == .noAnswer)
        let unknown = try await answers.send(Self.attempt("GET", "http://api.test/api/v1/other"))
        #expect(unknown == .failed(.transport("the recording holds no answer for GET http://api.test/api/v1/other")))
    }

    @Test func bytesThatAreNotUTF8AreKeptWhole() async throws {
        let attempt = Self.attempt("GET", "http://api.test/blob")
        let bytes = Data([0xFF, 0x00, 0xC3])
        let members = HTTPExchangeRecording.members(attempt, .answered(status: 200, body: bytes))
        #expect(members["body"] == nil)
        #expect(members["bodyBase64"] == .string(bytes.base64EncodedString()))
        let answers = try Self.answers([(attempt, .answered(status: 200, body: bytes))])
        #expect(try await answers.send(attempt) == .answered(status: 200, body: bytes))
    }

    @Test func theRecordedURLMasksTheAPIKey() {
        let members = HTTPExchangeRecording.members(
            Self.attempt("GET", "http://api.test/api/v1/static_config?pk=pk_live_secret&locale=de"),
            .noAnswer
        )
        let url = members["url"]?.stringValue ?? ""
        #expect(!url.contains("secret"))
        #expect(url.hasPrefix("http://api.test/api/v1/static_config?pk=pk_l"))
        #expect(url.hasSuffix("&locale=de"))
    }
}
