#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Marks the threads a connection owns (its reader, its output's delivery thread), where a
/// host's callback may run and so must never wait for the connection to make progress.
enum BridgeThread {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    static var isCurrent: Bool { pthread_getspecific(key) != nil }

    /// Marks the calling thread for as long as `body` runs.
    static func marking<Result>(_ body: () throws -> Result) rethrows -> Result {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
        defer { pthread_setspecific(key, previous) }
        return try body()
    }
}
