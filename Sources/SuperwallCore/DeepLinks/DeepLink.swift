import Foundation

/// A link the app was opened with, as SuperwallKit's `DeepLinkRouter` sorts it.
public struct DeepLink: Sendable, Equatable {
    /// The longest link accepted; anything longer is not a link anyone meant to open.
    public static let maximumLength = 64 * 1024

    public let url: URL
    public let components: URLComponents

    /// Nil for text that is not a URL with a scheme (bad percent-encoding, spaces, no scheme,
    /// longer than `maximumLength`).
    public init?(_ text: String) {
        guard text.utf8.count <= Self.maximumLength, Self.isStrictURLText(text),
            let components = URLComponents(string: text),
            let scheme = components.scheme, !scheme.isEmpty, let url = components.url
        else { return nil }
        self.url = url
        self.components = components
    }

    /// Whether `text` is written only in URL characters (RFC 3986's unreserved and reserved
    /// ones), every `%` starting a two-digit hex escape. Foundation's parser here repairs
    /// `%zz` and spaces instead of refusing them, as the documented contract says a link with
    /// them is.
    static func isStrictURLText(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) else {
                    return false
                }
                index += 3
                continue
            }
            guard allowedBytes.contains(byte) else { return false }
            index += 1
        }
        return true
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    private static let allowedBytes: Set<UInt8> = Set(
        Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=".utf8)
    )

    init(url: URL, components: URLComponents) {
        self.url = url
        self.components = components
    }

    private var host: String { components.host?.lowercased() ?? "" }

    private func queryValue(_ name: String) -> String? {
        components.queryItems?.first { $0.name == name }?.value
    }

    // MARK: Kinds

    /// `<scheme>://superwall/redeem?code=X`, or `https://<app>.superwall.app/app-link/superwall/redeem?code=X`
    /// (also `superwallapp.dev`): the web-checkout code to redeem. Nil without a code.
    public var redemptionCode: String? {
        let isRedemption =
            (host == "superwall" && components.path == "/redeem")
            || (isSuperwallHost && components.path == "/app-link/superwall/redeem")
        guard isRedemption, let code = queryValue("code"), !code.isEmpty else { return nil }
        return code
    }

    private var isSuperwallHost: Bool {
        host.hasSuffix(".superwall.app") || host.hasSuffix(".superwallapp.dev")
    }

    /// A Superwall universal link: a Superwall host and a path under `/app-link/`.
    public var isUniversalLink: Bool {
        isSuperwallHost && components.path.hasPrefix("/app-link/")
    }

    /// Why the bridge does not handle a link SuperwallKit would: a paywall preview needs
    /// SuperwallKit's debugger, a screen of its own. Nil for every other link.
    public var unhandledReason: String? {
        guard debugToken != nil else { return nil }
        return
            "Paywall previews (superwall_debug links) open SuperwallKit's debugger, which needs a screen of its own; this process has none. Show the paywall with getPaywall or register instead."
    }

    /// A debug (paywall preview) link: `superwall_debug=true` and a `token`.
    public var debugToken: String? {
        guard queryValue("superwall_debug") == "true", let token = queryValue("token"), !token.isEmpty else {
            return nil
        }
        return token
    }

    /// SuperwallKit's mapping of a universal link to the app's own scheme:
    /// `https://myapp.superwall.app/app-link/promo/summer?x=1` becomes `myapp://promo/summer?x=1`,
    /// with the path after `app-link` as its components and the query as its parameters.
    public var universalLinkTarget: (url: DeepLink, pathComponents: [String], queryParameters: [String: String])? {
        guard isUniversalLink, let subdomain = host.split(separator: ".").first else { return nil }
        let tail = String(components.path.dropFirst("/app-link/".count))
        var mapped = URLComponents()
        mapped.scheme = String(subdomain)
        let parts = tail.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        mapped.host = parts.first
        mapped.path = parts.count > 1 ? "/" + parts.dropFirst().joined(separator: "/") : ""
        mapped.percentEncodedQuery = components.percentEncodedQuery
        mapped.percentEncodedFragment = components.percentEncodedFragment
        guard let url = mapped.url else { return nil }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        return (DeepLink(url: url, components: mapped), parts, query)
    }

    // MARK: The event

    /// `deepLink_open`'s own parameters (SuperwallKit's `SuperwallEvent.deepLink`), as `URL`
    /// names the parts: for `myapp://promo/summer.html?a=1#top`, host `promo`, path
    /// `/summer.html`, pathExtension `html`, lastPathComponent `summer.html`.
    public var eventParameters: [String: JSON] {
        [
            "url": .string(url.absoluteString), "path": .string(url.path), "pathExtension": .string(url.pathExtension),
            "lastPathComponent": .string(url.lastPathComponent), "host": .string(url.host ?? ""),
            "query": .string(url.query ?? ""), "fragment": .string(url.fragment ?? ""),
        ]
    }

    /// The query items as the event's custom parameters, each value coerced as SuperwallKit
    /// does: `true`/`false`, then an integer, then a double, else the text. Items without a
    /// value are left out; a repeated name keeps its last value.
    public var queryParameters: [String: JSON] {
        var parameters: [String: JSON] = [:]
        for item in components.queryItems ?? [] {
            guard let value = item.value else { continue }
            parameters[item.name] = Self.coerce(value)
        }
        return parameters
    }

    static func coerce(_ value: String) -> JSON {
        if let flag = Bool(value) { return .bool(flag) }
        if let integer = Int64(value) { return .int(integer) }
        if let number = Double(value), number.isFinite,
            value.first.map({ $0.isNumber || $0 == "-" || $0 == "." }) == true
        {
            return .double(number)
        }
        return .string(value)
    }
}
