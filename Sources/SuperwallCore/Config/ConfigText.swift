import Foundation
import JSONText

/// A static config's text split without decoding it: each top-level member's value as a byte
/// range, so that `explain` can cut a config down to one placement's part (`narrowedText`)
/// before decoding it. It checks the punctuation between the pieces; the decoder checks the
/// rest.
struct ConfigText {
    struct Member {
        /// The key's text with its quotes, as written.
        var rawKey: Range<Int>
        var key: String
        var value: Range<Int>
    }

    /// In text order; a key written twice is here twice.
    private(set) var members: [Member] = []

    init(_ bytes: UnsafeRawBufferPointer) throws(ConfigDecodingError) {
        let scanner = JSONTextScanner(bytes: bytes)
        var index = scanner.skippingWhitespace(from: 0)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else {
            throw ConfigDecodingError(path: "$", reason: "expected an object")
        }
        index = scanner.skippingWhitespace(from: index + 1)
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
        } else {
            while true {
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw Self.malformed("$", at: index, expected: "a member name")
                }
                let keyStart = index
                let keyEnd = scanner.endOfString(startingAt: keyStart)
                guard keyEnd <= bytes.count, bytes[keyEnd - 1] == UInt8(ascii: "\""), keyEnd - keyStart >= 2 else {
                    throw Self.malformed("$", at: keyStart, expected: "a closed member name")
                }
                let key = try Self.string(UnsafeRawBufferPointer(rebasing: bytes[keyStart..<keyEnd]), at: keyStart)
                index = scanner.skippingWhitespace(from: keyEnd)
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                    throw Self.malformed("$.\(key)", at: index, expected: "\":\"")
                }
                let valueStart = scanner.skippingWhitespace(from: index + 1)
                let valueEnd = scanner.endOfValue(startingAt: valueStart)
                guard valueEnd > valueStart, valueEnd <= bytes.count else {
                    throw Self.malformed("$.\(key)", at: valueStart, expected: "a value")
                }
                members.append(Member(rawKey: keyStart..<keyEnd, key: key, value: valueStart..<valueEnd))
                index = scanner.skippingWhitespace(from: valueEnd)
                guard index < bytes.count else { throw Self.malformed("$", at: index, expected: "\",\" or \"}\"") }
                if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    break
                }
                guard bytes[index] == UInt8(ascii: ",") else {
                    throw Self.malformed("$", at: index, expected: "\",\" or \"}\"")
                }
                index = scanner.skippingWhitespace(from: index + 1)
            }
        }
        guard scanner.skippingWhitespace(from: index) == bytes.count else {
            throw Self.malformed("$", at: index, expected: "nothing after the config's object")
        }
    }

    /// The first member called `key`: of a key written twice, `JSONDecoder` reads the first.
    func member(_ key: String) -> Member? {
        members.first { $0.key == key }
    }

    /// Where each element of the array in `value` is; `path` names the array in errors.
    static func elements(
        of value: Range<Int>,
        in bytes: UnsafeRawBufferPointer,
        path: String
    ) throws(ConfigDecodingError) -> [Range<Int>] {
        guard bytes[value.lowerBound] == UInt8(ascii: "[") else {
            throw ConfigDecodingError(path: path, reason: "expected an array")
        }
        let scanner = JSONTextScanner(bytes: UnsafeRawBufferPointer(rebasing: bytes[..<value.upperBound]))
        let closing = value.upperBound - 1
        var elements: [Range<Int>] = []
        var index = scanner.skippingWhitespace(from: value.lowerBound + 1)
        if index == closing, bytes[index] == UInt8(ascii: "]") { return [] }
        while true {
            let end = scanner.endOfValue(startingAt: index)
            guard end > index, end <= closing else {
                throw malformed("\(path)[\(elements.count)]", at: index, expected: "a value")
            }
            elements.append(index..<end)
            index = scanner.skippingWhitespace(from: end)
            if index == closing, bytes[index] == UInt8(ascii: "]") { return elements }
            guard index < closing, bytes[index] == UInt8(ascii: ",") else {
                throw malformed(path, at: index, expected: "\",\" or \"]\"")
            }
            index = scanner.skippingWhitespace(from: index + 1)
        }
    }

    /// A member name's text, quotes included, as a string.
    private static func string(_ quoted: UnsafeRawBufferPointer, at offset: Int) throws(ConfigDecodingError) -> String {
        let inner = UnsafeRawBufferPointer(rebasing: quoted[1..<(quoted.count - 1)])
        if !inner.contains(UInt8(ascii: "\\")), !inner.contains(where: { $0 < 0x20 }) {
            return String(decoding: inner, as: UTF8.self)
        }
        guard let key = try? JSONTextDecoder().decode(String.self, from: quoted) else {
            throw malformed("$", at: offset, expected: "a valid member name")
        }
        return key
    }

    private static func malformed(_ path: String, at offset: Int, expected: String) -> ConfigDecodingError {
        ConfigDecodingError(
            path: path,
            reason: "The given data was not valid JSON: expected \(expected) at byte \(offset)."
        )
    }
}
