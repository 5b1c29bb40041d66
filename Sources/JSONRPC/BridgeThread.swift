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

    /// Whether the calling thread is any connection's.
    static var isCurrent: Bool { pthread_getspecific(key) != nil }

    /// Whether the calling thread is one that `owner` marked.
    static func isOwned(by owner: AnyObject) -> Bool {
        let marked: UnsafeMutableRawPointer? = pthread_getspecific(key)
        return marked == Unmanaged.passUnretained(owner).toOpaque()
    }

    /// Marks the calling thread as `owner`'s for as long as `body` runs.
    static func marking<Result>(for owner: AnyObject, _ body: () throws -> Result) rethrows -> Result {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(owner).toOpaque())
        defer { pthread_setspecific(key, previous) }
        return try body()
    }
}
