import AsyncHTTPClient
import Executors
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// One attempt of a request to the Superwall API, as an `HTTPConfigSource` sends it.
public struct HTTPAttempt: Sendable {
    public var method: String
    public var url: URL
    public var headers: [String: String]
    public var body: Data?
    /// How long the attempt may take, the body's arrival included.
    public var timeout: Duration
    /// The largest body accepted.
    public var bodyLimit: Int

    public init(
        method: String,
        url: URL,
        headers: [String: String],
        body: Data?,
        timeout: Duration,
        bodyLimit: Int
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.bodyLimit = bodyLimit
    }
}

/// What an attempt came to: the server's status and body, or what came instead.
public enum HTTPOutcome: Sendable, Equatable {
    case answered(status: Int, body: Data)
    /// The request did not reach the server or its answer did not come back whole:
    /// `NetworkError.transport` in words, or `tooLarge`.
    case failed(NetworkError)
    /// Nothing came within the attempt's time.
    case noAnswer
}

/// What carries an `HTTPConfigSource`'s requests: the network, or the answers of a recording.
public protocol HTTPTransport: Sendable {
    func send(_ attempt: HTTPAttempt) async throws -> HTTPOutcome
}

/// The network, through one AsyncHTTPClient whose connections are pooled for the life of the process.
public struct NetworkTransport: HTTPTransport {
    public init() {}

    /// AsyncHTTPClient rather than `URLSession`: FoundationNetworking links libcurl, which with
    /// the 28 libraries it needs the dynamic loader relocated on every start, `http` source or
    /// not; that was half of the time from spawn to the first reply. Its threads start
    /// with the first request. A forked child makes its own, on threads of its own: it has
    /// none of its parent's.
    private static let client = PerProcess { isFirstProcess in
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .follow(max: 5, allowCycles: false),
            decompression: .enabled(limit: .ratio(100))
        )
        // A refused connection fails the attempt at once; the retry policy decides what next.
        configuration.connectionPool.retryConnectionEstablishment = false
        let threads: HTTPClient.EventLoopGroupProvider =
            isFirstProcess ? .singleton : .shared(MultiThreadedEventLoopGroup(numberOfThreads: 1))
        return HTTPClient(eventLoopGroupProvider: threads, configuration: configuration)
    }

    public func send(_ attempt: HTTPAttempt) async throws -> HTTPOutcome {
        var http = HTTPClientRequest(url: attempt.url.absoluteString)
        http.method = HTTPMethod(rawValue: attempt.method)
        if let body = attempt.body { http.body = .bytes(ByteBuffer(bytes: body)) }
        for (name, value) in attempt.headers { http.headers.replaceOrAdd(name: name, value: value) }
        do {
            let (seconds, attoseconds) = attempt.timeout.components
            let response = try await Self.client.value.execute(
                http,
                timeout: .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
            )
            if let declared = response.headers.first(name: "content-length").flatMap(Int.init),
                declared > attempt.bodyLimit
            {
                return .failed(.tooLarge(limit: attempt.bodyLimit))
            }
            let body = try await response.body.collect(upTo: attempt.bodyLimit)
            return .answered(status: Int(response.status.code), body: Data(body.readableBytesView))
        } catch is CancellationError {
            throw CancellationError()
        } catch is NIOTooManyBytesError {
            return .failed(.tooLarge(limit: attempt.bodyLimit))
        } catch {
            return .failed(.transport(HTTPConfigSource.plainWords(for: error)))
        }
    }
}

/// A transport that tells `record` what each attempt came to, after it came.
public struct RecordingTransport: HTTPTransport {
    public let underlying: any HTTPTransport
    public let record: @Sendable (HTTPAttempt, HTTPOutcome) -> Void

    public init(_ underlying: any HTTPTransport, record: @escaping @Sendable (HTTPAttempt, HTTPOutcome) -> Void) {
        self.underlying = underlying
        self.record = record
    }

    public func send(_ attempt: HTTPAttempt) async throws -> HTTPOutcome {
        do {
            let outcome = try await underlying.send(attempt)
            record(attempt, outcome)
            return outcome
        } catch {
            // The attempt's deadline cancels it: what the server gave was nothing in time.
            record(attempt, .noAnswer)
            throw error
        }
    }
}
