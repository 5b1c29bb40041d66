import Foundation
import Synchronization

/// Every draw from one generator seeded by `configure.options.randomSeed`: the same seed,
/// config and calls give the same ids, variants and survey draws in any process; event ids
/// alone stay the system's, unique across runs.
///
/// A test option, never for production: its ids are predictable.
public final class SeededRandomSource: RandomSource {
    private let generator: Mutex<Xoshiro256StarStar>

    public init(seed: UInt64) {
        generator = Mutex(Xoshiro256StarStar(seed: seed))
    }

    /// A version 4 UUID made of the generator's next sixteen bytes.
    public func uuid() -> UUID {
        var value = UUID.nilBytes
        let (high, low) = generator.withLock { ($0.next(), $0.next()) }
        withUnsafeMutableBytes(of: &value) { bytes in
            withUnsafeBytes(of: high.bigEndian) { bytes.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: 8) }
            withUnsafeBytes(of: low.bigEndian) {
                (bytes.baseAddress! + 8).copyMemory(from: $0.baseAddress!, byteCount: 8)
            }
            bytes[6] = (bytes[6] & 0x0F) | 0x40
            bytes[8] = (bytes[8] & 0x3F) | 0x80
        }
        return UUID(uuid: value)
    }

    /// The system's: a seed restarts with each process, and two runs on one data directory
    /// would give their events the same ids.
    public func uniqueId() -> UUID { SystemRandomSource().uuid() }

    public func fork() -> any RandomSource {
        SeededRandomSource(seed: generator.withLock { $0.next() })
    }

    public func int(in range: Range<Int>) -> Int {
        generator.withLock { Int.random(in: range, using: &$0) }
    }
}

/// xoshiro256** (Blackman and Vigna), its state filled from the seed by SplitMix64, as its
/// authors recommend: small, fast, and the same sequence on every platform.
struct Xoshiro256StarStar: RandomNumberGenerator {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    init(seed: UInt64) {
        var splitMix = seed
        func nextSplitMix() -> UInt64 {
            splitMix &+= 0x9E37_79B9_7F4A_7C15
            var value = splitMix
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
        state = (nextSplitMix(), nextSplitMix(), nextSplitMix(), nextSplitMix())
    }

    mutating func next() -> UInt64 {
        let result = rotateLeft(state.1 &* 5, by: 7) &* 9
        let shifted = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= shifted
        state.3 = rotateLeft(state.3, by: 45)
        return result
    }

    private func rotateLeft(_ value: UInt64, by count: UInt64) -> UInt64 {
        (value << count) | (value >> (64 - count))
    }
}
