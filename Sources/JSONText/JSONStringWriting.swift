/// Writes a string as a JSON string literal, for every writer of JSON text in the bridge.
///
/// Most text needs no escape, so it is scanned eight bytes at a time and copied in runs: a
/// 10,000-member object of 100-byte values is a megabyte of text, written on every call that
/// answers it.
public enum JSONStringWriting {
    /// Appends `text` quoted and escaped, after `prefix` inside the quotes (e.g. `$`) when given.
    @inlinable
    public static func appendQuoted(_ text: String, prefix: UInt8? = nil, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        if let prefix { bytes.append(prefix) }
        var text = text
        text.withUTF8 { appendEscaped($0, to: &bytes) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends `utf8` with what JSON requires escaped: quotes, backslashes and control characters.
    @inlinable
    public static func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        var runStart = 0
        var index = firstByteNeedingEscape(in: utf8, from: 0)
        while index < utf8.count {
            if runStart < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index])) }
            appendEscape(for: utf8[index], to: &bytes)
            runStart = index + 1
            index = firstByteNeedingEscape(in: utf8, from: runStart)
        }
        if runStart < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
    }

    /// The index of the first byte from `start` that JSON must escape, or `utf8.count`.
    @inlinable
    public static func firstByteNeedingEscape(in utf8: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        if let base = utf8.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= utf8.count, !wordNeedsEscape(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                index += 8
            }
        }
        while index < utf8.count, !needsEscape(utf8[index]) { index += 1 }
        return index
    }

    @inlinable static var ones: UInt64 { 0x0101_0101_0101_0101 }
    @inlinable static var highBits: UInt64 { 0x8080_8080_8080_8080 }

    /// Whether any of the eight bytes of `word` is below 0x20, a quote or a backslash, tested
    /// on all eight at once (the bit tricks of "Bit Twiddling Hacks": a zero byte, a byte less
    /// than n).
    @inlinable @inline(__always)
    static func wordNeedsEscape(_ word: UInt64) -> Bool {
        let belowSpace = (word &- ones &* 0x20) & ~word & highBits
        return belowSpace | hasZeroByte(word ^ (ones &* 0x22)) | hasZeroByte(word ^ (ones &* 0x5C)) != 0
    }

    @inlinable @inline(__always)
    static func hasZeroByte(_ word: UInt64) -> UInt64 {
        (word &- ones) & ~word & highBits
    }

    @inlinable @inline(__always)
    static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    @usableFromInline
    static func appendEscape(for byte: UInt8, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            let hexDigits: StaticString = "0123456789abcdef"
            bytes.append(contentsOf: "u00".utf8)
            hexDigits.withUTF8Buffer { digits in
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 0x0F)])
            }
        }
    }
}
