/// The known name a mistyped one was most likely meant to be, for "did you mean …?" messages.
public enum NearestName {
    /// The name of `names` fewest edits from `typed` (letters changed, added or removed, case
    /// aside), if it is near enough to be a typo: at most two edits, and fewer than half the
    /// name's length. The first of equally near names wins.
    public static func among(_ names: some Sequence<String>, to typed: String) -> String? {
        let typedLetters = Array(typed.lowercased().utf8)
        guard typedLetters.count < 128 else { return nil }
        var best: (name: String, distance: Int)?
        for name in names {
            let letters = Array(name.lowercased().utf8)
            let limit = min(2, (letters.count - 1) / 2)
            guard abs(letters.count - typedLetters.count) <= limit, letters.count < 128 else { continue }
            let distance = editDistance(typedLetters, letters)
            if distance <= limit, distance < (best?.distance ?? .max) { best = (name, distance) }
        }
        return best?.name
    }

    /// Levenshtein distance, one row at a time.
    private static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            current.reserveCapacity(b.count + 1)
            for (j, y) in b.enumerated() {
                current.append(Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
