import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

@Suite struct LocalizedPaywallTests {
    /// The demo config listing German, and the coach paywall as the server serves it in German.
    private static func localizedSetup(
        locales: [String] = ["en", "de_DE"]
    ) async throws -> (config: String, german: String) {
        var config = try #require(
            try JSONSerialization.jsonObject(with: Data(try await demoConfigBody().utf8)) as? [String: Any]
        )
        config["localization"] = ["locales": locales.map { ["locale": $0] }]
        let paywalls = try #require(config["paywall_responses"] as? [[String: Any]])
        var german = try #require(paywalls.first { $0["identifier"] as? String == "coach-upsell-gated" })
        german["name"] = "Coach-Chat (Deutsch)"
        let text = String(decoding: try JSONSerialization.data(withJSONObject: config), as: UTF8.self)
        return (text, String(decoding: try JSONSerialization.data(withJSONObject: german), as: UTF8.self))
    }

    @Test func aListedLocaleFetchesThePaywallFromTheServerInIt() async throws {
        let (config, german) = try await Self.localizedSetup()
        let server = try await ScriptedAPIServer.start(
            [.init(status: 200, body: config)],
            paths: ["/api/v1/paywall/coach-upsell-gated": .init(status: 200, body: german)]
        )
        let (superwall, _) = try await configure(server)
        _ = try await superwall.setSubscriptionStatus(.inactive)
        // English, the device's default here: the config's own paywall, no request.
        let english = try await superwall.getPaywall(placement: "open_coach_chat")
        #expect(english.paywall.name == "Coach chat upsell (gated)")
        #expect(!server.requests.contains { $0.path.hasPrefix("/api/v1/paywall/") })
        try await superwall.dismiss()
        await superwall.setLocaleIdentifier("de_DE")
        let shown = try await superwall.getPaywall(placement: "open_coach_chat")
        #expect(shown.paywall.name == "Coach-Chat (Deutsch)")
        let request = try #require(server.requests.first { $0.path == "/api/v1/paywall/coach-upsell-gated" })
        #expect(request.query == "pk=pk_http_test&locale=de_DE")
        try await superwall.dismiss()
    }

    @Test func aPaywallTheServerCannotServeFailsWith107InTheDevicesLanguage() async throws {
        let (config, _) = try await Self.localizedSetup(locales: ["en", "de"])
        let server = try await ScriptedAPIServer.start(
            [.init(status: 200, body: config)],
            paths: ["/api/v1/paywall/coach-upsell-gated": .init(status: 500)]
        )
        let delegate = RecordingDelegate()
        let (superwall, _) = try await configure(server, delegate: delegate)
        _ = try await superwall.setSubscriptionStatus(.inactive)
        // de_AT is not listed, its language is: the paywall is asked for in German.
        await superwall.setLocaleIdentifier("de_AT")
        do {
            _ = try await superwall.getPaywall(placement: "open_coach_chat")
            Issue.record("expected a failure")
        } catch {
            guard case .presentation(let failure) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(failure.code.rawValue == 107)
        }
        #expect(delegate.names.contains("paywallResponseLoad_fail"))
        #expect(server.requests.filter { $0.path == "/api/v1/paywall/coach-upsell-gated" }.count == 7)
        #expect(
            server.requests.first { $0.path == "/api/v1/paywall/coach-upsell-gated" }?.query
                == "pk=pk_http_test&locale=de"
        )
    }
}

/// A server that takes connections and never answers: a socket listening on the loopback,
/// whose connections wait in its backlog unaccepted.
final class SilentServer {
    let baseURL: URL
    private let descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address -> Bool in
                bind(descriptor, address, length) == 0 && listen(descriptor, 16) == 0
                    && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else { throw CocoaError(.fileWriteUnknown) }
        baseURL = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))")!
    }

    deinit {
        close(descriptor)
    }
}
