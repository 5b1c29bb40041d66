import Foundation
import JSONRPC
import TestSupport
import Testing

/// Seeds come from `FUZZ_SEED` when set (to replay or explore), else a fixed one for CI.
private let seed = UInt64(ProcessInfo.processInfo.environment["FUZZ_SEED"] ?? "") ?? 0x5EED_2026

private let corpus: [String] = [
    #"{"jsonrpc":"2.0","id":1,"method":"subtract","params":[42,23]}"#,
    #"{"jsonrpc":"2.0","id":"abc","method":"echo","params":{"a":[1,2.5,"x",null,true],"b":{"c":"\u00e9\n"}}}"#,
    #"[{"jsonrpc":"2.0","id":1,"method":"sum","params":[1,2]},{"jsonrpc":"2.0","method":"note"},{"foo":"boo"}]"#,
    #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":3}}"#,
    #"{"jsonrpc":"2.0","id":null,"method":"get_data"}"#,
    #"{"jsonrpc":"2.0","id":"sw-1","result":{"type":"purchased"}}"#,
    #"{"jsonrpc":"2.0","id":9,"error":{"code":-1,"message":"m","data":[1]}}"#,
    #"{"jsonrpc":"2.0","id":18446744073709551615,"method":"echo","params":[1e308,-0.0,"\u0000"]}"#,
]

private func mutate(_ text: String, using generator: inout SeededGenerator) -> [UInt8] {
    var bytes = Array(text.utf8)
    let interesting: [UInt8] = Array("{}[]\",:\\0123456789-+.eE tfnul".utf8) + [0x00, 0x80, 0xC3, 0xFF, 0x7F]
    for _ in 0..<Int.random(in: 1...6, using: &generator) {
        guard !bytes.isEmpty else { break }
        let index = Int.random(in: 0..<bytes.count, using: &generator)
        switch Int.random(in: 0..<5, using: &generator) {
        case 0: bytes[index] = interesting.randomElement(using: &generator)!
        case 1: bytes.remove(at: index)
        case 2: bytes.insert(interesting.randomElement(using: &generator)!, at: index)
        case 3: bytes.insert(contentsOf: bytes[index...].prefix(8), at: index)
        default: bytes = Array(bytes.prefix(index))
        }
    }
    return bytes
}

@Suite struct FuzzTests {
    @Test func framingDoesNotDependOnHowTheStreamIsChunked() {
        var generator = SeededGenerator(seed: seed)
        for round in 0..<1000 {
            let framing: Framing = round % 2 == 0 ? .newlineDelimited : .contentLength
            var stream: [UInt8] = []
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                let body = mutate(corpus.randomElement(using: &generator)!, using: &generator)
                stream += Int.random(in: 0..<10, using: &generator) == 0 ? body : framing.frame(body)
            }
            var whole = FrameDecoder(maximumMessageSize: 200)
            let expected = whole.consume(stream) + whole.finish()
            var chunked = FrameDecoder(maximumMessageSize: 200)
            var events: [FrameEvent] = []
            var offset = 0
            while offset < stream.count {
                let size = Int.random(in: 1...64, using: &generator)
                events += chunked.consume(stream[offset..<min(stream.count, offset + size)])
                offset += size
            }
            events += chunked.finish()
            #expect(events == expected, "round \(round), seed \(seed)")
        }
    }

    @Test func randomBytesNeverCrashTheDecoders() {
        var generator = SeededGenerator(seed: seed &+ 1)
        for _ in 0..<10_000 {
            let length = Int.random(in: 0..<256, using: &generator)
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var decoder = FrameDecoder(maximumMessageSize: 128)
            for event in decoder.consume(bytes) + decoder.finish() {
                if case .message(let body) = event { _ = try? JSONDecoding.decode(body) }
            }
        }
    }

    /// Every malformed line gets its -32700 before the next line is read, and the server
    /// answers a sentinel after each, whatever came before it.
    @Test func everyMalformedLineIsAnsweredAndTheServerSurvives() async {
        var generator = SeededGenerator(seed: seed &+ 2)
        let server = InProcessServer(handler: TestHandler())
        await server.initialize()
        for round in 0..<2000 {
            var line = mutate(corpus.randomElement(using: &generator)!, using: &generator)
            line.removeAll { $0 == 0x0A || $0 == 0x0D }
            let text = String(decoding: line, as: UTF8.self)
            if ["exit", "shutdown", "initialize", "wait"].contains(where: text.contains) { continue }
            // Blank lines are skipped without a reply, like valid JSON that is a notification.
            let needsParseError =
                (try? JSONDecoding.decode(line)) == nil && !line.allSatisfy { $0 == 0x20 || $0 == 0x09 }
            server.client.writeRaw(line + [0x0A])
            let sentinel = JSONValue.string("sentinel-\(round)")
            server.client.request(sentinel, "$/ping")
            var sawParseError = false
            var sawSentinel = false
            while let message = await server.client.next() {
                if case .array(let replies) = message, replies.isEmpty { Issue.record("empty batch reply to \(text)") }
                if message["error"]?["code"] == -32700 { sawParseError = true }
                if message["id"] == sentinel {
                    sawSentinel = true
                    break
                }
            }
            #expect(sawSentinel, "round \(round), seed \(seed): no answer after \(text)")
            if needsParseError { #expect(sawParseError, "round \(round), seed \(seed): no -32700 for \(text) \(line)") }
            if !sawSentinel { return }
        }
        server.client.closeWriting()
        #expect(await server.waitForExit() == 0)
    }
}
