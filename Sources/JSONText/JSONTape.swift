/// JSON text checked against RFC 8259 and indexed in one pass: a flat list of its values in
/// text order (a container before its contents, each object member's key before its value),
/// which `JSONTextDecoder` reads without building a tree of its own.
///
/// A container's entry says where the entry after its contents is, so a decoder steps over a
/// member it does not want at once. Strings are not decoded here, only checked (escapes,
/// control characters, UTF-8); a decoder turns the few it asks for into `String`s.
final class JSONTape {
    enum Kind: UInt8 {
        case object, array, string, number, `true`, `false`, null
    }

    /// Sixteen bytes: a large document's index is about the size of its text.
    struct Entry {
        /// Where the value starts in the text; for a string, just past its opening quote.
        var start: UInt32
        /// Where it ends: past a container's closing bracket, at a string's closing quote.
        var end: UInt32
        /// For a container, the index of the entry after its contents; for a string, its
        /// first four bytes as a little-endian word, zeros past its end (see `prefix`).
        var word: UInt32
        /// The kind in the low three bits, `isMarked` in the fourth, and in the rest: for a
        /// container its number of members or elements, for a member's name how many entries
        /// on the next member's name is.
        private var info: UInt32

        /// The most members or elements a container may have.
        static let maximumCount = Int(UInt32.max >> 4)

        init(_ kind: Kind, isMarked: Bool = false, start: Int, end: Int = 0, word: UInt32 = 0) {
            self.start = UInt32(truncatingIfNeeded: start)
            self.end = UInt32(truncatingIfNeeded: end)
            self.word = word
            info = UInt32(kind.rawValue) | (isMarked ? 8 : 0)
        }

        var kind: Kind { Kind(rawValue: UInt8(truncatingIfNeeded: info & 7))! }
        var isContainer: Bool { info & 7 <= Kind.array.rawValue }
        /// A string with a backslash in it; a number with a fraction or an exponent.
        var isMarked: Bool { info & 8 != 0 }
        var next: Int { Int(word) }
        var count: Int { Int(info >> 4) }
        /// For a member's name, how many entries on the next member's name is: a lookup steps
        /// from name to name reading one entry each.
        var distanceToNextKey: Int { Int(info >> 4) }

        mutating func setDistanceToNextKey(_ distance: Int) {
            info = info & 15 | UInt32(truncatingIfNeeded: distance) << 4
        }
        /// A string's first four bytes, for a member lookup to compare names a word at a time.
        var prefix: UInt32 { word }

        mutating func close(end: Int, next: Int, count: Int) {
            self.end = UInt32(truncatingIfNeeded: end)
            word = UInt32(truncatingIfNeeded: next)
            info = info & 15 | UInt32(truncatingIfNeeded: count) << 4
        }
    }

    /// The first four bytes of `bytes` from `start` as a little-endian word, zeros past
    /// `count`.
    @inline(__always)
    static func prefix(of bytes: UnsafeBufferPointer<UInt8>, from start: Int, count: Int) -> UInt32 {
        if start &+ 4 <= bytes.count {
            let word = UInt32(littleEndian: UnsafeRawPointer(bytes.baseAddress! + start).loadUnaligned(as: UInt32.self))
            return count >= 4 ? word : word & ((1 &<< (8 &* UInt32(count))) &- 1)
        }
        var word: UInt32 = 0
        for offset in 0..<min(count, 4) { word |= UInt32(bytes[start &+ offset]) << (8 &* UInt32(offset)) }
        return word
    }

    /// The text, borrowed: a tape is used only while its text's owner lends it.
    let text: UnsafeBufferPointer<UInt8>
    let entries: [Entry]
    /// The `userInfo` of the decoder decoding from this text now.
    var userInfo: [CodingUserInfoKey: Any] = [:]

    /// The deepest nesting accepted, as Foundation's `JSONDecoder` accepts.
    static let maximumDepth = 512

    init(text: UnsafeBufferPointer<UInt8>, entries: [Entry]) {
        self.text = text
        self.entries = entries
    }

    init(_ bytes: UnsafeRawBufferPointer) throws(DecodingError) {
        guard bytes.count < Int(UInt32.max) else {
            throw SyntaxFault(what: "text of 4 GiB or more", offset: 0).error
        }
        let text = bytes.assumingMemoryBound(to: UInt8.self)
        var entries: [Entry] = []
        entries.reserveCapacity(bytes.count / 16 + 4)
        var parser = Parser(text: text)
        do {
            try parser.parseDocument(into: &entries)
        } catch {
            throw error.error
        }
        self.text = text
        self.entries = entries
    }

    /// The index of the entry after the value at `index` and its contents.
    @inline(__always)
    func after(_ index: Int) -> Int {
        let entry = entries[index]
        return entry.isContainer ? entry.next : index + 1
    }

    /// The bytes of the string at `index` as written, escapes undecoded.
    @inline(__always)
    func rawBytes(of index: Int) -> UnsafeBufferPointer<UInt8> {
        let entry = entries[index]
        return UnsafeBufferPointer(rebasing: text[Int(entry.start)..<Int(entry.end)])
    }

    /// The string at `index`, its escapes decoded.
    func string(at index: Int) -> String {
        let raw = rawBytes(of: index)
        guard entries[index].isMarked else { return String(checkedUTF8: raw) }
        return String(unescaping: raw)
    }

    /// The number at `index` as written.
    func numberText(at index: Int) -> Substring {
        Substring(String(checkedUTF8: rawBytes(of: index)))
    }
}

extension String {
    /// The text of bytes the parser has checked as UTF-8. (`String(decoding:as:)` would look
    /// its argument's conformances up at run time on every call.)
    @inline(__always)
    init(checkedUTF8 bytes: UnsafeBufferPointer<UInt8>) {
        self.init(unsafeUninitializedCapacity: bytes.count) { buffer in
            guard let source = bytes.baseAddress, let target = buffer.baseAddress else { return 0 }
            target.update(from: source, count: bytes.count)
            return bytes.count
        }
    }

    /// The text of a string the parser has already checked, its escapes decoded.
    fileprivate init(unescaping raw: UnsafeBufferPointer<UInt8>) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.count)
        var index = 0
        while index < raw.count {
            let byte = raw[index]
            guard byte == UInt8(ascii: "\\") else {
                bytes.append(byte)
                index += 1
                continue
            }
            let escaped = raw[index + 1]
            index += 2
            switch escaped {
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = UInt32(hexQuad(raw, at: index))
                index += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    // The parser has checked that a low surrogate escape follows.
                    let low = UInt32(hexQuad(raw, at: index + 2))
                    index += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                bytes.append(contentsOf: UTF8.encode(Unicode.Scalar(scalar)!)!)
            default: bytes.append(escaped)
            }
        }
        self = bytes.withUnsafeBufferPointer { String(checkedUTF8: $0) }
    }
}

private func hexQuad(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt16 {
    var value: UInt16 = 0
    for byte in bytes[index..<(index + 4)] {
        value = value << 4 | UInt16(hexDigit(byte)!)
    }
    return value
}

private func hexDigit(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}

/// A recursive-descent reading of RFC 8259's grammar that appends each value's entry.
struct Parser {
    let text: UnsafeBufferPointer<UInt8>
    var index = 0

    init(text: UnsafeBufferPointer<UInt8>) {
        self.text = text
    }

    mutating func parseDocument(into entries: inout [JSONTape.Entry]) throws(SyntaxFault) {
        skipWhitespace()
        try parseValue(into: &entries, depth: 0)
        skipWhitespace()
        guard index == text.count else { throw fault("unexpected text after the value") }
    }

    mutating func parseValue(into entries: inout [JSONTape.Entry], depth: Int) throws(SyntaxFault) {
        guard index < text.count else { throw fault("unexpected end of text, expected a value") }
        switch text[index] {
        case UInt8(ascii: "{"): try parseContainer(.object, into: &entries, depth: depth + 1)
        case UInt8(ascii: "["): try parseContainer(.array, into: &entries, depth: depth + 1)
        case UInt8(ascii: "\""): try parseString(into: &entries)
        case UInt8(ascii: "t"): try parseLiteral("true", as: .true, into: &entries)
        case UInt8(ascii: "f"): try parseLiteral("false", as: .false, into: &entries)
        case UInt8(ascii: "n"): try parseLiteral("null", as: .null, into: &entries)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try parseNumber(into: &entries)
        default: throw fault("unexpected character, expected a value")
        }
    }

    /// An object or an array: its members or elements between commas, then its closing bracket.
    private mutating func parseContainer(
        _ kind: JSONTape.Kind,
        into entries: inout [JSONTape.Entry],
        depth: Int
    ) throws(SyntaxFault) {
        guard depth <= JSONTape.maximumDepth else { throw fault("too many nested arrays or objects") }
        let isObject = kind == .object
        let closing = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
        let position = entries.count
        entries.append(JSONTape.Entry(kind, start: index))
        index += 1
        skipWhitespace()
        var count = 0
        if index < text.count, text[index] == closing {
            index += 1
        } else {
            while true {
                if isObject {
                    try parseMember(into: &entries, depth: depth)
                } else {
                    try parseValue(into: &entries, depth: depth)
                }
                count += 1
                guard count <= JSONTape.Entry.maximumCount else {
                    throw fault("more members or elements than an index holds")
                }
                skipWhitespace()
                guard index < text.count else {
                    throw fault(isObject ? "unexpected end of text in an object" : "unexpected end of text in an array")
                }
                if text[index] == closing {
                    index += 1
                    break
                }
                guard text[index] == UInt8(ascii: ",") else {
                    throw fault(
                        isObject ? "expected \",\" or \"}\" in an object" : "expected \",\" or \"]\" in an array"
                    )
                }
                index += 1
                skipWhitespace()
            }
        }
        entries[position].close(end: index, next: entries.count, count: count)
    }

    /// A member: its name, a colon and its value. The name's entry learns how far on the next
    /// member's name is.
    private mutating func parseMember(into entries: inout [JSONTape.Entry], depth: Int) throws(SyntaxFault) {
        guard index < text.count, text[index] == UInt8(ascii: "\"") else { throw fault("expected a member name") }
        let key = entries.count
        try parseString(into: &entries)
        skipWhitespace()
        guard index < text.count, text[index] == UInt8(ascii: ":") else {
            throw fault("expected \":\" after a member name")
        }
        index += 1
        skipWhitespace()
        try parseValue(into: &entries, depth: depth)
        guard entries.count - key <= JSONTape.Entry.maximumCount else {
            throw fault("a member larger than an index holds")
        }
        entries[key].setDistanceToNextKey(entries.count - key)
    }

    /// A string: eight bytes at a time while none is a quote, a backslash, a control
    /// character or outside ASCII, which is nearly all of a config's text.
    mutating func parseString(into entries: inout [JSONTape.Entry]) throws(SyntaxFault) {
        index += 1
        let start = index
        var hasEscapes = false
        while true {
            while index + 8 <= text.count {
                let word = UnsafeRawBufferPointer(text).loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let flagged = Self.bytesNeedingAttention(UInt64(littleEndian: word))
                guard flagged == 0 else {
                    // The lowest flagged byte is a true one: a false flag only sits above one.
                    index += flagged.trailingZeroBitCount / 8
                    break
                }
                index += 8
            }
            guard index < text.count else { throw fault("unexpected end of text in a string") }
            let byte = text[index]
            switch byte {
            case UInt8(ascii: "\""):
                let prefix = JSONTape.prefix(of: text, from: start, count: index - start)
                entries.append(JSONTape.Entry(.string, isMarked: hasEscapes, start: start, end: index, word: prefix))
                index += 1
                return
            case UInt8(ascii: "\\"):
                hasEscapes = true
                try parseEscape()
            case 0..<0x20:
                throw fault("unescaped control character in a string")
            case 0x80...:
                try parseMultibyteCharacter()
            default:
                index += 1
            }
        }
    }

    /// The high bit set of each byte of `word` that is a quote, a backslash, below 0x20 or
    /// above 0x7F (and perhaps of bytes above such a byte).
    @inline(__always)
    private static func bytesNeedingAttention(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let zeroQuote = (quote &- ones) & ~quote
        let zeroBackslash = (backslash &- ones) & ~backslash
        let control = word &- (ones &* 0x20)
        // `control` has a byte's high bit set where the byte is below 0x20 (or borrowed into,
        // which only happens above such a byte); `word` has it where the byte is above 0x7F.
        return (zeroQuote | zeroBackslash | control | word) & highs
    }

    private mutating func parseEscape() throws(SyntaxFault) {
        guard index + 1 < text.count else { throw fault("unexpected end of text in an escape") }
        switch text[index + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 2
        case UInt8(ascii: "u"):
            let unit = try hexEscape(at: index)
            index += 6
            switch unit {
            case 0xD800..<0xDC00:
                guard index + 1 < text.count, text[index] == UInt8(ascii: "\\"), text[index + 1] == UInt8(ascii: "u"),
                    (0xDC00..<0xE000).contains(try hexEscape(at: index))
                else {
                    throw fault("a high surrogate escape not followed by a low one")
                }
                index += 6
            case 0xDC00..<0xE000:
                throw fault("a low surrogate escape without a high one")
            default:
                break
            }
        default:
            throw fault("invalid escape in a string")
        }
    }

    /// The code unit of the `\uXXXX` escape at `position`.
    private func hexEscape(at position: Int) throws(SyntaxFault) -> UInt16 {
        guard position + 6 <= text.count else { throw fault("unexpected end of text in a \\u escape") }
        var value: UInt16 = 0
        for byte in text[(position + 2)..<(position + 6)] {
            guard let digit = hexDigit(byte) else { throw fault("invalid \\u escape") }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    /// One character of two to four bytes, checked as UTF-8 (no overlong forms, surrogates or
    /// values past U+10FFFF).
    private mutating func parseMultibyteCharacter() throws(SyntaxFault) {
        let lead = text[index]
        let length: Int
        var range: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            range = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            range = 0x80...0x9F
        case 0xF0:
            length = 4
            range = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            range = 0x80...0x8F
        default: throw fault("invalid UTF-8 in a string")
        }
        guard index + length <= text.count, range.contains(text[index + 1]) else {
            throw fault("invalid UTF-8 in a string")
        }
        for offset in 2..<max(2, length) where !(0x80...0xBF).contains(text[index + offset]) {
            throw fault("invalid UTF-8 in a string")
        }
        index += length
    }

    private mutating func parseLiteral(
        _ word: StaticString,
        as kind: JSONTape.Kind,
        into entries: inout [JSONTape.Entry]
    ) throws(SyntaxFault) {
        let start = index
        let matches = word.withUTF8Buffer { expected in
            index + expected.count <= text.count && zip(expected, text[index...]).allSatisfy { $0 == $1 }
        }
        guard matches else { throw fault("unexpected character, expected a value") }
        index += word.utf8CodeUnitCount
        entries.append(JSONTape.Entry(kind, start: start, end: index))
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    private mutating func parseNumber(into entries: inout [JSONTape.Entry]) throws(SyntaxFault) {
        let start = index
        if text[index] == UInt8(ascii: "-") { index += 1 }
        guard index < text.count, isDigit(text[index]) else { throw fault("expected a digit in a number") }
        if text[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            skipDigits()
        }
        var isInteger = true
        if index < text.count, text[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < text.count, isDigit(text[index]) else {
                throw fault("expected a digit after a decimal point")
            }
            skipDigits()
        }
        if index < text.count, text[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            if index < text.count, text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") { index += 1 }
            guard index < text.count, isDigit(text[index]) else { throw fault("expected a digit in an exponent") }
            skipDigits()
        }
        entries.append(JSONTape.Entry(.number, isMarked: !isInteger, start: start, end: index))
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    @inline(__always)
    private mutating func skipDigits() {
        while index < text.count, isDigit(text[index]) { index += 1 }
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < text.count, JSONTextScanner.isWhitespace(text[index]) { index += 1 }
    }

    func fault(_ what: StaticString) -> SyntaxFault {
        SyntaxFault(what: what, offset: index)
    }
}
