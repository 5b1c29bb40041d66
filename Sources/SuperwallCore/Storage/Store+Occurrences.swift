import Foundation
import GRDB

/// Occurrences: what audiences' occurrence limits count.
extension Store {
    public func recordOccurrence(key: String, at time: Date) throws {
        try write { db in
            try db.execute(
                sql: "INSERT INTO occurrence (key, createdAtMs) VALUES (?, ?)",
                arguments: [key, time.timeIntervalSince1970 * 1000]
            )
        }
    }

    /// How many occurrences of an audience's limit fall in its interval before `now`; none when
    /// the store cannot say (a limit then does not hold the user back).
    func count(of occurrence: Occurrence, before now: Date) -> Int {
        let since: Date?
        switch occurrence.interval {
        case .minutes(let minutes): since = now.addingTimeInterval(-Double(minutes) * 60)
        case .infinity: since = nil
        }
        return (try? occurrenceCount(key: occurrence.key, since: since)) ?? 0
    }

    /// How many occurrences of `key` were recorded since `since` (ever, when nil).
    public func occurrenceCount(key: String, since: Date?) throws -> Int {
        try database.read { db in
            try Int.fetchOne(
                db,
                sql: "SELECT COUNT(*) FROM occurrence WHERE key = ? AND createdAtMs >= ?",
                arguments: [key, (since?.timeIntervalSince1970 ?? -.infinity) * 1000]
            ) ?? 0
        }
    }
}
