/// What differs from run to run in a text, made alike for a replay to compare and match.
public enum VaryingText {
    /// `text` with every ISO 8601 time in it made `<time>`, and every UUID (an event's id, an
    /// alias's) `<uuid>`: events' ids are unique to each run, by design. Times and ids are
    /// replaced inside a text too (a rule's value, printed).
    public static func madeAlike(_ text: String) -> String {
        let bytes = Array(text.utf8)
        guard bytes.count >= 16 else { return text }
        var result: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if let end = timeEnd(in: bytes, at: index) {
                result.append(contentsOf: Array("<time>".utf8))
                index = end
            } else if index + 36 <= bytes.count, isUUID(bytes[index..<(index + 36)]) {
                result.append(contentsOf: Array("<uuid>".utf8))
                index += 36
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Where a time such as `2026-11-28T10:02:14.812Z` that starts at `start` ends.
    private static func timeEnd(in bytes: [UInt8], at start: Int) -> Int? {
        guard start + 16 <= bytes.count else { return nil }
        let digits = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15]
        guard digits.allSatisfy({ (0x30...0x39).contains(bytes[start + $0]) }), bytes[start + 4] == 0x2D,
            bytes[start + 7] == 0x2D, bytes[start + 10] == 0x54, bytes[start + 13] == 0x3A
        else { return nil }
        var end = start + 16
        while end < bytes.count, (0x30...0x3A).contains(bytes[end]) || [0x2E, 0x5A, 0x2B, 0x2D].contains(bytes[end]) {
            end += 1
        }
        return end
    }

    private static func isUUID(_ bytes: ArraySlice<UInt8>) -> Bool {
        for (offset, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(offset) {
                guard byte == 0x2D else { return false }
            } else {
                guard (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) || (0x41...0x46).contains(byte)
                else { return false }
            }
        }
        return true
    }
}
