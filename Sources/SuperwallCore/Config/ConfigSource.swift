import Foundation

/// Where a static config comes from.
public protocol ConfigSource: Sendable {
    /// The config body, as the Superwall API would serve it.
    func fetchConfig() async throws -> Data
    /// A short description for logs and errors ("embedded demo", a path, a URL).
    var description: String { get }
}

/// The demo app compiled into the binary.
public struct EmbeddedConfigSource: ConfigSource {
    public init() {}
    public func fetchConfig() async throws -> Data { Data(EmbeddedDemoConfig.json.utf8) }
    public var description: String { "embedded demo config" }
}

/// A config file on disk, read on every fetch.
public struct FileConfigSource: ConfigSource {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public func fetchConfig() async throws -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigFetchError.unreadable(path: path, reason: (error as NSError).localizedDescription)
        }
    }

    public var description: String { "config file \(path)" }
}

public enum ConfigFetchError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): return "cannot read the config file \(path): \(reason)"
        }
    }
}
