import Crypto
import Executors
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Who the user is: an anonymous alias, and the app's own id once `identify` names one.
public struct Identity: Sendable, Equatable {
    /// `$SuperwallAlias:` followed by an uppercase UUID; new on every reset.
    public var aliasId: String
    /// Set by `identify`.
    public var appUserId: String?
    /// 0–99, for percentage rollouts that must stay stable per user.
    public var seed: Int

    public init(aliasId: String, appUserId: String? = nil, seed: Int) {
        self.aliasId = aliasId
        self.appUserId = appUserId
        self.seed = seed
    }

    /// The public user id: the app's, else the alias.
    public var userId: String { appUserId ?? aliasId }
    public var isLoggedIn: Bool { appUserId != nil }

    static let aliasPrefix = "$SuperwallAlias:"

    /// A new anonymous user.
    static func anonymous(using random: any RandomSource) -> Identity {
        Identity(aliasId: aliasPrefix + random.uuid().uuidString, seed: random.int(in: 0..<100))
    }

    /// The seed SuperwallKit derives from a user id when `enable_userid_seed` is on: SHA-256
    /// of the UTF-8 id, read as four little-endian 64-bit words, summed with wrap-around,
    /// modulo 100.
    public static func seed(forUserId userId: String) -> Int {
        let digest = Array(SHA256.hash(data: Data(userId.utf8)))
        var sum: UInt64 = 0
        for chunk in 0..<4 {
            var word: UInt64 = 0
            for byte in 0..<8 { word |= UInt64(digest[chunk * 8 + byte]) << (8 * UInt64(byte)) }
            sum &+= word
        }
        return Int(sum % 100)
    }

    /// What `identify` does to a requested id: trims whitespace and newlines; empty is nil.
    static func normalizedUserId(_ userId: String) -> String? {
        let trimmed = userId.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}

/// Where the core gets randomness, so that aliases, seeds and variant draws can be replayed.
public protocol RandomSource: Sendable {
    func uuid() -> UUID
    /// A uniformly drawn integer in `range`.
    func int(in range: Range<Int>) -> Int
    /// An id that must never repeat, in any run: an event's, which a collector de-duplicates
    /// by. The same as `uuid()` unless the source repeats itself across runs.
    func uniqueId() -> UUID
    /// A source for work that draws beside the calls (a preload): a seeded source hands it a
    /// generator of its own, seeded by its next draw, so the calls' draws stay in their order
    /// whenever that work runs. A source that repeats nothing is its own fork.
    func fork() -> any RandomSource
}

extension RandomSource {
    public func uniqueId() -> UUID { uuid() }
    public func fork() -> any RandomSource { self }
}

/// The system's random number generator.
public struct SystemRandomSource: RandomSource {
    public init() {}

    /// A version 4 UUID from the system generator. Foundation's `UUID()` opens `/dev/urandom`
    /// for each one on Linux, and even one system call each costs more than tracking the event
    /// it names, so the bytes come from a pool refilled 4 KiB at a time.
    public func uuid() -> UUID {
        var value = UUID.nilBytes
        withUnsafeMutableBytes(of: &value) { bytes in
            Self.pool.withLock { $0.take(into: bytes) }
            bytes[6] = (bytes[6] & 0x0F) | 0x40
            bytes[8] = (bytes[8] & 0x3F) | 0x80
        }
        return UUID(uuid: value)
    }

    private static let pool = Mutex(RandomPool())

    /// System randomness, fetched in bulk and handed out once each.
    private struct RandomPool {
        private var bytes = [UInt8](repeating: 0, count: 4096)
        private var used = 4096

        mutating func take(into destination: UnsafeMutableRawBufferPointer) {
            if used + destination.count > bytes.count {
                bytes.withUnsafeMutableBytes(Self.fillRandom)
                used = 0
            }
            for index in destination.indices { destination[index] = bytes[used + index] }
            used += destination.count
        }

        private static func fillRandom(_ bytes: UnsafeMutableRawBufferPointer) {
            #if canImport(Glibc)
            arc4random_buf(bytes.baseAddress!, bytes.count)
            #else
            var generator = SystemRandomNumberGenerator()
            for index in bytes.indices { bytes[index] = generator.next() }
            #endif
        }
    }

    public func int(in range: Range<Int>) -> Int { Int.random(in: range) }
}

/// Where the core reads the time, so that windows and `daysSince` can be tested.
public protocol WallClock: Sendable {
    func now() -> Date
    /// Waits `duration` of this clock's time (the event flush timer does).
    func sleep(for duration: Duration) async throws
}

extension WallClock {
    public func sleep(for duration: Duration) async throws {
        try await DeadlineTimer.sleep(for: duration)
    }
}

public struct SystemWallClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}
