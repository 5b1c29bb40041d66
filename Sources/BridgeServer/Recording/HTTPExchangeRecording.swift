import Foundation
import JSONRPC
import SuperwallCore

/// How a recording holds the HTTP exchanges of its session, one line each:
/// `{"time", "direction": "http", "method", "url", ...}` and then what the attempt came to:
/// `"status"` with `"body"` (or `"bodyBase64"` for bytes that are not UTF-8), `"failure"` in
/// words, `"tooLarge"` with the limit, or `"noAnswer": true`. The API key in the URL's `pk` is
/// masked as the frames' `apiKey` is. Request headers and bodies are not kept: a replay
/// matches an attempt by its method and URL.
enum HTTPExchangeRecording {
    static func members(_ attempt: HTTPAttempt, _ outcome: HTTPOutcome) -> JSONObject {
        var members: JSONObject = [
            "method": .string(attempt.method),
            "url": .string(maskingKey(in: attempt.url)),
        ]
        switch outcome {
        case .answered(let status, let body):
            members["status"] = .int(Int64(status))
            if let text = String(validating: body, as: UTF8.self) {
                members["body"] = .string(text)
            } else {
                members["bodyBase64"] = .string(body.base64EncodedString())
            }
        case .failed(.tooLarge(let limit)):
            members["tooLarge"] = .int(Int64(limit))
        case .failed(let error):
            members["failure"] = .string(Self.words(error))
        case .noAnswer:
            members["noAnswer"] = true
        }
        return members
    }

    /// The outcome a recorded line holds, or nil for a line that is not an exchange.
    static func outcome(of line: JSONValue) -> (key: String, outcome: HTTPOutcome)? {
        guard case .string(let method)? = line["method"], case .string(let url)? = line["url"] else { return nil }
        let key = matchingKey(method: method, url: url)
        if case .int(let status)? = line["status"] {
            let body: Data
            if case .string(let text)? = line["body"] {
                body = Data(text.utf8)
            } else if case .string(let encoded)? = line["bodyBase64"], let bytes = Data(base64Encoded: encoded) {
                body = bytes
            } else {
                body = Data()
            }
            return (key, .answered(status: Int(status), body: body))
        }
        if case .int(let limit)? = line["tooLarge"] { return (key, .failed(.tooLarge(limit: Int(limit)))) }
        if case .string(let words)? = line["failure"] { return (key, .failed(.transport(words))) }
        if line["noAnswer"] != nil { return (key, .noAnswer) }
        return nil
    }

    /// What an attempt is matched by: the method, and the URL without its API key and with
    /// every UUID and time alike (a fresh data directory makes a new alias and device id).
    static func matchingKey(method: String, url: String) -> String {
        guard var components = URLComponents(string: url) else { return method + " " + url }
        components.queryItems = components.queryItems?.filter { $0.name != "pk" }
        if components.queryItems?.isEmpty == true { components.queryItems = nil }
        let text = components.string ?? url
        return method + " " + VaryingText.madeAlike(text.removingPercentEncoding ?? text)
    }

    private static func maskingKey(in url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let items = components.queryItems, items.contains(where: { $0.name == "pk" })
        else { return url.absoluteString }
        components.queryItems = items.map { item in
            guard item.name == "pk", let key = item.value else { return item }
            return URLQueryItem(name: "pk", value: FrameTrace.masked(key))
        }
        return components.string ?? url.absoluteString
    }

    private static func words(_ error: NetworkError) -> String {
        if case .transport(let words) = error { return words }
        return error.description
    }
}
