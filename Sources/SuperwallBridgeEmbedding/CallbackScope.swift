#if canImport(Glibc)
import Glibc
#endif

/// Which bridge's output callback the calling thread is inside, if any.
enum CallbackScope {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    static var current: ObjectIdentifier? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return ObjectIdentifier(Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue())
    }

    static func entering(_ owner: AnyObject, _ body: () -> Void) {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(owner).toOpaque())
        defer { pthread_setspecific(key, previous) }
        body()
    }
}
