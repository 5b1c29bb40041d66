import Foundation
import GRDB
import JSONText

/// The outgoing event queue: the placement log's queued rows, in order.
extension Store {
    /// An event row as the collector takes it: `{event_id, event_name, parameters, created_at}`.
    public struct OutgoingEvent: Sendable, Equatable {
        /// Its place in the queue.
        public var position: Int64
        /// The row's JSON text, UTF-8.
        public var text: [UInt8]
    }

    /// Up to `limit` queued events after `position`, oldest first. Accepted rows are committed
    /// first, so nothing accepted is passed over.
    public func outgoingEvents(after position: Int64, limit: Int) throws -> [OutgoingEvent] {
        try transferPendingWrites()
        return try database.read { db in
            // Read by column index, through a cursor, and the params without a copy of their
            // own: every event sent goes through here.
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT id, eventId, name, createdAtMs, params FROM placement
                    WHERE id > ? AND queued = 1 ORDER BY id LIMIT ?
                    """,
                arguments: [position, limit]
            )
            var events: [OutgoingEvent] = []
            while let row = try rows.next() {
                let name: String = row[2]
                let eventId = try row.withUnsafeData(atIndex: 1) { $0.map(Self.uuidText) } ?? ""
                let createdAt = ISO8601.string(from: Date(timeIntervalSince1970: (row[3] as Double) / 1000))
                // Assembled as bytes, with no string between: `parameters` holds every user
                // attribute in a `user_attributes` event, a megabyte near their bound.
                let json = try row.withUnsafeData(atIndex: 4) { params in
                    var json: [UInt8] = []
                    json.reserveCapacity((params?.count ?? 4) + 160)
                    json.append(contentsOf: #"{"event_id":"#.utf8)
                    JSONStringWriting.appendQuoted(eventId, to: &json)
                    json.append(contentsOf: #","event_name":"#.utf8)
                    JSONStringWriting.appendQuoted(name, to: &json)
                    json.append(contentsOf: #","parameters":"#.utf8)
                    json.append(contentsOf: params ?? Data("null".utf8))
                    json.append(contentsOf: #","created_at":"#.utf8)
                    JSONStringWriting.appendQuoted(createdAt, to: &json)
                    json.append(UInt8(ascii: "}"))
                    return json
                }
                events.append(OutgoingEvent(position: row[0], text: json))
            }
            return events
        }
    }

    /// The text of a UUID's 16 bytes, as SuperwallKit sends `event_id` (`uuidString`).
    static func uuidText(_ bytes: Data) -> String {
        guard bytes.count == 16 else { return "" }
        var tuple = UUID.nilBytes
        withUnsafeMutableBytes(of: &tuple) { $0.copyBytes(from: bytes) }
        return UUID(uuid: tuple).text
    }

    /// How many queued events wait after `position`: those in SQLite, and those accepted and
    /// not yet moved there, which come after every row in it. Counted without moving them:
    /// the queue's bound check counts every `EventQueue.boundCheckInterval` events, and moving
    /// the backlog there did the idle worker's work at the calls' priority. Both are counted
    /// inside one read, which no transfer can overlap (rows leave the log inside the write
    /// that inserts them).
    public func outgoingEventCount(after position: Int64) throws -> Int {
        try database.read { db in
            let committed =
                try Int.fetchOne(
                    db,
                    sql: "SELECT COUNT(*) FROM placement WHERE id > ? AND queued = 1",
                    arguments: [position]
                ) ?? 0
            return committed + log.queuedUnwrittenCount
        }
    }

    /// The position of the `count`th queued event after `position`, if so many wait.
    public func outgoingPosition(after position: Int64, skipping count: Int) throws -> Int64? {
        try transferPendingWrites()
        return try database.read { db in
            try Int64.fetchOne(
                db,
                sql: "SELECT id FROM placement WHERE id > ? AND queued = 1 ORDER BY id LIMIT 1 OFFSET ?",
                arguments: [position, count - 1]
            )
        }
    }

    /// The position that leaves the newest `count` queued events after it.
    /// Accepted rows are committed first: only a queue past its bound asks.
    public func outgoingPosition(keepingNewest count: Int) throws -> Int64? {
        try transferPendingWrites()
        return try database.read { db in
            try Int64.fetchOne(
                db,
                sql: "SELECT id FROM placement WHERE queued = 1 ORDER BY id DESC LIMIT 1 OFFSET ?",
                arguments: [count]
            )
        }
    }
}
