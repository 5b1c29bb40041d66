import Synchronization

/// Takes a recording's user ids and attribute values out of it, consistently: each value the
/// client sent (`identify`'s `userId`, every string in `setUserAttributes`' `attributes`)
/// becomes the same token wherever it appears after, as a JSON string or quoted inside one (a
/// rule's value, printed), in the frames in and out. A replay sends the tokens, so the bridge
/// answers with them where the recording has them. Numbers and booleans are kept: rules that
/// compare them decide the same; a rule that compares a redacted string with a literal does not.
///
/// The tokens come from a hash seeded anew in each process: the same within a recording, and
/// not reversible by hashing guesses. A value with an `@` gets a token that is an address.
final class TraceRedaction: Sendable {
    /// The values seen so far, by the JSON text of their string, with their token's.
    private let tokens = Mutex<[(value: [UInt8], token: [UInt8])]>([])

    /// The frame with every value seen so far replaced, after noting those an incoming frame
    /// sends.
    func redact(_ frame: [UInt8], incoming: Bool) -> [UInt8] {
        if incoming { noteValues(in: frame) }
        return tokens.withLock { tokens in
            var text = frame
            for (value, token) in tokens {
                text = Self.replacing(value, with: token, in: text)
                text = Self.replacing(Self.quotedInside(value), with: Self.quotedInside(token), in: text)
            }
            return text
        }
    }

    /// `url` with each path segment and query value that is a value seen so far (percent-decoded)
    /// replaced by its token: a user id is a segment of the web entitlements' URL.
    func redactSegments(of url: String) -> String {
        let known = tokens.withLock { tokens in
            tokens.compactMap { pair -> (String, String)? in
                guard case .string(let value)? = try? JSONDecoding.decode(pair.value),
                    case .string(let token)? = try? JSONDecoding.decode(pair.token)
                else { return nil }
                return (value, token)
            }
        }
        guard !known.isEmpty else { return url }
        var result = ""
        var segment = ""
        func flush() {
            let decoded = Self.percentDecoded(segment)
            result += known.first { $0.0 == decoded }.map { Self.percentEncoded($0.1) } ?? segment
            segment = ""
        }
        for character in url {
            if "/?&=#".contains(character) {
                flush()
                result.append(character)
            } else {
                segment.append(character)
            }
        }
        flush()
        return result
    }

    private static func percentDecoded(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Tokens are letters, digits, `-`, `@` and `.`; `@` is all a URL segment needs encoded.
    private static func percentEncoded(_ token: String) -> String {
        token.split(separator: "@", omittingEmptySubsequences: false).joined(separator: "%40")
    }

    private func noteValues(in frame: [UInt8]) {
        guard let message = try? JSONDecoding.decode(frame), case .string(let method)? = message["method"],
            let params = message["params"]
        else { return }
        var values: [String] = []
        switch method {
        case "identify":
            if case .string(let userId)? = params["userId"] { values.append(userId) }
        case "setUserAttributes":
            if let attributes = params["attributes"] { Self.collectStrings(attributes, into: &values) }
        default:
            return
        }
        tokens.withLock { tokens in
            for value in values where !value.isEmpty {
                let text = JSONWriter.encode(.string(value))
                guard !tokens.contains(where: { $0.value == text }) else { continue }
                var hasher = Hasher()
                hasher.combine(value)
                let digest = UInt64(bitPattern: Int64(hasher.finalize()))
                // An address stays an address: SuperwallKit drops an `email` attribute that is not.
                let suffix = value.contains("@") ? "@redacted.invalid" : ""
                let token = JSONWriter.encode(.string("redacted-" + String(digest, radix: 16) + suffix))
                tokens.append((text, token))
                // The longest first: a value inside another is replaced after it.
                tokens.sort { $0.value.count > $1.value.count }
            }
        }
    }

    private static func collectStrings(_ value: JSONValue, into values: inout [String]) {
        switch value {
        case .string(let text): values.append(text)
        case .array(let elements): for element in elements { collectStrings(element, into: &values) }
        case .object(let members): for (_, member) in members { collectStrings(member, into: &values) }
        default: break
        }
    }

    /// `"value"` as it reads inside another JSON string: `\"value\"`.
    private static func quotedInside(_ text: [UInt8]) -> [UInt8] {
        let inner = JSONWriter.encode(.string(String(decoding: text, as: UTF8.self)))
        return Array(inner.dropFirst().dropLast())
    }

    private static func replacing(_ target: [UInt8], with replacement: [UInt8], in text: [UInt8]) -> [UInt8] {
        guard target.count <= text.count, let first = target.first else { return text }
        var result: [UInt8] = []
        var index = 0
        var copied = 0
        while index + target.count <= text.count {
            if text[index] == first, text[index..<(index + target.count)].elementsEqual(target) {
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
