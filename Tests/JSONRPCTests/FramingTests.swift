import Foundation
import JSONRPC
import TestSupport
import Testing

@Suite struct FramingTests {
    @Test func aContentLengthClientGetsContentLengthReplies() async {
        let server = InProcessServer(handler: TestHandler(), framing: .contentLength)
        server.client.send(#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#)
        #expect(await server.client.next()?["id"] == 0)
        server.client.send(
            "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"method\": \"echo\",\n  \"params\": [\"é\"]\n}"
        )
        #expect(await server.client.next()?["result"] == ["é"])
    }

    @Test func anOversizedMessageIsAnsweredAndTheStreamGoesOn() async {
        var options = Connection.Options()
        options.maximumMessageSize = 256
        let server = await initializedServer(options: options)
        server.client.request(1, "echo", [.string(String(repeating: "x", count: 1000))])
        let reply = await server.client.next()
        #expect(errorCode(reply) == -32600)
        #expect(errorKind(reply) == "messageTooLarge")
        server.client.request(2, "echo", ["small"])
        #expect(await server.client.next()?["result"] == ["small"])
    }

    @Test func aMalformedHeaderIsAParseErrorAndTheStreamRecovers() async {
        let server = InProcessServer(handler: TestHandler(), framing: .contentLength)
        server.client.writeRaw("Content-Type: nothing\r\n\r\n")
        #expect(errorKind(await server.client.next()) == "invalidHeader")
        server.client.send(#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#)
        #expect(await server.client.next()?["id"] == 0)
    }

    /// A client that stops reading does not grow the output queue without bound (unbounded,
    /// a minute of `debug/echo` queued 2.75 GB). Past the limit the bridge stops reading: the
    /// client's own writes block, and once it reads, every answer arrives.
    @Test func aClientThatStopsReadingIsHeldBackNotBufferedAndLosesNothing() async throws {
        var options = Connection.Options()
        options.maximumQueuedOutput = 256 * 1024
        let server = await initializedServer(options: options)
        let payload = JSONValue.string(String(repeating: "x", count: 1_000))
        let total = 20_000
        let sent = LockedBox(0)
        let writer = Thread { [client = server.client] in
            for index in 1...total {
                client.request(.int(Int64(index)), "echo", ["p": payload])
                sent.update { $0 += 1 }
            }
        }
        writer.start()
        try await Task.sleep(for: .seconds(1))
        let sentWhileNotReading = sent.get()
        // 20 MB of answers would be queued; pipes and the limit hold a few hundred.
        #expect(sentWhileNotReading < 2_000, "the bridge kept reading: \(sentWhileNotReading) requests taken")
        var answered = Set<Int64>()
        while answered.count < total, let reply = await server.client.next() {
            if let id = reply["id"]?.int64Value { answered.insert(id) }
        }
        #expect(answered.count == total)
    }

    /// A 16 MiB message held a concurrent ping some 170 ms while it was parsed on the reader.
    @Test func aLargeRequestIsParsedAsideSoTheRequestsBehindItAreNotHeld() async {
        let server = await initializedServer()
        let big = JSONValue.string(String(repeating: "x", count: 8 << 20))
        server.client.request(1, "echo", ["p": big])
        server.client.request(2, "$/ping")
        let first = await server.client.next()
        // 8 MiB parsed, answered and read back: work that moves megabytes, given its longer wait.
        let second = await server.client.next(timeout: slowExpectationTimeout)
        #expect(first?["id"] == 2)
        #expect(second?["id"] == 1)
        // Compared apart, so a failure does not print 8 MiB.
        let echoedWhole = second?["result"]?["p"] == big
        #expect(echoedWhole, "the echo came back changed")
    }

    @Test func whatMustStayInOrderWaitsBehindALargeMessage() async {
        let handler = TestHandler()
        let server = await initializedServer(handler)
        let big = JSONValue.string(String(repeating: "x", count: 2 << 20))
        server.client.notify("first", ["p": big])
        server.client.notify("second")
        server.client.request(1, "echo", ["p": big])
        server.client.request(2, "shutdown")
        server.client.notify("exit")
        // 4 MiB parsed and 2 MiB echoed before the first answer: work that moves megabytes.
        let answered = [
            await server.client.next(timeout: slowExpectationTimeout)?["id"], await server.client.next()?["id"],
        ]
        #expect(answered == [1, 2], "shutdown answers after the large request received before it")
        #expect(handler.notifications.get() == ["first", "second"])
        #expect(await server.waitForExit() == 0)
    }

    @Test func requestsBehindALargeInitializeWaitForIt() async {
        let server = InProcessServer(handler: TestHandler())
        server.client.request(
            0,
            "initialize",
            ["protocolVersion": "1.0", "padding": .string(String(repeating: "x", count: 2 << 20))]
        )
        server.client.request(1, "$/ping")
        #expect(await server.client.next()?["id"] == 0)
        let ping = await server.client.next()
        #expect(ping?["id"] == 1)
        #expect(ping?["result"] == [:])
    }

    @Test func bigPayloadsFlowBothWaysWithoutDeadlock() async {
        let server = await initializedServer()
        let payload = String(repeating: "abcdefgh", count: 1 << 20)  // 8 MiB each way, far over the pipe buffer
        let writer = Thread { [client = server.client] in
            client.request(1, "echo", [.string(payload)])
        }
        writer.start()
        let reply = await server.client.next(timeout: slowExpectationTimeout)
        #expect(reply?["result"]?.arrayValue?.first?.stringValue?.utf8.count == payload.utf8.count)
    }

    @Test func theTraceRecordsEveryFrameWithDirectionAndTime() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID().uuidString).jsonl")
            .path
        var options = Connection.Options()
        options.trace = try FrameTrace(path: path)
        let server = await initializedServer(options: options)
        server.client.request(1, "$/ping")
        _ = await server.client.next()
        server.client.send("garbage")
        _ = await server.client.next()
        server.client.closeWriting()
        #expect(await server.waitForExit() == 0)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try JSONDecoding.decode(String($0))
        }
        #expect(lines.map { $0["direction"]?.stringValue ?? "" } == ["in", "out", "in", "out", "in", "out"])
        #expect(lines[2]["frame"] == #"{"jsonrpc":"2.0","id":1,"method":"$/ping"}"#)
        #expect(lines[4]["frame"] == "garbage")
        #expect(lines.allSatisfy { ($0["time"]?.stringValue ?? "").hasSuffix("Z") })
    }

    /// The trace was 0644 and held the API key as the frames carry it.
    @Test func theTraceIsPrivateAndMasksTheNamedSecrets() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID().uuidString).jsonl")
            .path
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o644)
        let trace = try FrameTrace(path: path, masking: ["apiKey"])
        trace.record(
            .incoming,
            Array(
                #"{"method":"configure","params":{"apiKey" : "pk_live_SECRET\"Q","options":{"apiKey":""}},"id":1}"#.utf8
            )
        )
        trace.flush()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("SECRET"))
        let line = try JSONDecoding.decode(String(text.split(separator: "\n")[0]))
        #expect(
            line["frame"]
                == #"{"method":"configure","params":{"apiKey" : "pk_l…(masked)","options":{"apiKey":"…(masked)"}},"id":1}"#
        )
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
    }

    @Test func framesWithoutTheNamedKeysAreTracedByteForByte() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID().uuidString).jsonl")
            .path
        let trace = try FrameTrace(path: path, masking: ["apiKey"])
        let frame = #"{"apiKeys":"x","note":"apiKey","n":1}"#
        trace.record(.incoming, Array(frame.utf8))
        trace.flush()
        let line = try JSONDecoding.decode(
            try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .newlines)
        )
        #expect(line["frame"] == .string(frame))
    }

    @Test func aRedactedRecordingTakesTheUserIdOutOfAnExchangesURLAndBody() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID().uuidString).jsonl")
            .path
        let trace = try FrameTrace(path: path, redactingUserValues: true)
        trace.record(
            .incoming,
            Array(#"{"jsonrpc":"2.0","id":1,"method":"identify","params":{"userId":"runner 042"}}"#.utf8)
        )
        trace.exchange([
            "method": "GET",
            "url": "http://127.0.0.1:9/users/runner%20042/entitlements?deviceId=runner%20042&other=runner%20042x",
            "status": 200,
            "body": #"{"appUserId":"runner 042"}"#,
        ])
        trace.flush()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let exchange = try JSONDecoding.decode(String(text.split(separator: "\n")[1]))
        #expect(exchange["direction"] == "http")
        let url = try #require(exchange["url"]?.stringValue)
        #expect(url.hasPrefix("http://127.0.0.1:9/users/redacted-"))
        #expect(url.contains("/entitlements?deviceId=redacted-"))
        // Only a whole segment is a user value.
        #expect(url.hasSuffix("&other=runner%20042x"))
        #expect(exchange["body"]?.stringValue?.contains("runner") == false)
    }
}
