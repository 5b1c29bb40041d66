import Foundation

/// Where a static config comes from.
public protocol ConfigSource: Sendable {
    /// The config body, as the Superwall API would serve it.
    func fetchConfig(_ request: ConfigRequest) async throws -> Data
    /// A short description for logs and errors ("embedded demo", a path, a URL).
    var description: String { get }
    /// What a session with this source reaches: the source says which servers it also is, so
    /// the core never asks by casting. By default, the config alone.
    var backend: SuperwallBackend { get }
    /// Whether `fetchConfig` sends `ConfigRequest.headers` anywhere: only then are they made
    /// (from the device template, a third of a millisecond). By default, not.
    var sendsHeaders: Bool { get }
}

extension ConfigSource {
    public var backend: SuperwallBackend { SuperwallBackend(config: self) }
    public var sendsHeaders: Bool { false }
}

/// What a fetch needs to know; sources that read local bytes ignore most of it.
public struct ConfigRequest: Sendable {
    public var apiKey: String
    /// SuperwallKit's request headers (`Authorization`, `X-Platform`, `X-SDK-Version`, ...).
    public var headers: [String: String]
    public var retryPolicy: RetryPolicy
    /// Each attempt's own limit, in seconds.
    public var attemptTimeout: TimeInterval
    /// A limit on the whole fetch, retries included.
    public var timeLimit: Duration?
    /// Told the number of each retry as it starts.
    public var onRetry: @Sendable (Int) -> Void

    public init(
        apiKey: String,
        headers: [String: String] = [:],
        retryPolicy: RetryPolicy = RetryPolicy(maxRetries: 0),
        attemptTimeout: TimeInterval = 60,
        timeLimit: Duration? = nil,
        onRetry: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.apiKey = apiKey
        self.headers = headers
        self.retryPolicy = retryPolicy
        self.attemptTimeout = attemptTimeout
        self.timeLimit = timeLimit
        self.onRetry = onRetry
    }

    /// SuperwallKit's headers for every API request (`DependencyContainer.makeHeaders`), from
    /// the device template (`device`), the user's ids, the active entitlements (`X-Entitlements`,
    /// comma-joined, empty when none) and the build id of the config in use.
    static func superwallHeaders(
        apiKey: String,
        device: [String: JSON],
        appUserId: String?,
        aliasId: String,
        activeEntitlementIds: [String],
        cachedBuildId: String?,
        at now: Date
    ) -> [String: String] {
        func text(_ key: String) -> String {
            switch device[key] {
            case .string(let value)?: return value
            case .int(let value)?: return String(value)
            case .bool(let value)?: return String(value)
            default: return ""
            }
        }
        return [
            "Authorization": "Bearer \(apiKey)",
            "X-Platform": text("platform"), "X-Platform-Environment": "SDK",
            // Superwall-Android's template names them in snake case.
            "X-Platform-Wrapper": device["platformWrapper"] == nil ? text("platform_wrapper") : text("platformWrapper"),
            "X-Platform-Wrapper-Version": device["platformWrapperVersion"] == nil
                ? text("platform_wrapper_version") : text("platformWrapperVersion"),
            "X-App-User-ID": appUserId ?? "", "X-Alias-ID": aliasId,
            "X-URL-Scheme": "",
            "X-Vendor-ID": text("vendorId"), "X-App-Version": text("appVersion"), "X-OS-Version": text("osVersion"),
            "X-Device-Model": text("deviceModel"), "X-Device-Locale": text("deviceLocale"),
            "X-Device-Language-Code": text("deviceLanguageCode"), "X-Device-Currency-Code": "",
            "X-Device-Currency-Symbol": "",
            "X-Device-Timezone-Offset": text("timezoneOffset"), "X-App-Install-Date": text("appInstallDate"),
            "X-Radio-Type": "Wifi",
            "X-Device-Interface-Style": text("interfaceStyle"), "X-SDK-Version": SuperwallSDK.referenceVersion,
            "X-Bundle-ID": text("bundleId"), "X-Low-Power-Mode": "false", "X-Is-Sandbox": text("isSandbox"),
            "X-Static-Config-Build-Id": cachedBuildId ?? "", "X-Current-Time": ISO8601.string(from: now),
            "X-Entitlements": activeEntitlementIds.joined(separator: ","), "Content-Type": "application/json",
        ]
    }
}

/// The demo app compiled into the binary.
public struct EmbeddedConfigSource: ConfigSource {
    public init() {}
    /// The demo app's config, as the Superwall API would serve it.
    public static var json: String { EmbeddedDemoConfig.json }
    public func fetchConfig(_ request: ConfigRequest) async throws -> Data { Data(EmbeddedDemoConfig.json.utf8) }
    public var description: String { "embedded demo config" }
}

/// A config file on disk, read on every fetch.
public struct FileConfigSource: ConfigSource {
    public let path: String
    /// The largest config file read; a larger one is refused before it is read.
    public let maximumSize: Int

    /// The default `maximumSize`: three times the 1,000-campaign benchmark config. Loading the
    /// largest it allows keeps a concurrent `$/ping` under 50 ms (B12).
    public static let defaultMaximumSize = 16 * 1024 * 1024

    public init(path: String, maximumSize: Int = FileConfigSource.defaultMaximumSize) {
        self.path = path
        self.maximumSize = maximumSize
    }

    public func fetchConfig(_ request: ConfigRequest) async throws -> Data {
        do {
            return try LocalFile.read(path, atMost: maximumSize)
        } catch {
            throw ConfigFetchError.unreadable(path: path, reason: error.reason)
        }
    }

    public var description: String { "config file \(path)" }

    public var backend: SuperwallBackend { SuperwallBackend(config: self, watchedFile: path) }
}

public enum ConfigFetchError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): return "cannot read the config file \(path): \(reason)"
        }
    }
}

/// An experiment and the variant the user saw, as `confirm_assignments` takes them.
public struct AssignmentConfirmation: Sendable, Equatable {
    public var experimentId: String
    public var variantId: String

    public init(experimentId: String, variantId: String) {
        self.experimentId = experimentId
        self.variantId = variantId
    }
}

/// A config source whose server is told which variants users saw. Only the Superwall API
/// (or a server speaking it) is; local sources have no one to tell.
public protocol AssignmentServer: Sendable {
    /// Posts the confirmations; throws when the server does not take them.
    func confirmAssignments(_ confirmations: [AssignmentConfirmation], request: ConfigRequest) async throws
    /// The variants the server holds for the user (`GET /api/v1/assignments`).
    func fetchAssignments(request: ConfigRequest) async throws -> [AssignmentConfirmation]
}

/// A server that serves a paywall in the user's language (`GET /api/v1/paywall/{identifier}`):
/// the Superwall API. Local sources have only the config's paywalls.
public protocol PaywallServer: Sendable {
    /// The paywall's JSON as `paywall_responses` holds it, with `locale` when given.
    func fetchPaywall(identifier: String, locale: String?, request: ConfigRequest) async throws -> Data
}

/// Why a paywall could not be loaded, and the event that reports it.
struct PaywallLoadFailure: Error {
    let eventName: String
    let error: PresentationError

    static func notInConfig(_ identifier: String) -> PaywallLoadFailure {
        PaywallLoadFailure(
            eventName: "paywallResponseLoad_notFound",
            error: .paywallNotFound("the config has no paywall \"\(identifier)\"")
        )
    }
}

extension PaywallServer {
    /// The paywall fetched in `locale` and decoded; a failure names its event.
    nonisolated(nonsending) func paywall(
        _ identifier: String,
        in locale: String,
        request: ConfigRequest
    ) async -> Result<Paywall, PaywallLoadFailure> {
        do {
            let body = try await fetchPaywall(identifier: identifier, locale: locale, request: request)
            return .success(try JSONDecoder().decode(Paywall.self, from: body))
        } catch NetworkError.notFound {
            return .failure(
                PaywallLoadFailure(
                    eventName: "paywallResponseLoad_notFound",
                    error: .paywallNotFound("the server has no paywall \"\(identifier)\" in \(locale)")
                )
            )
        } catch {
            return .failure(
                PaywallLoadFailure(
                    eventName: "paywallResponseLoad_fail",
                    error: PresentationError(
                        .paywallFailedToLoad,
                        "The paywall \(identifier) failed to load in \(locale): \(error)."
                    )
                )
            )
        }
    }
}

/// A server that knows the user's web entitlements: Superwall's subscriptions API.
public protocol WebEntitlementServer: Sendable {
    /// The web customer info of `userId` (the app user id, else the device id).
    func fetchWebCustomerInfo(userId: String, deviceId: String, request: ConfigRequest) async throws -> CustomerInfo
}

/// A server that redeems web-checkout codes: Superwall's subscriptions API.
public protocol RedemptionServer: Sendable {
    /// Posts a redeem request (the subscriptions API's camelCase body); answers the response body.
    func redeem(_ body: JSON, request: ConfigRequest) async throws -> Data
}
