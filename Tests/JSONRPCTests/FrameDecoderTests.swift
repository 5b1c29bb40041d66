import JSONRPC
import TestSupport
import Testing

@Suite struct FrameDecoderTests {
    private func messages(_ events: [FrameEvent]) -> [String] {
        events.compactMap {
            if case .message(let body) = $0 { return String(decoding: body, as: UTF8.self) }
            return nil
        }
    }

    @Test func newlineDelimitedIsTheDefault() {
        var decoder = FrameDecoder()
        let events = decoder.consume(Array("{\"a\":1}\n[2]\n".utf8))
        #expect(messages(events) == ["{\"a\":1}", "[2]"])
        #expect(decoder.framing == .newlineDelimited)
    }

    @Test func aMessageSplitAcrossReadsIsReassembled() {
        var decoder = FrameDecoder()
        var events: [FrameEvent] = []
        for byte in "{\"a\":\"b\"}\n{\"c\":2}\n".utf8 { events += decoder.consume([byte]) }
        #expect(messages(events) == ["{\"a\":\"b\"}", "{\"c\":2}"])
    }

    @Test func carriageReturnsAndBlankLinesAreIgnored() {
        var decoder = FrameDecoder()
        let events = decoder.consume(Array("\r\n  \n{\"a\":1}\r\n\n\t\n{\"b\":2}\n".utf8))
        #expect(messages(events) == ["{\"a\":1}", "{\"b\":2}"])
    }

    @Test func aLastLineWithoutNewlineIsDeliveredAtEndOfStream() {
        var decoder = FrameDecoder()
        #expect(messages(decoder.consume(Array("{\"a\":1}\n{\"b\":2}".utf8))) == ["{\"a\":1}"])
        #expect(messages(decoder.finish()) == ["{\"b\":2}"])
    }

    @Test func anOversizedLineIsSkippedAsItArrivesThenReportedWithItsSize() {
        var decoder = FrameDecoder(maximumMessageSize: 16)
        let head = "{\"a\":\"0123456789012345678901234567890\""
        #expect(decoder.consume(Array(head.utf8)).isEmpty)
        let tail = "more bytes of the same line"
        let events = decoder.consume(Array("\(tail)\n{\"ok\":1}\n".utf8))
        #expect(
            events == [
                .tooLarge(size: head.utf8.count + tail.utf8.count, limit: 16), .message(Array("{\"ok\":1}".utf8)),
            ]
        )
    }

    @Test func anOversizedLastLineIsReportedAtEndOfStream() {
        var decoder = FrameDecoder(maximumMessageSize: 4)
        #expect(decoder.consume(Array("[1,2,3,4,5,6]".utf8)).isEmpty)
        #expect(decoder.finish() == [.tooLarge(size: 13, limit: 4)])
    }

    @Test func anOversizedLineThatArrivesWholeIsReportedOnce() {
        var decoder = FrameDecoder(maximumMessageSize: 8)
        let events = decoder.consume(Array("[1,2,3,4,5,6,7]\n[1]\n".utf8))
        #expect(events == [.tooLarge(size: 15, limit: 8), .message(Array("[1]".utf8))])
    }

    @Test func contentLengthIsDetectedFromTheFirstByte() {
        for header in ["Content-Length", "content-length", "CONTENT-LENGTH"] {
            var decoder = FrameDecoder()
            let events = decoder.consume(Array("\(header): 7\r\n\r\n{\"a\":1}\(header): 2\r\n\r\n[]".utf8))
            #expect(messages(events) == ["{\"a\":1}", "[]"])
            #expect(decoder.framing == .contentLength)
        }
    }

    @Test func whitespaceBeforeTheFirstHeaderDoesNotChangeDetection() {
        let body = "{\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"x\"\n}"
        var decoder = FrameDecoder()
        let frame =
            "Content-Type: application/vscode-jsonrpc; charset=utf8\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        // Leading whitespace before the first header does not change the detection.
        var events = decoder.consume(Array(" \r\n".utf8))
        events += decoder.consume(Array(frame.utf8))
        #expect(decoder.framing == .contentLength)
        #expect(messages(events) == [body])
    }

    @Test func contentLengthHeadersMayStartTheStream() {
        let body = "{\n  \"method\": \"x\"\n}"
        var decoder = FrameDecoder()
        let events = decoder.consume(
            Array("Content-Length: \(body.utf8.count)\r\nContent-Type: application/json\r\n\r\n\(body)".utf8)
        )
        #expect(messages(events) == [body])
    }

    @Test func contentLengthCountsBytesNotCharacters() {
        let body = "{\"s\":\"日本\"}"
        var decoder = FrameDecoder()
        let events = decoder.consume(Array("Content-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8))
        #expect(messages(events) == [body])
    }

    @Test func contentLengthBodiesSplitAcrossReadsAreReassembled() {
        var decoder = FrameDecoder()
        var events: [FrameEvent] = []
        for byte in "Content-Length: 9\r\n\r\n{\"a\":\"b\"}Content-Length: 2\n\n[]".utf8 {
            events += decoder.consume([byte])
        }
        #expect(messages(events) == ["{\"a\":\"b\"}", "[]"])
    }

    @Test func anOversizedContentLengthBodyIsSkippedExactly() {
        var decoder = FrameDecoder(maximumMessageSize: 4)
        var events = decoder.consume(Array("Content-Length: 10\r\n\r\n01234".utf8))
        #expect(events == [.tooLarge(size: 10, limit: 4)])
        events = decoder.consume(Array("56789Content-Length: 2\r\n\r\n[]".utf8))
        #expect(messages(events) == ["[]"])
    }

    @Test func aHeaderBlockWithoutLengthIsMalformed() {
        var decoder = FrameDecoder(framing: .contentLength)
        let events = decoder.consume(Array("Content-Type: x\r\n\r\nContent-Length: 2\r\n\r\n[]".utf8))
        #expect(events.count == 2)
        if case .malformedHeader = events[0] {} else { Issue.record("expected a malformed header, got \(events[0])") }
        #expect(messages(events) == ["[]"])
    }

    @Test func aNegativeOrNonNumericLengthIsMalformed() {
        for bad in ["-1", "ten", ""] {
            var decoder = FrameDecoder()
            let events = decoder.consume(Array("Content-Length: \(bad)\r\n\r\n".utf8))
            #expect(events.count == 1)
            if case .malformedHeader = events.first {} else { Issue.record("\(bad): expected malformed header") }
        }
    }

    /// A lying header costs only its own message: every well-framed message after it is
    /// answered, and a length of 2^62 does not swallow the stream.
    @Test(arguments: ["-5", "ten", "", "3", "1000", "4611686018427387904"])
    func aHeaderThatLiesCostsOnlyItsOwnMessage(_ declared: String) {
        var decoder = FrameDecoder(maximumMessageSize: 64 * 1024)
        let ping = #"{"jsonrpc":"2.0","id":1,"method":"$/ping"}"#
        var stream = "Content-Length: \(declared)\r\n\r\n" + ping
        for _ in 0..<10 { stream += "Content-Length: \(ping.utf8.count)\r\n\r\n" + ping }
        let events = decoder.consume(Array(stream.utf8))
        #expect(messages(events).suffix(10) == Array(repeating: ping, count: 10), "after Content-Length: \(declared)")
        #expect(events.count <= 12)
    }

    @Test func aLengthOverTheLimitIsRefusedAtOnceAndTheNextHeaderIsRead() {
        var decoder = FrameDecoder(maximumMessageSize: 1024)
        var events = decoder.consume(Array("Content-Length: 4611686018427387904\r\n\r\n{\"a\":".utf8))
        #expect(events == [.tooLarge(size: 4_611_686_018_427_387_904, limit: 1024)])
        events = decoder.consume(Array("1}Content-Length: 2\r\n\r\n[]".utf8))
        #expect(messages(events) == ["[]"])
    }

    /// A header that announces more bytes than follow ends its message at the next header,
    /// even when nothing more arrives: the client waiting for answers is not stuck.
    @Test func aLengthLongerThanTheBodyEndsAtTheNextHeaderWithoutWaiting() {
        var decoder = FrameDecoder()
        let events = decoder.consume(Array("Content-Length: 500\r\n\r\n{}Content-Length: 2\r\n\r\n[]".utf8))
        #expect(messages(events) == ["{}", "[]"])
    }

    @Test func aRawContentLengthTextInsideAValidBodyIsImpossibleSoStringsAreSafe() {
        var decoder = FrameDecoder()
        let body = #"{"text":"Content-Length: 5\r\n\r\nhello"}"#
        let events = decoder.consume(Array("Content-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8))
        #expect(messages(events) == [body])
    }

    @Test func endlessHeadersAreCutOffAtTheHeaderLimit() {
        var decoder = FrameDecoder(framing: .contentLength)
        let events = decoder.consume([UInt8](repeating: UInt8(ascii: "C"), count: 10_000))
        #expect(events.count == 1)
        if case .malformedHeader = events.first {} else { Issue.record("expected malformed header") }
    }

    @Test func aBodyCutShortByEndOfStreamIsReported() {
        var decoder = FrameDecoder()
        _ = decoder.consume(Array("Content-Length: 10\r\n\r\n{\"a\"".utf8))
        #expect(decoder.finish() == [.truncated(expected: 10, received: 4)])
    }

    @Test func forcedNewlineFramingTreatsAHeaderAsALine() {
        var decoder = FrameDecoder(framing: .newlineDelimited)
        let events = decoder.consume(Array("Content-Length: 2\n".utf8))
        #expect(messages(events) == ["Content-Length: 2"])
    }

    @Test func framesAreWrittenInEitherFraming() {
        #expect(Framing.newlineDelimited.frame(Array("[]".utf8)) == Array("[]\n".utf8))
        #expect(Framing.contentLength.frame(Array("é".utf8)) == Array("Content-Length: 2\r\n\r\né".utf8))
    }

    @Test func aLongLineIsScannedInLinearTime() {
        // 4 MiB in 4 KiB reads: a decoder that rescans from the start would do ~2 TB of work.
        var decoder = FrameDecoder()
        let chunk = [UInt8](repeating: UInt8(ascii: "1"), count: 4096)
        var events: [FrameEvent] = decoder.consume([UInt8(ascii: "[")])
        for _ in 0..<1024 { events += decoder.consume(chunk) }
        events += decoder.consume(Array("]\n".utf8))
        #expect(events.count == 1)
        if case .message(let body) = events.first { #expect(body.count == 4 * 1024 * 1024 + 2) }
    }
}

/// The events a stream gives do not depend on how its reads split it.
@Suite struct FrameChunkingTests {
    private func whole(_ stream: [UInt8], limit: Int, framing: Framing? = nil) -> [FrameEvent] {
        var decoder = FrameDecoder(maximumMessageSize: limit, framing: framing)
        return decoder.consume(stream) + decoder.finish()
    }

    private func inPieces(_ stream: [UInt8], limit: Int, sizes: [Int], framing: Framing? = nil) -> [FrameEvent] {
        var decoder = FrameDecoder(maximumMessageSize: limit, framing: framing)
        var events: [FrameEvent] = []
        var index = 0
        var turn = 0
        while index < stream.count {
            let end = min(stream.count, index + sizes[turn % sizes.count])
            events += decoder.consume(stream[index..<end])
            index = end
            turn += 1
        }
        return events + decoder.finish()
    }

    @Test func aLastUnterminatedLineOneByteOverTheLimitIsTooLargeNotAMessage() {
        let line = Array(("{\"a\":\"" + String(repeating: "x", count: 4) + "\"}").utf8)  // 12 bytes
        #expect(whole(line, limit: 11) == [.tooLarge(size: 12, limit: 11)])
        #expect(inPieces(line, limit: 11, sizes: [5]) == [.tooLarge(size: 12, limit: 11)])
        #expect(whole(line, limit: 12) == [.message(line)])
    }

    @Test func aLineOverTheLimitIsTooLargeWhateverItHoldsAndHoweverItIsRead() {
        let limit = 16
        for text in [String(repeating: " ", count: 40), "{\"a\":1}" + String(repeating: " ", count: 30)] {
            let stream = Array(("{\"x\":0}\n" + text + "\n{\"b\":2}\n").utf8)
            let expected = whole(stream, limit: limit)
            #expect(expected.contains(.tooLarge(size: text.utf8.count, limit: limit)), "\(expected)")
            for sizes in [[1], [3], [7], [2, 5, 1]] {
                #expect(inPieces(stream, limit: limit, sizes: sizes) == expected, "\(sizes)")
            }
        }
    }

    @Test func aCarriageReturnSplitFromItsNewlineIsNotCounted() {
        let stream = Array((String(repeating: "y", count: 20) + "\r\n").utf8)
        let expected: [FrameEvent] = [.tooLarge(size: 20, limit: 10)]
        #expect(whole(stream, limit: 10) == expected)
        #expect(inPieces(stream, limit: 10, sizes: [21, 1]) == expected)
        #expect(inPieces(stream, limit: 10, sizes: [11, 10, 1]) == expected)
    }

    @Test func afterARefusedHeaderALineLongerThanTheWindowIsNotAHeaderWholeOrInPieces() {
        let long = "content-length:" + String(repeating: " ", count: 80) + "5\r\n\r\nhello"
        let stream = Array(("Content-Length: 50\r\n\r\nxxxxx\n" + long + "Content-Length: 2\r\n\r\nok").utf8)
        let expected: [FrameEvent] = [.tooLarge(size: 50, limit: 10), .message(Array("ok".utf8))]
        #expect(whole(stream, limit: 10) == expected)
        for sizes in [[1], [5], [13], [64, 1]] {
            #expect(inPieces(stream, limit: 10, sizes: sizes) == expected, "\(sizes)")
        }
    }

    @Test func randomNewlineDelimitedStreamsGiveTheSameEventsInAnyPieces() {
        var generator = SeededGenerator(seed: 7)
        let alphabet = Array("{}\"a1 \t\r\n".utf8)
        for _ in 0..<500 {
            let length = Int(generator.next() % 80)
            let stream = (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            let limit = Int(generator.next() % 12) + 1
            let sizes = (0..<3).map { _ in Int(generator.next() % 7) + 1 }
            let expected = whole(stream, limit: limit, framing: .newlineDelimited)
            #expect(
                inPieces(stream, limit: limit, sizes: sizes, framing: .newlineDelimited) == expected,
                "\(String(decoding: stream, as: UTF8.self).debugDescription) limit \(limit) pieces \(sizes)"
            )
            for case .message(let body) in expected { #expect(body.count <= limit) }
        }
    }
}
