/// A small deterministic generator (SplitMix64), so a failing case can be replayed.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension SeededGenerator {
    /// `bytes` with one random edit: a byte deleted, a byte doubled, or a byte replaced by one
    /// of `replacements`. The fuzz tests of JSON text use it.
    public mutating func mutatingOnce(_ bytes: [UInt8], replacingWith replacements: [UInt8]) -> [UInt8] {
        var mutated = bytes
        let position = Int.random(in: 0..<mutated.count, using: &self)
        switch Int.random(in: 0..<3, using: &self) {
        case 0: mutated.remove(at: position)
        case 1: mutated.insert(mutated[position], at: position)
        default: mutated[position] = replacements.randomElement(using: &self)!
        }
        return mutated
    }
}
