/// When each placement happened, by name, in memory: what audience rules ask of the placement
/// log (`*Since`, `placementsIn*`), answered by binary search.
///
/// The log's table keeps the rows; this keeps their times. An SQLite index would answer the
/// same questions, but each commit would then write one index page per distinct name logged
/// (a `register` logs three), which was most of a commit's cost.
///
/// Memory stays bounded however many events a process tracks: each name keeps its latest
/// `exactCapacity` to `2 × exactCapacity` times exactly, and folds older ones into one bucket a
/// second (count, first and last time). Answers are exact unless a window's edge falls inside
/// a folded second of a name with thousands of newer events; such a second counts wholly on
/// the side of its first event.
struct PlacementTimeline {
    static let exactCapacity = 4096

    /// One second's worth of folded times of a name.
    private struct Bucket {
        var second: Double
        var count: Int
        var firstMs: Double
        var lastMs: Double
        /// The folded times of this bucket and every earlier one.
        var cumulativeCount: Int
    }

    /// Folded times of a name, by ascending second (so by ascending `firstMs` too).
    private struct Folded {
        var buckets: [Bucket] = []

        /// Adds times that are older than any exact one.
        mutating func fold(_ folding: ArraySlice<Double>) {
            for time in folding {
                let second = (time / 1000).rounded(.down)
                if let last = buckets.last, last.second == second {
                    buckets[buckets.count - 1].count += 1
                    buckets[buckets.count - 1].firstMs = min(last.firstMs, time)
                    buckets[buckets.count - 1].lastMs = max(last.lastMs, time)
                    buckets[buckets.count - 1].cumulativeCount += 1
                } else if buckets.last.map({ $0.second < second }) ?? true {
                    buckets.append(
                        Bucket(
                            second: second,
                            count: 1,
                            firstMs: time,
                            lastMs: time,
                            cumulativeCount: (buckets.last?.cumulativeCount ?? 0) + 1
                        )
                    )
                } else {
                    foldOutOfOrder(time, second: second)
                }
            }
        }

        /// A time older than the newest bucket (the clock went back): found by search, and the
        /// running counts after it redone.
        private mutating func foldOutOfOrder(_ time: Double, second: Double) {
            let position = buckets.firstIndex { $0.second >= second } ?? buckets.endIndex
            if position < buckets.count, buckets[position].second == second {
                buckets[position].count += 1
                buckets[position].firstMs = min(buckets[position].firstMs, time)
                buckets[position].lastMs = max(buckets[position].lastMs, time)
            } else {
                buckets.insert(
                    Bucket(second: second, count: 1, firstMs: time, lastMs: time, cumulativeCount: 0),
                    at: position
                )
            }
            var running = position > 0 ? buckets[position - 1].cumulativeCount : 0
            for index in position..<buckets.count {
                running += buckets[index].count
                buckets[index].cumulativeCount = running
            }
        }

        /// The first bucket whose `firstMs` passes `test`, which holds for a suffix.
        func first(where test: (Double) -> Bool) -> Int {
            var (low, high) = (0, buckets.count)
            while low < high {
                let middle = (low + high) / 2
                if test(buckets[middle].firstMs) { high = middle } else { low = middle + 1 }
            }
            return low
        }
    }

    /// Milliseconds since 1970, ascending, per name: the exact times.
    private var times: [String: [Double]] = [:]
    /// The folded ones, for the names that have any.
    private var folded: [String: Folded] = [:]

    /// One lookup of the name: every tracked event inserts here.
    mutating func insert(_ name: String, atMs time: Double) {
        guard let index = times.index(forKey: name) else {
            times[name] = [time]
            return
        }
        guard let last = times.values[index].last, last > time else {
            times.values[index].append(time)
            if times.values[index].count >= 2 * Self.exactCapacity { fold(name) }
            return
        }
        // A clock that went back: keep the order.
        times.values[index].insert(time, at: Self.firstIndex(in: times.values[index], after: time))
    }

    /// Moves a name's oldest `exactCapacity` exact times into their seconds' buckets.
    private mutating func fold(_ name: String) {
        guard let exact = times[name] else { return }
        folded[name, default: Folded()].fold(exact.prefix(Self.exactCapacity))
        times[name]!.removeFirst(Self.exactCapacity)
    }

    /// The latest time of `name` at or before `limit`.
    func last(named name: String, atOrBefore limit: Double) -> Double? {
        if let list = times[name] {
            let end = Self.firstIndex(in: list, after: limit)
            if end > 0 { return list[end - 1] }
        }
        guard let older = folded[name] else { return nil }
        let end = older.first { $0 > limit }
        guard end > 0 else { return nil }
        let bucket = older.buckets[end - 1]
        return bucket.lastMs <= limit ? bucket.lastMs : bucket.firstMs
    }

    /// How many times `name` happened in `[from, to]`.
    func count(named name: String, from: Double, to: Double) -> Int {
        guard let list = times[name], from <= to else { return 0 }
        let exact = Self.firstIndex(in: list, after: to) - Self.firstIndex(in: list, notBefore: from)
        guard let older = folded[name] else { return exact }
        let low = older.first { $0 >= from }
        let high = older.first { $0 > to }
        guard high > low else { return exact }
        let before = low > 0 ? older.buckets[low - 1].cumulativeCount : 0
        return exact + older.buckets[high - 1].cumulativeCount - before
    }

    /// How many times are kept, exactly or in buckets (for tests of the bound).
    var storedCount: Int {
        times.values.reduce(0) { $0 + $1.count } + folded.values.reduce(0) { $0 + $1.buckets.count }
    }

    /// Forgets every name but `kept`.
    mutating func keepOnly(_ kept: Set<String>) {
        times = times.filter { kept.contains($0.key) }
        folded = folded.filter { kept.contains($0.key) }
    }

    /// The first index whose time is greater than `time`.
    private static func firstIndex(in list: [Double], after time: Double) -> Int {
        firstIndex(in: list) { $0 > time }
    }

    /// The first index whose time is at least `time`.
    private static func firstIndex(in list: [Double], notBefore time: Double) -> Int {
        firstIndex(in: list) { $0 >= time }
    }

    /// Binary search for the first time that passes `test`, which holds for a suffix of `list`.
    private static func firstIndex(in list: [Double], where test: (Double) -> Bool) -> Int {
        var (low, high) = (0, list.count)
        while low < high {
            let middle = (low + high) / 2
            if test(list[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
