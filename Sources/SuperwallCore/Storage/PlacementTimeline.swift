/// When each placement happened, by name, in memory: what audience rules ask of the placement
/// log (`*Since`, `placementsIn*`), answered by binary search.
///
/// The log's table keeps the rows; this keeps their times. An SQLite index would answer the
/// same questions, but each commit would then write one index page per distinct name logged
/// (a `register` logs three), which was most of a commit's cost.
struct PlacementTimeline {
    /// Milliseconds since 1970, ascending, per name.
    private var times: [String: [Double]] = [:]

    mutating func insert(_ name: String, atMs time: Double) {
        guard let last = times[name]?.last, last > time else {
            times[name, default: []].append(time)
            return
        }
        // A clock that went back: keep the order.
        times[name]!.insert(time, at: Self.firstIndex(in: times[name]!, after: time))
    }

    /// The latest time of `name` at or before `limit`.
    func last(named name: String, atOrBefore limit: Double) -> Double? {
        guard let list = times[name] else { return nil }
        let end = Self.firstIndex(in: list, after: limit)
        return end == 0 ? nil : list[end - 1]
    }

    /// How many times `name` happened in `[from, to]`.
    func count(named name: String, from: Double, to: Double) -> Int {
        guard let list = times[name], from <= to else { return 0 }
        return Self.firstIndex(in: list, after: to) - Self.firstIndex(in: list, notBefore: from)
    }

    /// Forgets every name but `kept`.
    mutating func keepOnly(_ kept: Set<String>) {
        times = times.filter { kept.contains($0.key) }
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
