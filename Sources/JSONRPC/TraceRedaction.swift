/// Takes a recording's user values out of it, consistently: each value the client sends that
/// names or describes its user becomes the same token wherever it appears after, in every
/// spelling and encoding `SecretReplacements` knows, in the frames in and out and in the HTTP
/// exchanges. A replay sends the tokens, so the bridge answers with them where the recording
/// has them. An attribute that is a number of seven digits or more (a phone number, an
/// account number) becomes another number of as many digits; smaller numbers and booleans are
/// kept: rules that compare counts decide the same; a rule that compares a redacted string
/// with a literal does not.
///
/// What is a user value: `identify`'s `userId` (as sent, and as the bridge trims it), every
/// string in `setUserAttributes` and `setIntegrationAttributes`, in the `params` of `register`,
/// `getPresentationResult` and `getPaywall`, in what a paywall page posts
/// (`paywall/pageMessage`: an address typed into a form, custom data), the query values of a
/// deep link and a redemption's codes; and, from the Superwall API, what a web redemption
/// says of its purchaser.
///
/// The tokens come from a hash seeded anew in each process: the same within a recording, and
/// not reversible by hashing guesses. A value with an `@` gets a token that is an address.
final class TraceRedaction: Sendable {
    let replacements = SecretReplacements()

    /// The frame with every value noted so far replaced, after noting those an incoming frame
    /// sends.
    func redact(_ frame: [UInt8], incoming: Bool) -> [UInt8] {
        guard let message = try? JSONDecoding.decode(frame) else { return replacements.replacing(inText: frame) }
        if incoming { noteValues(in: message) }
        let (replaced, changed) = replacements.replacing(inMessage: message)
        return changed ? JSONWriter.encode(replaced) : frame
    }

    /// An HTTP exchange's members with user values replaced, after noting what a redemption's
    /// answer says of its purchaser; the URL's path segments and query values too.
    func redact(exchange members: JSONObject) -> JSONObject {
        var members = members
        if case .string(let url)? = members["url"], url.contains("/redeem"), case .string(let body)? = members["body"],
            let answer = try? JSONDecoding.decode(body)
        {
            var values: [String] = []
            Self.collectPurchaserValues(answer, into: &values)
            note(values)
        }
        if case .string(let url)? = members["url"] { members["url"] = .string(redactSegments(of: url)) }
        for (key, member) in members where key != "url" && key != "method" {
            members[key] = replacements.replacing(inValue: member).0
        }
        return members
    }

    /// `url` with each path segment and query value that is a value noted so far
    /// (percent-decoded) replaced by its token: a user id is a segment of the web
    /// entitlements' URL.
    func redactSegments(of url: String) -> String {
        guard !replacements.isEmpty else { return url }
        var result = ""
        var segment = ""
        func flush() {
            let decoded = Self.percentDecoded(segment)
            result += replacements.replacement(of: decoded).map { Self.percentEncoded($0) } ?? segment
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
        return replacements.replacing(inString: result)
    }

    private static func percentDecoded(_ text: String) -> String {
        guard text.contains("%") || text.contains("+") else { return text }
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Tokens are letters, digits, `-`, `@` and `.`; `@` is all a URL segment needs encoded.
    private static func percentEncoded(_ token: String) -> String {
        token.split(separator: "@", omittingEmptySubsequences: false).joined(separator: "%40")
    }

    private func noteValues(in message: JSONValue) {
        if case .array(let elements) = message {
            for element in elements { noteValues(in: element) }
            return
        }
        guard case .string(let method)? = message["method"], let params = message["params"] else { return }
        var values: [String] = []
        switch method {
        case "identify":
            if case .string(let userId)? = params["userId"] {
                // The bridge trims the id: the trimmed one is what it answers with, and the id as
                // sent becomes the same token with the same whitespace around it.
                let trimmed = userId.trimmingWhitespace
                note([trimmed])
                if trimmed != userId, !trimmed.isEmpty, let token = replacements.replacement(of: trimmed) {
                    let scalars = userId.unicodeScalars
                    let leading = String(String.UnicodeScalarView(scalars.prefix { $0.properties.isWhitespace }))
                    let trailing = String(
                        String.UnicodeScalarView(scalars.reversed().prefix { $0.properties.isWhitespace }.reversed())
                    )
                    replacements.add(userId, as: leading + token + trailing)
                }
            }
        case "setUserAttributes", "setIntegrationAttributes":
            if let attributes = params["attributes"] {
                Self.collectStrings(attributes, into: &values)
                noteNumbers(in: attributes)
            }
        case "register", "getPresentationResult", "getPaywall":
            if let placementParams = params["params"] { Self.collectStrings(placementParams, into: &values) }
        case "paywall/pageMessage":
            if let posted = params["message"] { Self.collectPageValues(posted, into: &values) }
        case "handleDeepLink":
            // A code or an address, not a campaign's word (`offer=summer`), which its rules
            // compare and the replay must send as it was.
            if case .string(let url)? = params["url"] {
                values += Self.queryValues(of: url).filter { $0.utf8.count >= SecretReplacements.shortestInText }
            }
        case "redeem", "redeemCodes":
            Self.collectStrings(params, into: &values)
        default:
            return
        }
        note(values)
    }

    /// The least magnitude of a number that is redacted: seven digits.
    static let smallestRedactedNumber: Int64 = 1_000_000

    private func noteNumbers(in value: JSONValue) {
        switch value {
        case .int(let number) where number.magnitude >= Self.smallestRedactedNumber.magnitude:
            guard replacements.replacement(of: number) == nil else { return }
            // As many digits (at most 18, so that the token fits), the same sign.
            let digits = min(String(number.magnitude).count, 18)
            var floor: Int64 = 1
            for _ in 1..<digits { floor *= 10 }
            var hasher = Hasher()
            hasher.combine(number)
            let offset = Int64(UInt64(bitPattern: Int64(hasher.finalize())) % UInt64(floor * 9))
            let token = (floor + offset) * (number < 0 ? -1 : 1)
            replacements.add(number: number, as: token)
        case .array(let elements): for element in elements { noteNumbers(in: element) }
        case .object(let members): for (_, member) in members { noteNumbers(in: member) }
        default: break
        }
    }

    private func note(_ values: [String]) {
        for value in values where !value.isEmpty && replacements.replacement(of: value) == nil {
            var hasher = Hasher()
            hasher.combine(value)
            let digest = UInt64(bitPattern: Int64(hasher.finalize()))
            // An address stays an address: SuperwallKit drops an `email` attribute that is not.
            let suffix = value.contains("@") ? "@redacted.invalid" : ""
            replacements.add(value, as: "redacted-" + String(digest, radix: 16) + suffix)
        }
    }

    /// What a page posts, a string of JSON or its object: the values of its events' members
    /// that are not the event's kind.
    private static func collectPageValues(_ posted: JSONValue, into values: inout [String]) {
        if case .string(let text) = posted {
            if let parsed = try? JSONDecoding.decode(text) { collectPageValues(parsed, into: &values) }
            return
        }
        switch posted {
        case .array(let elements): for element in elements { collectPageValues(element, into: &values) }
        case .object(let members):
            for (key, member) in members where !["event_name", "eventName", "version", "type"].contains(key) {
                if case .string(let text) = member {
                    // Protocol words a page sends (an event's kind, a product's id) are short
                    // identifiers; what a user types has a space, an `@` or a digit run.
                    if key == "key" { continue }
                    if key == "value" || key.lowercased().contains("email") || text.contains("@")
                        || text.contains(" ")
                    {
                        values.append(text)
                    }
                } else {
                    collectPageValues(member, into: &values)
                }
            }
            // Attributes come as `{key, value}` pairs: the key names an attribute, which a
            // replay must set under the same name.
            if let attributes = members["attributes"] ?? members["user_attributes"] {
                collectStrings(attributes, into: &values, besides: ["key"])
            }
            if let data = members["data"] { collectStrings(data, into: &values) }
        default: break
        }
    }

    /// What a redemption's answer says of its purchaser, and the codes it names.
    private static func collectPurchaserValues(_ answer: JSONValue, into values: inout [String]) {
        switch answer {
        case .array(let elements): for element in elements { collectPurchaserValues(element, into: &values) }
        case .object(let members):
            for (key, member) in members {
                if key == "purchaserInfo" || key == "purchaser_info" {
                    collectStrings(member, into: &values)
                } else if key == "code", case .string(let code) = member {
                    values.append(code)
                } else {
                    collectPurchaserValues(member, into: &values)
                }
            }
        default: break
        }
    }

    /// The values of a URL's query (`?code=…&email=…`).
    private static func queryValues(of url: String) -> [String] {
        guard let query = url.split(separator: "?", maxSplits: 1).dropFirst().first else { return [] }
        return query.split(separator: "#").first.map { query in
            query.split(separator: "&").compactMap { pair in
                let parts = pair.split(separator: "=", maxSplits: 1)
                return parts.count == 2 ? percentDecoded(String(parts[1])) : nil
            }
        } ?? []
    }

    /// The strings in `value`, but those of members named in `names`.
    private static func collectStrings(_ value: JSONValue, into values: inout [String], besides names: Set<String> = [])
    {
        switch value {
        case .string(let text): values.append(text)
        case .array(let elements):
            for element in elements { collectStrings(element, into: &values, besides: names) }
        case .object(let members):
            for (key, member) in members where !names.contains(key) {
                collectStrings(member, into: &values, besides: names)
            }
        default: break
        }
    }
}

extension String {
    /// Without the whitespace at either end, as the bridge trims a user id.
    fileprivate var trimmingWhitespace: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
