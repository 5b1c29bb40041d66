import Executors
import Foundation
import Synchronization

/// The Superwall API, or any server speaking it: `GET {baseURL}/api/v1/static_config?pk=`.
public struct HTTPConfigSource: ConfigSource, AssignmentServer, RedemptionServer, PaywallServer, WebEntitlementServer {
    public let baseURL: URL
    /// Where the subscriptions API is: SuperwallKit's own host for each network environment
    /// (`subscriptions-api.superwall.com`, ...), the base URL itself for any other server.
    public let subscriptionsURL: URL
    /// Where events go: `collector.superwall.me` and its kin, the base URL for any other server.
    public let collectorURL: URL

    /// The largest body accepted (`--max-config-size`).
    public let maximumBodySize: Int
    /// What carries the requests: the network, or a recording's answers.
    public let transport: any HTTPTransport

    public init(
        baseURL: URL,
        subscriptionsURL: URL? = nil,
        collectorURL: URL? = nil,
        maximumBodySize: Int = HTTPConfigSource.defaultMaximumBodySize,
        transport: any HTTPTransport = NetworkTransport()
    ) {
        self.baseURL = baseURL
        self.subscriptionsURL = subscriptionsURL ?? baseURL
        self.collectorURL = collectorURL ?? baseURL
        self.maximumBodySize = maximumBodySize
        self.transport = transport
    }

    /// SuperwallKit's `networkEnvironment`s.
    public enum NetworkEnvironment: String, Sendable {
        case release, releaseCandidate, developer

        /// The environment's hosts: the API, its subscriptions API (web-checkout redemption)
        /// and its event collector.
        var hosts: (api: URL, subscriptions: URL, collector: URL) {
            switch self {
            case .release:
                (
                    URL(string: "https://api.superwall.me")!, URL(string: "https://subscriptions-api.superwall.com")!,
                    URL(string: "https://collector.superwall.me")!
                )
            case .releaseCandidate:
                (
                    URL(string: "https://api.superwallcanary.com")!,
                    URL(string: "https://subscriptions-api.superwallcanary.com")!,
                    URL(string: "https://collector.superwallcanary.com")!
                )
            case .developer:
                (
                    URL(string: "https://api.superwall.dev")!, URL(string: "https://subscriptions-api.superwall.dev")!,
                    URL(string: "https://collector.superwall.dev")!
                )
            }
        }
    }

    /// SuperwallKit's own source: the Superwall API of `environment`.
    public init(
        _ environment: NetworkEnvironment,
        maximumBodySize: Int = HTTPConfigSource.defaultMaximumBodySize,
        transport: any HTTPTransport = NetworkTransport()
    ) {
        let hosts = environment.hosts
        self.init(
            baseURL: hosts.api,
            subscriptionsURL: hosts.subscriptions,
            collectorURL: hosts.collector,
            maximumBodySize: maximumBodySize,
            transport: transport
        )
    }

    /// A config of a thousand campaigns is about 5 MB.
    public static let defaultMaximumBodySize = 16 << 20

    /// `POST {collectorURL}/api/v1/events`; answers the response body.
    func postEvents(_ body: Data, request: ConfigRequest) async throws -> Data {
        try await attempts("POST", collectorURL.appendingPathComponent("api/v1/events"), body: body, request).run()
    }

    /// `POST {subscriptionsURL}/subscriptions-api/public/v1/redeem`, the body in the
    /// subscriptions API's camelCase; answers the response body.
    public func redeem(_ body: JSON, request: ConfigRequest) async throws -> Data {
        let fetch = attempts(
            "POST",
            subscriptionsURL.appendingPathComponent("subscriptions-api/public/v1/redeem"),
            body: Data(body.jsonText.utf8),
            request
        )
        return try await fetch.run()
    }

    public var description: String { "Superwall API at \(baseURL.absoluteString)" }

    public var sendsHeaders: Bool { true }

    public var backend: SuperwallBackend {
        SuperwallBackend(
            config: self,
            paywalls: self,
            assignments: self,
            redemption: self,
            webEntitlements: self,
            collector: self,
            fetchesOverTheNetwork: true
        )
    }

    public func fetchConfig(_ request: ConfigRequest) async throws -> Data {
        guard
            var components = URLComponents(
                url: baseURL.appendingPathComponent("api/v1/static_config"),
                resolvingAgainstBaseURL: false
            )
        else {
            throw NetworkError.transport("the base URL \(baseURL) is not usable")
        }
        components.queryItems = [URLQueryItem(name: "pk", value: request.apiKey)]
        guard let url = components.url else { throw NetworkError.transport("the base URL \(baseURL) is not usable") }
        let fetch = attempts("GET", url, request)
        guard let limit = request.timeLimit else { return try await fetch.run() }
        do {
            return try await withTimeLimit(limit) { try await fetch.run() }
        } catch NetworkError.timedOut {
            // The limit was the end, not necessarily the cause: the attempts' own failure says more.
            guard let failure = fetch.lastFailure.value.withLock({ $0 }) else { throw NetworkError.timedOut }
            throw NetworkError.gaveUp(after: limit, lastFailure: "\(failure)")
        }
    }

    /// `POST {baseURL}/api/v1/confirm_assignments` with `{"assignments": [{experiment_id, variant_id}]}`.
    public func confirmAssignments(_ confirmations: [AssignmentConfirmation], request: ConfigRequest) async throws {
        let body: JSON = [
            "assignments": .array(
                confirmations.map { ["experiment_id": .string($0.experimentId), "variant_id": .string($0.variantId)] }
            )
        ]
        let fetch = attempts(
            "POST",
            baseURL.appendingPathComponent("api/v1/confirm_assignments"),
            body: Data(body.jsonText.utf8),
            request
        )
        _ = try await fetch.run()
    }

    public func fetchAssignments(request: ConfigRequest) async throws -> [AssignmentConfirmation] {
        let fetch = attempts("GET", baseURL.appendingPathComponent("api/v1/assignments"), request)
        struct Response: Decodable {
            struct Entry: Decodable {
                var experiment_id: String
                var variant_id: String
            }
            var assignments: [Entry]
        }
        let response = try JSONDecoder().decode(Response.self, from: try await fetch.run())
        return response.assignments.map {
            AssignmentConfirmation(experimentId: $0.experiment_id, variantId: $0.variant_id)
        }
    }

    /// `?pk=<apiKey>[&locale=...]`, in that order, as SuperwallKit sends it.
    public func fetchPaywall(identifier: String, locale: String?, request: ConfigRequest) async throws -> Data {
        guard
            var components = URLComponents(
                url: baseURL.appendingPathComponent("api/v1/paywall/\(identifier)"),
                resolvingAgainstBaseURL: false
            )
        else {
            throw NetworkError.transport("the base URL \(baseURL) is not usable")
        }
        components.queryItems =
            [URLQueryItem(name: "pk", value: request.apiKey)]
            + (locale.map { [URLQueryItem(name: "locale", value: $0)] } ?? [])
        guard let url = components.url else {
            throw NetworkError.transport("the paywall identifier \(identifier) makes no URL")
        }
        return try await attempts("GET", url, request)
            .run()
    }

    /// `GET /subscriptions-api/public/v1/users/{userId}/entitlements?deviceId=`: `{customerInfo}`.
    public func fetchWebCustomerInfo(
        userId: String,
        deviceId: String,
        request: ConfigRequest
    ) async throws -> CustomerInfo {
        let path = subscriptionsURL.appendingPathComponent("subscriptions-api/public/v1/users").appendingPathComponent(
            userId
        )
        .appendingPathComponent("entitlements")
        guard var components = URLComponents(url: path, resolvingAgainstBaseURL: false) else {
            throw NetworkError.transport("the subscriptions URL \(subscriptionsURL) is not usable")
        }
        components.queryItems = [URLQueryItem(name: "deviceId", value: deviceId)]
        guard let url = components.url else { throw NetworkError.transport("the user id \(userId) makes no URL") }
        struct Response: Decodable { var customerInfo: CustomerInfo }
        return try JSONDecoder().decode(
            Response.self,
            from: try await attempts("GET", url, request)
                .run()
        ).customerInfo
    }

    /// The retry loop of one request to `url`.
    private func attempts(_ method: String, _ url: URL, body: Data? = nil, _ request: ConfigRequest) -> Attempts {
        Attempts(
            transport: transport,
            bodyLimit: maximumBodySize,
            url: url,
            method: method,
            body: body,
            request: request
        )
    }

    /// The retry loop of one request.
    private struct Attempts: Sendable {
        let transport: any HTTPTransport
        let bodyLimit: Int
        let url: URL
        let method: String
        let body: Data?
        let request: ConfigRequest
        /// Each attempt's failure, for the answer when the time limit ends the fetch.
        let lastFailure = LastFailure()

        func run() async throws -> Data {
            var attempt = 0
            while true {
                let failure: NetworkError
                do {
                    // Each attempt races its own deadline, the body's arrival included.
                    let (status, data) = try await withTimeLimit(.milliseconds(Int(request.attemptTimeout * 1000))) {
                        [self, attempt] in
                        try await send(attempt: attempt)
                    }
                    if (200..<300).contains(status) { return data }
                    guard RetryPolicy.isRetryable(status: status) else {
                        switch status {
                        case 401: throw NetworkError.notAuthenticated
                        case 404: throw NetworkError.notFound
                        default: throw NetworkError.http(status: status)
                        }
                    }
                    failure = .http(status: status)
                } catch NetworkError.timedOut {
                    failure = .transport("no answer within \(request.attemptTimeout) s")
                } catch NetworkError.transport(let reason) {
                    failure = .transport(reason)
                } catch let error as NetworkError {
                    throw error
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    failure = .transport(HTTPConfigSource.plainWords(for: error))
                }
                lastFailure.value.withLock { $0 = failure }
                guard attempt < request.retryPolicy.maxRetries else { throw failure }
                try await DeadlineTimer.sleep(for: request.retryPolicy.delay(attempt, request.retryPolicy.maxRetries))
                attempt += 1
                request.onRetry(attempt)
            }
        }

        /// One attempt: the status and the body.
        private func send(attempt: Int) async throws -> (Int, Data) {
            var headers = request.headers
            headers["X-Retry-Count"] = String(attempt)
            headers["X-Request-Id"] = UUID().uuidString
            let timeout = Duration.milliseconds(Int64(request.attemptTimeout * 1000))
            let outcome = try await transport.send(
                HTTPAttempt(
                    method: method,
                    url: url,
                    headers: headers,
                    body: body,
                    timeout: timeout,
                    bodyLimit: bodyLimit
                )
            )
            switch outcome {
            case .answered(let status, let body): return (status, body)
            case .failed(let error): throw error
            case .noAnswer: throw NetworkError.timedOut
            }
        }
    }
}

/// The failure of a fetch's latest attempt, shared with the time limit around it.
private final class LastFailure: Sendable {
    let value = Mutex<NetworkError?>(nil)
}

extension HTTPConfigSource {
    /// A transport failure in words for a person: the HTTP stack's own descriptions name its
    /// Swift types (`SocketAddressError.UnknownHost`, `NIOConnectionError(...)`).
    static func plainWords(for error: any Error) -> String {
        let text = String(describing: error)
        let known: [(pattern: String, words: String)] = [
            ("Connection refused", "the connection was refused"),
            ("UnknownHost", "the host name could not be resolved"),
            ("Name or service not known", "the host name could not be resolved"),
            ("Network is unreachable", "the network is unreachable"),
            ("No route to host", "there is no route to the host"),
            ("connectTimeout", "the connection timed out"),
            ("Connection reset", "the connection was reset"),
            ("remoteConnectionClosed", "the server closed the connection"),
            ("handshake", "the TLS handshake failed"),
            ("certificate", "the server's certificate was not accepted"),
            ("redirectCycleDetected", "the redirects form a loop"),
            ("redirectLimitReached", "too many redirects"),
            ("HTTPParserError", "the server's answer is not HTTP"),
            ("invalidStatus", "the server's answer is not HTTP"),
            ("Decompression", "the compressed body is damaged or expands past the limit"),
            ("unsupportedCompression", "the compressed body is damaged or expands past the limit"),
            ("remoteConnectionClosed", "the server closed the connection"),
            ("ioOnClosedChannel", "the server closed the connection"),
        ]
        return known.first { text.range(of: $0.pattern, options: .caseInsensitive) != nil }?.words
            ?? "the connection failed"
    }
}
