/// Finds where values start and end in JSON text without decoding them: it skips strings and
/// counts brackets, and checks nothing else.
///
/// Two layers need the text itself rather than decoded values. The wire echoes request ids
/// byte for byte as the client wrote them and reads integers above `Int64.max` exactly, after
/// jansson has accepted the text as valid. The config decoder splits a large config into
/// elements it decodes one at a time, and checks the text between them itself.
public struct JSONTextScanner {
    public let bytes: UnsafeRawBufferPointer

    public init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    @inlinable
    public func skippingWhitespace(from index: Int) -> Int {
        var index = index
        while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
        return index
    }

    /// The index just past the value that starts at `start`.
    @inlinable
    public func endOfValue(startingAt start: Int) -> Int {
        guard start < bytes.count else { return start }
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return endOfString(startingAt: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    index = endOfString(startingAt: index)
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default:
                    break
                }
                index += 1
            }
            return index
        default:
            var index = start
            while index < bytes.count, !Self.endsScalar(bytes[index]) { index += 1 }
            return index
        }
    }

    /// The index just past the closing quote of the string that starts at `start`.
    ///
    /// Eight bytes at a time while none of them is a quote or a backslash: most of a config's
    /// text is inside strings, and this is most of the time its splitting takes.
    @inlinable
    public func endOfString(startingAt start: Int) -> Int {
        var index = start + 1
        while index < bytes.count {
            if index + 8 <= bytes.count {
                let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let found = Self.zeroBytes(word ^ 0x2222_2222_2222_2222) | Self.zeroBytes(word ^ 0x5C5C_5C5C_5C5C_5C5C)
                guard found != 0 else {
                    index += 8
                    continue
                }
                index += found.trailingZeroBitCount / 8
            }
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return index
    }

    /// The high bit of each zero byte of `word` set (and perhaps of bytes above the lowest
    /// zero one, which callers do not read): the classic test for a zero byte in a word.
    @inlinable
    static func zeroBytes(_ word: UInt64) -> UInt64 {
        (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
    }

    /// The text of the first member called `name` (written without escapes) of the object
    /// that starts at `start`.
    public func memberText(named name: StaticString, inObjectAt start: Int) -> ArraySlice<UInt8>? {
        guard start < bytes.count, bytes[start] == UInt8(ascii: "{") else { return nil }
        var index = skippingWhitespace(from: start + 1)
        while index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            let keyEnd = endOfString(startingAt: index)
            let isWanted = keyMatches(name, from: index + 1, to: keyEnd - 1)
            index = skippingWhitespace(from: keyEnd)
            index = skippingWhitespace(from: index + 1)  // past ":"
            let valueEnd = endOfValue(startingAt: index)
            if isWanted {
                return ArraySlice(UnsafeRawBufferPointer(rebasing: bytes[index..<valueEnd]))
            }
            index = skippingWhitespace(from: valueEnd)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { return nil }
            index = skippingWhitespace(from: index + 1)
        }
        return nil
    }

    /// Where each element of the array that starts at `start` begins.
    public func elementStarts(inArrayAt start: Int) -> [Int] {
        guard start < bytes.count, bytes[start] == UInt8(ascii: "[") else { return [] }
        var starts: [Int] = []
        var index = skippingWhitespace(from: start + 1)
        guard index < bytes.count, bytes[index] != UInt8(ascii: "]") else { return [] }
        while index < bytes.count {
            starts.append(index)
            index = skippingWhitespace(from: endOfValue(startingAt: index))
            guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { break }
            index = skippingWhitespace(from: index + 1)
        }
        return starts
    }

    private func keyMatches(_ name: StaticString, from start: Int, to end: Int) -> Bool {
        name.withUTF8Buffer { wanted in
            guard end - start == wanted.count else { return false }
            for offset in 0..<wanted.count where bytes[start + offset] != wanted[offset] {
                return false
            }
            return true
        }
    }

    @inlinable
    public static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    @usableFromInline
    static func endsScalar(_ byte: UInt8) -> Bool {
        isWhitespace(byte) || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")
    }
}
