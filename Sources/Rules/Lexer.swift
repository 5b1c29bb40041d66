/// A place in the source text, for error messages: 1-based line and column (in Unicode
/// scalars), and the UTF-8 offset.
public struct SourcePosition: Sendable, Hashable, CustomStringConvertible {
    public let offset: Int
    public let line: Int
    public let column: Int

    public var description: String { "line \(line), column \(column)" }
}

/// Why a source text does not compile.
public struct CompileError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public let position: SourcePosition?

    init(_ message: String, at position: SourcePosition?) {
        self.message = message
        self.position = position
    }

    public var description: String {
        position.map { "\(message) at \($0)" } ?? message
    }
}

struct Token: Sendable {
    enum Kind: Sendable, Equatable {
        case identifier(String)
        case int(Int64)
        case uint(UInt64)
        case double(Double)
        case string(String)
        case bytes([UInt8])
        case punctuation(String)
        /// `9223372036854775808`: an integer only as the operand of unary minus.
        case int64MinMagnitude
        case end
    }

    let kind: Kind
    let position: SourcePosition
}

/// Splits CEL source into tokens. Wider than cel-parser 0.7.1 where that is harmless (`1u`,
/// `5-3`, triple-quoted strings); hexadecimal literals are refused with a clear message,
/// since Superscript aborts on every one of them.
struct Lexer {
    private let bytes: [UInt8]
    private var cursor = 0
    private var line = 1
    private var lineStart = 0

    init(_ source: String) {
        bytes = Array(source.utf8)
    }

    static func tokenize(_ source: String) throws(CompileError) -> [Token] {
        var lexer = Lexer(source)
        var tokens: [Token] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    /// The last position handed out, so each is counted from the one before (positions are
    /// asked for in order; counting from the line start each time would be quadratic).
    private var lastPosition = (offset: 0, column: 1)

    private mutating func position() -> SourcePosition {
        var (offset, column) = lastPosition.offset >= lineStart ? lastPosition : (lineStart, 1)
        while offset < cursor {
            if bytes[offset] & 0xC0 != 0x80 { column += 1 }
            offset += 1
        }
        lastPosition = (cursor, column)
        return SourcePosition(offset: cursor, line: line, column: column)
    }

    private func peek(_ ahead: Int = 0) -> UInt8? {
        cursor + ahead < bytes.count ? bytes[cursor + ahead] : nil
    }

    private mutating func skipSpaceAndComments() {
        while let byte = peek() {
            if byte == 0x0A {
                cursor += 1
                line += 1
                lineStart = cursor
            } else if byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0C {
                cursor += 1
            } else if byte == 0x2F, peek(1) == 0x2F {
                while let next = peek(), next != 0x0A { cursor += 1 }
            } else {
                return
            }
        }
    }

    private mutating func next() throws(CompileError) -> Token {
        skipSpaceAndComments()
        let start = position()
        guard let byte = peek() else { return Token(kind: .end, position: start) }

        if isIdentifierStart(byte) {
            if let prefix = literalPrefix() {
                cursor += prefix.length
                if prefix.bytes {
                    return Token(kind: .bytes(try quotedBytes(raw: prefix.raw, start: start)), position: start)
                }
                return Token(kind: .string(try stringBody(raw: true, start: start)), position: start)
            }
            let begin = cursor
            while let next = peek(), isIdentifierStart(next) || isDigit(next) { cursor += 1 }
            return Token(kind: .identifier(String(decoding: bytes[begin..<cursor], as: UTF8.self)), position: start)
        }
        if isDigit(byte) || (byte == 0x2E && peek(1).map(isDigit) == true) {
            return Token(kind: try number(start: start), position: start)
        }
        if byte == 0x22 || byte == 0x27 {
            return Token(kind: .string(try stringBody(raw: false, start: start)), position: start)
        }
        for symbol in Self.symbols where matches(symbol) {
            cursor += symbol.utf8.count
            return Token(kind: .punctuation(symbol), position: start)
        }
        let character =
            String(decoding: bytes[cursor..<min(cursor + 4, bytes.count)], as: UTF8.self).first.map(String.init) ?? "?"
        throw CompileError("Unexpected character '\(character)'", at: start)
    }

    /// `r"`, `b"`, `br"` and `rb"` (any case, either quote) before a quoted literal.
    private func literalPrefix() -> (length: Int, raw: Bool, bytes: Bool)? {
        func isQuote(_ byte: UInt8?) -> Bool { byte == 0x22 || byte == 0x27 }
        func lower(_ byte: UInt8?) -> UInt8? { byte.map { $0 | 0x20 } }
        switch (lower(peek()), lower(peek(1))) {
        case (0x72, _) where isQuote(peek(1)): return (1, true, false)
        case (0x62, _) where isQuote(peek(1)): return (1, false, true)
        case (0x62, 0x72) where isQuote(peek(2)), (0x72, 0x62) where isQuote(peek(2)): return (2, true, true)
        default: return nil
        }
    }

    private static let symbols = [
        "==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "+", "-", "*", "/", "%", "?", ":", ".", ",",
        "(", ")", "[", "]", "{", "}", "=",
    ]

    private func matches(_ symbol: String) -> Bool {
        var offset = 0
        for byte in symbol.utf8 {
            guard peek(offset) == byte else { return false }
            offset += 1
        }
        return true
    }

    private func isIdentifierStart(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || byte == 0x5F
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private mutating func number(start: SourcePosition) throws(CompileError) -> Token.Kind {
        let begin = cursor
        if peek() == 0x30, peek(1) == 0x78 || peek(1) == 0x58 {
            throw CompileError("Hexadecimal literals are not supported (Superscript aborts on them)", at: start)
        }
        var isDouble = false
        while let byte = peek(), isDigit(byte) { cursor += 1 }
        if peek() == 0x2E, peek(1).map(isDigit) == true {
            isDouble = true
            cursor += 1
            while let byte = peek(), isDigit(byte) { cursor += 1 }
        }
        if peek() == 0x65 || peek() == 0x45 {
            var lookahead = 1
            if peek(1) == 0x2B || peek(1) == 0x2D { lookahead = 2 }
            if peek(lookahead).map(isDigit) == true {
                isDouble = true
                cursor += lookahead
                while let byte = peek(), isDigit(byte) { cursor += 1 }
            }
        }
        let text = String(decoding: bytes[begin..<cursor], as: UTF8.self)
        if isDouble {
            guard let value = Double(text) else { throw CompileError("Invalid number '\(text)'", at: start) }
            return .double(value)
        }
        if peek() == 0x75 || peek() == 0x55 {
            cursor += 1
            guard let value = UInt64(text) else {
                throw CompileError("Unsigned integer '\(text)u' is out of range", at: start)
            }
            return .uint(value)
        }
        if let value = Int64(text) { return .int(value) }
        // Only reachable as the operand of unary minus: -9223372036854775808.
        if text == "9223372036854775808" { return .int64MinMagnitude }
        throw CompileError("Integer '\(text)' is out of range", at: start)
    }

    private mutating func stringBody(raw: Bool, start: SourcePosition) throws(CompileError) -> String {
        let bytes = try quotedBytes(raw: raw, start: start, forString: true)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads a quoted literal (single, double or triple quotes) and returns its bytes with
    /// escapes applied. In strings `\x` and octal escapes name code points; in bytes, octets.
    private mutating func quotedBytes(
        raw: Bool,
        start: SourcePosition,
        forString: Bool = false
    ) throws(CompileError) -> [UInt8] {
        guard let quote = peek() else { throw CompileError("Unterminated literal", at: start) }
        let triple = peek(1) == quote && peek(2) == quote
        cursor += triple ? 3 : 1
        var output: [UInt8] = []
        while true {
            guard let byte = peek() else { throw CompileError("Unterminated string literal", at: start) }
            if byte == quote && (!triple || (peek(1) == quote && peek(2) == quote)) {
                cursor += triple ? 3 : 1
                return output
            }
            if byte == 0x0A && !triple { throw CompileError("Unterminated string literal", at: start) }
            if byte == 0x5C && !raw {
                cursor += 1
                try escape(into: &output, forString: forString, start: start)
                continue
            }
            if byte == 0x0A {
                line += 1
                lineStart = cursor + 1
            }
            output.append(byte)
            cursor += 1
        }
    }

    private mutating func escape(
        into output: inout [UInt8],
        forString: Bool,
        start: SourcePosition
    ) throws(CompileError) {
        guard let byte = peek() else { throw CompileError("Unterminated escape", at: start) }
        cursor += 1
        func append(scalar value: UInt32) throws(CompileError) {
            guard let scalar = Unicode.Scalar(value) else {
                throw CompileError("Invalid code point in escape", at: start)
            }
            output.append(contentsOf: Array(String(Character(scalar)).utf8))
        }
        func hex(_ count: Int) throws(CompileError) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<count {
                guard let digit = peek(), let nibble = hexValue(digit) else {
                    throw CompileError("Invalid hexadecimal escape", at: start)
                }
                value = value * 16 + nibble
                cursor += 1
            }
            return value
        }
        switch byte {
        case 0x6E: output.append(0x0A)
        case 0x74: output.append(0x09)
        case 0x72: output.append(0x0D)
        case 0x61: output.append(0x07)
        case 0x62: output.append(0x08)
        case 0x66: output.append(0x0C)
        case 0x76: output.append(0x0B)
        case 0x5C, 0x22, 0x27, 0x60, 0x3F: output.append(byte)
        case 0x78, 0x58:
            let value = try hex(2)
            if forString { try append(scalar: value) } else { output.append(UInt8(value)) }
        case 0x75 where forString: try append(scalar: try hex(4))
        case 0x55 where forString: try append(scalar: try hex(8))
        case 0x30...0x37:
            var value = UInt32(byte - 0x30)
            for _ in 0..<2 {
                guard let digit = peek(), digit >= 0x30, digit <= 0x37 else {
                    throw CompileError("Invalid octal escape", at: start)
                }
                value = value * 8 + UInt32(digit - 0x30)
                cursor += 1
            }
            guard value <= 0xFF else { throw CompileError("Invalid octal escape", at: start) }
            if forString { try append(scalar: value) } else { output.append(UInt8(value)) }
        default:
            throw CompileError("Invalid escape sequence '\\\(Character(Unicode.Scalar(byte)))'", at: start)
        }
    }

    private func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case 0x30...0x39: UInt32(byte - 0x30)
        case 0x61...0x66: UInt32(byte - 0x61 + 10)
        case 0x41...0x46: UInt32(byte - 0x41 + 10)
        default: nil
        }
    }
}
