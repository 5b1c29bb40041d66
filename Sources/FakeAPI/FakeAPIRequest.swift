import Foundation

/// One request a fake API received, as sent.
public struct FakeAPIRequest: Sendable {
    public var method: String
    public var path: String
    /// The query, without its `?`; empty when there is none.
    public var query: String
    /// Header names lowercased.
    public var headers: [String: String]
    public var body: Data?

    public init(method: String, path: String, query: String, headers: [String: String], body: Data?) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// The value of the query item `name`, percent-decoding included.
    func queryItem(_ name: String) -> String? {
        URLComponents(string: "?" + query)?.queryItems?.first { $0.name == name }?.value
    }

    /// The record file's line: `{method, path, query, headers, body}`, the API key masked in
    /// the `Authorization` header, the `pk` query item and the body (the events' `$publicApiKey`),
    /// the body as text (`null` for none).
    var recordLine: Data {
        let masked: [String: String] = headers.reduce(into: [:]) { headers, header in
            headers[header.key] =
                header.key == "authorization" ? Self.maskingBearer(header.value) : header.value
        }
        let record: [String: Any] = [
            "method": method,
            "path": path,
            "query": Self.maskingKey(inQuery: query),
            "headers": masked,
            "body": body.map { Self.maskingKeys(inBody: String(decoding: $0, as: UTF8.self)) } ?? NSNull(),
        ]
        var line =
            (try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
        line.append(0x0A)
        return line
    }

    /// The first four characters of a key, then `…`: enough to tell keys apart, not to use one.
    static func mask(_ key: String) -> String { String(key.prefix(4)) + "…" }

    private static func maskingBearer(_ value: String) -> String {
        value.hasPrefix("Bearer ") ? "Bearer " + mask(String(value.dropFirst(7))) : mask(value)
    }

    /// The string values of members named `apiKey`, `publicApiKey` or `$publicApiKey`.
    private static let keyMembers = try! NSRegularExpression(
        pattern: #""(\$?publicApiKey|apiKey)"\s*:\s*"((?:[^"\\]|\\.)*)""#
    )

    static func maskingKeys(inBody body: String) -> String {
        let whole = NSRange(body.startIndex..., in: body)
        var masked = body
        for match in keyMembers.matches(in: body, range: whole).reversed() {
            guard let range = Range(match.range(at: 2), in: body) else { continue }
            masked.replaceSubrange(range, with: mask(String(body[range])))
        }
        return masked
    }

    private static func maskingKey(inQuery query: String) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { item in
            item.hasPrefix("pk=") ? "pk=" + mask(String(item.dropFirst(3))) : String(item)
        }.joined(separator: "&")
    }
}

/// An answer a fake API gives.
public struct FakeAPIResponse: Sendable {
    public var status: Int
    public var body: Data
    public var delayMilliseconds: Int
    public var chunked: Bool
    /// Sent once this gate opens (`FakeAPIScript.Answer.heldUntil`).
    public var heldUntil: AnswerGate?

    init(status: Int, body: Data, delayMilliseconds: Int = 0, chunked: Bool = false, heldUntil: AnswerGate? = nil) {
        self.status = status
        self.body = body
        self.delayMilliseconds = delayMilliseconds
        self.chunked = chunked
        self.heldUntil = heldUntil
    }

    static func json(_ object: Any, status: Int = 200) -> FakeAPIResponse {
        FakeAPIResponse(status: status, body: (try? FakeAPIScript.text(object)) ?? Data("{}".utf8))
    }

    static func notFound(_ message: String) -> FakeAPIResponse { json(["error": message], status: 404) }
}
