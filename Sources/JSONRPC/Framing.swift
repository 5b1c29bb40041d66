import JSONText

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How messages are delimited on the byte stream.
public enum Framing: String, Sendable, CaseIterable {
    /// One JSON text per line (MCP, ACP).
    case newlineDelimited = "ndjson"
    /// `Content-Length: N` headers, a blank line, then N bytes (LSP).
    case contentLength = "content-length"

    /// The bytes of one frame carrying `body`.
    /// The body is consumed: a newline-delimited frame is the body itself with its newline,
    /// not a copy of megabytes.
    public func frame(_ body: consuming [UInt8]) -> [UInt8] {
        switch self {
        case .newlineDelimited:
            var frame = body
            frame.append(UInt8(ascii: "\n"))
            return frame
        case .contentLength:
            var frame = Array("Content-Length: \(body.count)\r\n\r\n".utf8)
            frame.append(contentsOf: body)
            return frame
        }
    }
}

/// What the frame decoder found in the stream.
public enum FrameEvent: Sendable, Equatable {
    /// The body of one message (not yet parsed as JSON).
    case message([UInt8])
    /// A message longer than the limit; its bytes are skipped and the stream goes on.
    case tooLarge(size: Int, limit: Int)
    /// A header block that does not say how long its body is.
    case malformedHeader(String)
    /// The stream ended inside a Content-Length body.
    case truncated(expected: Int, received: Int)
}

/// Splits a byte stream into message bodies. Pure: bytes in, events out, no I/O.
///
/// The framing is taken from the first non-whitespace byte unless it was given: `C` or `c`
/// starts Content-Length headers, anything else is newline-delimited JSON. Blank lines are
/// skipped, one `\r` before a `\n` is dropped, a last line with no newline is delivered by
/// `finish()`, and a message over `maximumMessageSize` bytes is reported and skipped without
/// buffering it, so one oversized message never costs the session. With Content-Length
/// framing, a header that is malformed or announces more than the limit costs only its own
/// message: the decoder resumes at the next header. A header that announces too many bytes
/// is caught the same way, as no valid JSON body holds a raw `Content-Length: N` line.
public struct FrameDecoder: Sendable {
    public private(set) var framing: Framing?
    public let maximumMessageSize: Int

    private var buffer: [UInt8] = []
    /// Bytes before this index have been consumed.
    private var start = 0
    /// Where the search for the next newline resumes, so a long line is scanned only once.
    private var scanFrom = 0
    private var state = State.idle

    private enum State: Sendable {
        case idle
        /// Dropping the rest of an oversized line (newline-delimited), `skipped` bytes so far.
        case skippingLine(skipped: Int)
        /// Reading the body of a Content-Length message.
        case readingBody(length: Int)
        /// Looking for the next `Content-Length` header after a header that lied or was
        /// refused: the body it announced cannot be trusted, so the stream resumes at the
        /// next header rather than after so many bytes.
        case resynchronising
    }

    /// The longest header block accepted before it is declared malformed.
    static let maximumHeaderSize = 8 * 1024

    public init(maximumMessageSize: Int = 64 * 1024 * 1024, framing: Framing? = nil) {
        self.maximumMessageSize = maximumMessageSize
        self.framing = framing
    }

    /// Adds bytes read from the stream and returns every event they complete.
    public mutating func consume<Bytes: Collection>(_ bytes: Bytes) -> [FrameEvent] where Bytes.Element == UInt8 {
        buffer.append(contentsOf: bytes)
        var events: [FrameEvent] = []
        while let event = nextEvent() { events.append(event) }
        compact()
        return events
    }

    /// Signals the end of the stream and returns what is left: a last unterminated line, or
    /// the report of a truncated body.
    public mutating func finish() -> [FrameEvent] {
        defer {
            buffer.removeAll()
            start = 0
            scanFrom = 0
            state = .idle
        }
        switch state {
        case .readingBody(let length):
            return [.truncated(expected: length, received: buffer.count - start)]
        case .skippingLine(let skipped):
            return [.tooLarge(size: skipped + lineLength(buffer[start...]), limit: maximumMessageSize)]
        case .resynchronising:
            return []
        case .idle:
            guard framing != .contentLength else {
                let rest = buffer[start...]
                return rest.allSatisfy(JSONTextScanner.isWhitespace)
                    ? [] : [.malformedHeader("the stream ended inside a header block.")]
            }
            let rest = buffer[start...]
            if lineLength(rest) > maximumMessageSize {
                return [.tooLarge(size: lineLength(rest), limit: maximumMessageSize)]
            }
            let line = trimmed(rest)
            return line.isEmpty ? [] : [.message(Array(line))]
        }
    }

    private mutating func nextEvent() -> FrameEvent? {
        if framing == nil {
            // Whitespace before the first message belongs to no line: it is dropped as it comes,
            // however it is chunked.
            guard let first = buffer[start...].firstIndex(where: { !JSONTextScanner.isWhitespace($0) }) else {
                start = buffer.count
                scanFrom = start
                return nil
            }
            start = first
            scanFrom = max(scanFrom, start)
            framing =
                (buffer[first] == UInt8(ascii: "C") || buffer[first] == UInt8(ascii: "c"))
                ? .contentLength : .newlineDelimited
        }
        switch framing! {
        case .newlineDelimited: return nextLine()
        case .contentLength: return nextHeaderFramedMessage()
        }
    }

    // MARK: Newline-delimited

    private mutating func nextLine() -> FrameEvent? {
        while true {
            guard let newline = buffer[scanFrom...].firstIndex(of: UInt8(ascii: "\n")) else {
                scanFrom = buffer.count
                return checkUnterminatedLineSize()
            }
            let lineStart = start
            start = newline + 1
            scanFrom = start
            let raw = buffer[lineStart..<newline]
            if case .skippingLine(let skipped) = state {
                state = .idle
                return .tooLarge(size: skipped + lineLength(raw), limit: maximumMessageSize)
            }
            // The limit is on the line as sent, its whitespace included: so it does not depend
            // on where the reads split it.
            if lineLength(raw) > maximumMessageSize {
                return .tooLarge(size: lineLength(raw), limit: maximumMessageSize)
            }
            let line = trimmed(raw)
            if line.isEmpty { continue }
            return .message(Array(line))
        }
    }

    /// Drops an unterminated line as it arrives once it is over the limit, so it is never
    /// buffered whole; it is reported, with its full size, when its newline comes.
    ///
    /// A `\r` at the end of what has come is kept: the line's length leaves it out if a
    /// newline follows.
    private mutating func checkUnterminatedLineSize() -> FrameEvent? {
        let keep = buffer.last == UInt8(ascii: "\r") ? 1 : 0
        let pending = buffer.count - start - keep
        switch state {
        case .skippingLine(let skipped):
            state = .skippingLine(skipped: skipped + pending)
        default:
            guard pending > maximumMessageSize else { return nil }
            state = .skippingLine(skipped: pending)
        }
        start = buffer.count - keep
        scanFrom = start
        return nil
    }

    /// A line's length as the limit counts it: its bytes but one `\r` at its end.
    private func lineLength(_ line: ArraySlice<UInt8>) -> Int {
        line.last == UInt8(ascii: "\r") ? line.count - 1 : line.count
    }

    private func trimmed(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard let first = line.firstIndex(where: { !JSONTextScanner.isWhitespace($0) }),
            let last = line.lastIndex(where: { !JSONTextScanner.isWhitespace($0) })
        else { return [] }
        return line[first...last]
    }

    // MARK: Content-Length

    private mutating func nextHeaderFramedMessage() -> FrameEvent? {
        while true {
            switch state {
            case .readingBody(let length):
                let end = start + length
                // A header inside the announced body means the length lied: the message ends there.
                if let header = headerStart(from: max(scanFrom, start), to: min(end, buffer.count), notBefore: start) {
                    let body = Array(buffer[start..<header])
                    start = header
                    scanFrom = start
                    state = .idle
                    return .message(body)
                }
                guard buffer.count >= end else {
                    scanFrom = buffer.count
                    return nil
                }
                let body = Array(buffer[start..<end])
                start = end
                scanFrom = start
                state = .idle
                return .message(body)
            case .resynchronising:
                guard let header = headerStart(from: max(scanFrom, start), to: buffer.count, notBefore: start) else {
                    // Only a header's worth of the tail is kept while looking.
                    start = max(start, buffer.count - Self.resynchronisationWindow)
                    scanFrom = buffer.count
                    return nil
                }
                start = header
                scanFrom = start
                state = .idle
            case .idle, .skippingLine:
                // Whitespace between messages (a trailing CRLF after a body) is tolerated.
                while start < buffer.count, JSONTextScanner.isWhitespace(buffer[start]) { start += 1 }
                scanFrom = max(scanFrom, start)
                guard let headerEnd = endOfHeaderBlock() else {
                    guard buffer.count - start > Self.maximumHeaderSize else { return nil }
                    start = buffer.count
                    scanFrom = start
                    state = .resynchronising
                    return .malformedHeader("no blank line within \(Self.maximumHeaderSize) bytes of headers.")
                }
                let header = buffer[start..<headerEnd.headerEnd]
                guard let length = Self.contentLength(in: header) else {
                    // The next header may be inside this block (the tail of a body that was
                    // announced too short runs into it), so the search starts within it.
                    start += 1
                    scanFrom = start
                    state = .resynchronising
                    return .malformedHeader("the header block has no valid Content-Length.")
                }
                start = headerEnd.bodyStart
                scanFrom = start
                if length > maximumMessageSize {
                    state = .resynchronising
                    return .tooLarge(size: length, limit: maximumMessageSize)
                }
                state = .readingBody(length: length)
            }
        }
    }

    /// How much of the stream's tail is kept while resynchronising: more than any header line.
    static let resynchronisationWindow = 64

    /// Where a `Content-Length: N` line ending in a raw newline starts, between `from` and
    /// `to` (by its newline), not reaching back before `notBefore`, nor more than
    /// `resynchronisationWindow` bytes before its newline, however the stream came in pieces. Such a line cannot occur
    /// inside a valid JSON text, where a name is quoted and a raw newline never sits in a string.
    private func headerStart(from: Int, to: Int, notBefore: Int) -> Int? {
        var index = from
        while index < to, let newline = Self.newline(in: buffer, from: index, to: to) {
            // A header line is at most a window long, as only a window is kept while looking.
            let floor = max(notBefore, newline - Self.resynchronisationWindow)
            if let start = Self.headerLine(endingAt: newline, in: buffer, notBefore: floor) { return start }
            index = newline + 1
        }
        return nil
    }

    /// The first `\n` in `bytes[from..<to]`, found with `memchr`: bodies are scanned whole.
    private static func newline(in bytes: [UInt8], from: Int, to: Int) -> Int? {
        bytes.withUnsafeBufferPointer { buffer -> Int? in
            guard let base = buffer.baseAddress, let found = memchr(base + from, Int32(UInt8(ascii: "\n")), to - from)
            else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// The start of `Content-Length:[ ]digits[\r]` ending just before the newline at `newline`.
    private static func headerLine(endingAt newline: Int, in bytes: [UInt8], notBefore floor: Int) -> Int? {
        var index = newline - 1
        if index >= floor, bytes[index] == UInt8(ascii: "\r") { index -= 1 }
        let lastDigit = index
        while index >= floor, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index -= 1 }
        guard index < lastDigit else { return nil }
        while index >= floor, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") { index -= 1 }
        guard index >= floor, bytes[index] == UInt8(ascii: ":") else { return nil }
        index -= 1
        while index >= floor, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") { index -= 1 }
        let name = Array("content-length".utf8)
        let nameStart = index - name.count + 1
        guard nameStart >= floor else { return nil }
        for (offset, letter) in name.enumerated() where bytes[nameStart + offset] | 0x20 != letter {
            return nil
        }
        return nameStart
    }

    /// The end of the header lines and the start of the body: the first blank line, accepting
    /// `\r\n` or bare `\n` line ends.
    private mutating func endOfHeaderBlock() -> (headerEnd: Int, bodyStart: Int)? {
        var index = max(scanFrom, start)
        while let newline = buffer[index...].firstIndex(of: UInt8(ascii: "\n")) {
            var next = newline + 1
            if next < buffer.count, buffer[next] == UInt8(ascii: "\r") { next += 1 }
            if next < buffer.count, buffer[next] == UInt8(ascii: "\n") {
                return (newline, next + 1)
            }
            if next >= buffer.count {
                scanFrom = newline
                return nil
            }
            index = newline + 1
        }
        scanFrom = buffer.count
        return nil
    }

    static func contentLength(in header: ArraySlice<UInt8>) -> Int? {
        let text = String(decoding: header, as: UTF8.self)
        var length: Int?
        for line in text.split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].trimmingWhitespace().lowercased()
            guard name == "content-length" else { continue }
            guard let value = Int(line[line.index(after: colon)...].trimmingWhitespace()), value >= 0 else {
                return nil
            }
            length = value
        }
        return length
    }

    private mutating func compact() {
        guard start > 0 else { return }
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
            scanFrom = 0
            start = 0
        } else if start >= buffer.count / 2 {
            buffer.removeFirst(start)
            scanFrom -= start
            start = 0
        }
    }
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        guard let first = firstIndex(where: { $0 != " " && $0 != "\t" }),
            let last = lastIndex(where: { $0 != " " && $0 != "\t" })
        else { return self[endIndex...] }
        return self[first...last]
    }
}
