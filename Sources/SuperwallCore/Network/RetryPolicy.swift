import Foundation

/// SuperwallKit's retry for network calls (`Task+Retrying.swift`): up to `maxRetries` more
/// attempts after the first, waiting `5^(1 + i/maxRetries)` seconds plus up to a second of
/// jitter after failed attempt `i` (about 5, 6.5, 8.5, 11.2, 14.6 and 19 s for six retries).
public struct RetryPolicy: Sendable {
    public var maxRetries: Int
    /// The wait after failed attempt `attempt` (0-based).
    public var delay: @Sendable (_ attempt: Int, _ maxRetries: Int) -> Duration

    public init(
        maxRetries: Int,
        delay: @escaping @Sendable (_ attempt: Int, _ maxRetries: Int) -> Duration = RetryPolicy.superwallBackoff
    ) {
        self.maxRetries = max(0, maxRetries)
        self.delay = delay
    }

    public static let superwallBackoff: @Sendable (Int, Int) -> Duration = { attempt, maxRetries in
        let exponent = 1 + Double(attempt) / Double(max(1, maxRetries))
        return .milliseconds(Int((pow(5, exponent) + Double.random(in: 0..<1)) * 1000))
    }

    /// Whether an HTTP status is worth another attempt: server errors and 408, 425, 429, 499.
    public static func isRetryable(status: Int) -> Bool {
        (500..<600).contains(status) || [408, 425, 429, 499].contains(status)
    }
}

/// Why a request to the Superwall API failed, mapped as SuperwallKit maps it.
public enum NetworkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 401.
    case notAuthenticated
    /// 404.
    case notFound
    /// Any other status that is not retried, or the last retryable one.
    case http(status: Int)
    /// The server could not be reached, or the connection failed.
    case transport(String)
    /// The whole fetch took longer than its time limit.
    case timedOut
    /// The time limit ended the fetch after attempts that failed: the last one's failure.
    case gaveUp(after: Duration, lastFailure: String)
    /// The body is larger than the limit (`--max-config-size`): refused as soon as its
    /// declared length or the bytes streamed pass it, and not tried again.
    case tooLarge(limit: Int)

    public var description: String {
        switch self {
        case .notAuthenticated: return "the API key was not accepted (HTTP 401)"
        case .notFound: return "not found (HTTP 404)"
        case .http(let status): return "HTTP \(status)"
        case .transport(let reason): return "the request failed: \(reason)"
        case .timedOut: return "the request timed out"
        case .gaveUp(let limit, let failure):
            return
                "no answer within the time limit of \(limit) (timeouts.configMs); the last attempt failed: \(failure)"
        case .tooLarge(let limit): return "the body is larger than the limit of \(limit) bytes (--max-config-size)"
        }
    }
}
