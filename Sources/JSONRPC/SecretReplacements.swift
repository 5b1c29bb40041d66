import Synchronization

/// Secrets a trace must not hold, each with what the file shows instead, replaced wherever a
/// frame carries them: as a JSON string or inside one, escaped the bridge's way or a client's
/// (`\u00eb` for `ë`, as Python's `json.dumps` writes it), quoted inside a string that holds
/// JSON text, in free text (a log line), and inside base64 payloads (a paywall page's
/// `accept64`), which are decoded, replaced in and encoded again.
///
/// Never in protocol structure: object keys, and a message's `jsonrpc`, `method` and `id`, are
/// kept as they are, so that a recording still replays. Inside text a secret is replaced only
/// where it stands as a word of its own (`free` in `"plan":"free"`, not in `freeTrial_start`),
/// and a secret of fewer than eight bytes only where it is quoted: short words occur in
/// everything, a paywall's own text too.
final class SecretReplacements: Sendable {
    private struct Pair: Sendable {
        let secret: String
        let replacement: String
        /// The secret's spellings in text, each with the replacement's: the longest first.
        let spellings: [(from: [UInt8], to: [UInt8])]
    }

    private let pairs = Mutex<[Pair]>([])
    /// Numbers that are secrets (a phone number), each with the number shown instead.
    private let numbers = Mutex<[Int64: Int64]>([:])

    /// The members of a message that are protocol, never a secret's place.
    private static let protocolMembers: Set<String> = ["jsonrpc", "method", "id"]

    /// The shortest secret replaced inside other text unquoted; shorter ones only quoted.
    static let shortestInText = 8

    var isEmpty: Bool { pairs.withLock { $0.isEmpty } }

    /// Adds `secret`, shown as `replacement` from now on; a secret already known keeps its own.
    func add(_ secret: String, as replacement: String) {
        guard !secret.isEmpty else { return }
        pairs.withLock { pairs in
            guard !pairs.contains(where: { $0.secret == secret }) else { return }
            pairs.append(Pair(secret: secret, replacement: replacement, spellings: Self.spellings(secret, replacement)))
            // The longest first: a secret inside another is replaced after it.
            pairs.sort { $0.secret.utf8.count > $1.secret.utf8.count }
        }
    }

    /// Adds a number that is a secret, shown as `replacement` from now on, as a number and in
    /// text.
    func add(number: Int64, as replacement: Int64) {
        guard numbers.withLock({ $0.updateValue(replacement, forKey: number) == nil }) else { return }
        add(String(number), as: String(replacement))
    }

    /// The replacement of a secret number, if `number` is one.
    func replacement(of number: Int64) -> Int64? {
        numbers.withLock { $0[number] }
    }

    /// The replacement of a secret known so far, if `text` is one.
    func replacement(of text: String) -> String? {
        pairs.withLock { pairs in pairs.first { $0.secret == text }?.replacement }
    }

    /// A frame with every secret replaced: parsed and walked when it is JSON (then written
    /// again only when something was replaced), replaced as text when it is not.
    func replacing(inFrame frame: [UInt8]) -> [UInt8] {
        guard !isEmpty else { return frame }
        guard let message = try? JSONDecoding.decode(frame) else { return replacing(inText: frame) }
        let (replaced, changed) = replacing(inMessage: message)
        return changed ? JSONWriter.encode(replaced) : frame
    }

    /// A message, or a batch of them, with its protocol members kept.
    func replacing(inMessage message: JSONValue) -> (JSONValue, changed: Bool) {
        switch message {
        case .array(let elements): return Self.mapping(elements) { replacing(inMessage: $0) }
        case .object(let members): return replacing(inMembers: members, besides: Self.protocolMembers)
        default: return replacing(inValue: message)
        }
    }

    /// A value with every string in it replaced in; keys are kept.
    func replacing(inValue value: JSONValue) -> (JSONValue, changed: Bool) {
        switch value {
        case .string(let text):
            let replaced = replacing(inString: text)
            return replaced == text ? (value, false) : (.string(replaced), true)
        case .array(let elements): return Self.mapping(elements) { replacing(inValue: $0) }
        case .object(let members): return replacing(inMembers: members, besides: [])
        case .encoded(let text):
            return replacing(inValue: text.decoded)
        case .int(let number):
            return replacement(of: number).map { (.int($0), true) } ?? (value, false)
        case .uint(let number):
            guard let signed = Int64(exactly: number), let replaced = replacement(of: signed) else {
                return (value, false)
            }
            return (.int(replaced), true)
        default:
            return (value, false)
        }
    }

    private func replacing(inMembers members: JSONObject, besides kept: Set<String>) -> (JSONValue, changed: Bool) {
        var result = members
        var changed = false
        for (key, member) in members where !kept.contains(key) {
            let (value, memberChanged) = replacing(inValue: member)
            if memberChanged {
                result[key] = value
                changed = true
            }
        }
        return (.object(result), changed)
    }

    private static func mapping(
        _ elements: [JSONValue],
        _ replace: (JSONValue) -> (JSONValue, changed: Bool)
    ) -> (JSONValue, changed: Bool) {
        var changed = false
        let replaced = elements.map { element -> JSONValue in
            let (value, elementChanged) = replace(element)
            changed = changed || elementChanged
            return value
        }
        return (.array(replaced), changed)
    }

    /// A string value: a secret whole, a base64 payload decoded and replaced in, or text.
    func replacing(inString text: String) -> String {
        if let whole = replacement(of: text) { return whole }
        if let decoded = Base64.decode(text) {
            let replaced = replacing(inText: decoded)
            return replaced == decoded ? text : Base64.encode(replaced)
        }
        let bytes = Array(text.utf8)
        let replaced = replacing(inText: bytes)
        return replaced == bytes ? text : String(decoding: replaced, as: UTF8.self)
    }

    /// Text (a log line, a page's script, JSON text) with every spelling of every secret
    /// replaced.
    func replacing(inText text: [UInt8]) -> [UInt8] {
        pairs.withLock { pairs in
            var result = text
            for pair in pairs {
                for (from, to) in pair.spellings { result = Self.replacing(from, with: to, in: result) }
            }
            return result
        }
    }

    /// How text may spell `secret`: as it is, escaped in a JSON string (the bridge's way and
    /// with every non-ASCII character as `\u` escapes), and escaped again (JSON text inside a
    /// JSON string); a short secret only quoted, at each level.
    private static func spellings(_ secret: String, _ replacement: String) -> [(from: [UInt8], to: [UInt8])] {
        var found: [(from: [UInt8], to: [UInt8])] = []
        func add(_ from: [UInt8], _ to: [UInt8]) {
            if !found.contains(where: { $0.from == from }) { found.append((from, to)) }
        }
        let short = secret.utf8.count < shortestInText
        let levels: [(String) -> [UInt8]] = [
            { Array($0.utf8) }, { escaped($0, asciiOnly: false) }, { escaped($0, asciiOnly: true) },
            { escaped(String(decoding: escaped($0, asciiOnly: false), as: UTF8.self), asciiOnly: false) },
        ]
        for spell in levels {
            let (from, to) = (spell(secret), spell(replacement))
            if short {
                add(quoted(from, level: 0), quoted(to, level: 0))
                add(quoted(from, level: 1), quoted(to, level: 1))
            } else {
                add(from, to)
            }
        }
        return found.sorted { $0.from.count > $1.from.count }
    }

    /// `"x"`, or `\"x\"` one level in.
    private static func quoted(_ text: [UInt8], level: Int) -> [UInt8] {
        let quote: [UInt8] = level == 0 ? [0x22] : [0x5C, 0x22]
        return quote + text + quote
    }

    /// A JSON string's content for `text`, without its quotes.
    private static func escaped(_ text: String, asciiOnly: Bool) -> [UInt8] {
        var encoded = Array(JSONWriter.encode(.string(text)).dropFirst().dropLast())
        guard asciiOnly, encoded.contains(where: { $0 >= 0x80 }) else { return encoded }
        encoded = []
        let content = String(decoding: JSONWriter.encode(.string(text)).dropFirst().dropLast(), as: UTF8.self)
        for unit in content.utf16 {
            if unit < 0x80 {
                encoded.append(UInt8(unit))
            } else {
                let hex = String(unit, radix: 16)
                encoded += Array(("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
            }
        }
        return encoded
    }

    /// Whether a byte is part of a word: a letter, a digit, `_`, or a byte of a non-ASCII
    /// character.
    private static func isWordByte(_ byte: UInt8) -> Bool {
        byte >= 0x80 || byte == UInt8(ascii: "_") || (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte)
            || (0x61...0x7A).contains(byte)
    }

    /// `text` with each occurrence of `target` that stands as a word of its own replaced: where
    /// the target begins (ends) with a word byte, the byte before (after) it is not one.
    private static func replacing(_ target: [UInt8], with replacement: [UInt8], in text: [UInt8]) -> [UInt8] {
        guard target.count <= text.count, let first = target.first, let last = target.last else { return text }
        let (opensWord, closesWord) = (isWordByte(first), isWordByte(last))
        var result: [UInt8] = []
        var index = 0
        var copied = 0
        while index + target.count <= text.count {
            let end = index + target.count
            if text[index] == first, text[index..<end].elementsEqual(target),
                !(opensWord && index > 0 && isWordByte(text[index - 1])),
                !(closesWord && end < text.count && isWordByte(text[end]))
            {
                result.append(contentsOf: text[copied..<index])
                result.append(contentsOf: replacement)
                index += target.count
                copied = index
            } else {
                index += 1
            }
        }
        guard copied > 0 else { return text }
        result.append(contentsOf: text[copied...])
        return result
    }
}

/// Standard base64, for the payloads a trace looks inside.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let values: [UInt8] = {
        var values = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { values[Int(byte)] = UInt8(index) }
        return values
    }()

    /// The bytes `text` encodes, when it is a payload: at least 16 characters of the alphabet,
    /// padded to a multiple of four, decoding to UTF-8 text. Nil for anything else, a word of
    /// the alphabet included.
    static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count >= 16, characters.count % 4 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count / 4 * 3)
        var index = 0
        while index < characters.count {
            var quad: [UInt8] = []
            var padding = 0
            for offset in 0..<4 {
                let character = characters[index + offset]
                if character == UInt8(ascii: "=") {
                    guard index + 4 == characters.count, offset >= 2 else { return nil }
                    padding += 1
                    quad.append(0)
                } else {
                    guard padding == 0, values[Int(character)] != 0xFF else { return nil }
                    quad.append(values[Int(character)])
                }
            }
            let combined = UInt32(quad[0]) << 18 | UInt32(quad[1]) << 12 | UInt32(quad[2]) << 6 | UInt32(quad[3])
            bytes.append(UInt8(combined >> 16))
            if padding < 2 { bytes.append(UInt8((combined >> 8) & 0xFF)) }
            if padding < 1 { bytes.append(UInt8(combined & 0xFF)) }
            index += 4
        }
        guard String(validating: bytes, as: UTF8.self) != nil else { return nil }
        return bytes
    }

    static func encode(_ bytes: [UInt8]) -> String {
        var result: [UInt8] = []
        result.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var combined: UInt32 = 0
            for offset in 0..<3 { combined = combined << 8 | UInt32(offset < count ? bytes[index + offset] : 0) }
            for position in 0..<4 {
                if position <= count {
                    result.append(alphabet[Int((combined >> UInt32(18 - 6 * position)) & 0x3F)])
                } else {
                    result.append(UInt8(ascii: "="))
                }
            }
            index += 3
        }
        return String(decoding: result, as: UTF8.self)
    }
}
