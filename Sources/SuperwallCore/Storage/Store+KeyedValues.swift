import Foundation
import GRDB
import GRDBSQLite

/// Keyed values: identity, attributes and settings, each under a key in a scope (a user's reset
/// removes the user's scope in one statement).
extension Store {
    public func value<Value>(_ key: StorageKey<Value>) throws -> Value? {
        try database.read { db in try Self.value(key, in: db) }
    }

    /// `key`'s value as `db` holds it (inside a transaction of the caller's).
    static func value<Value>(_ key: StorageKey<Value>, in db: Database) throws -> Value? {
        guard let data = try Data.fetchOne(db, sql: "SELECT value FROM keyedValue WHERE key = ?", arguments: [key.name])
        else { return nil }
        return try JSONDecoder().decode(Value.self, from: data)
    }

    public func set<Value>(_ value: Value, for key: StorageKey<Value>) throws {
        try changing { try $0.set(value, for: key) }
    }

    public func remove<Value>(_ key: StorageKey<Value>) throws {
        try changing { try $0.remove(key) }
    }

    /// Changes that reach the disk together: after a crash at any moment, the database holds
    /// all of them or none (switching users is one of these).
    public final class Changes {
        let db: Database
        var resetsUser = false

        init(_ db: Database) { self.db = db }

        public func set<Value>(_ value: Value, for key: StorageKey<Value>) throws {
            try db.execute(
                sql:
                    "INSERT INTO keyedValue (key, scope, value) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [key.name, key.scope.rawValue, try JSONEncoder().encode(value)]
            )
        }

        public func remove<Value>(_ key: StorageKey<Value>) throws {
            try remove(named: key.name)
        }

        func remove(named name: String) throws {
            try db.execute(sql: "DELETE FROM keyedValue WHERE key = ?", arguments: [name])
        }

        /// What SuperwallKit's storage reset does: the user's values, assignments and
        /// occurrences go, and the placement log keeps only the install's own history
        /// (`app_install`, `app_launch`).
        public func resetUser() throws {
            try db.execute(
                sql: "DELETE FROM keyedValue WHERE scope = ?",
                arguments: [StorageKey<Bool>.Scope.user.rawValue]
            )
            try db.execute(sql: "DELETE FROM userAttribute")
            // Before the last forgotten row, every row left is install history: the rows since
            // it are all a reset has to mark.
            try db.execute(
                sql: """
                    UPDATE placement SET forgotten = 1
                    WHERE id > (SELECT COALESCE(MAX(id), 0) FROM placement WHERE forgotten = 1)
                    AND forgotten = 0 AND name NOT IN \(Store.installHistorySQL)
                    """
            )
            try Store.pruneForgottenPlacements(in: db)
            try db.execute(sql: "DELETE FROM occurrence")
            try db.execute(sql: "DELETE FROM assignment")
            resetsUser = true
        }

        /// Replaces every stored assignment with `assignments`.
        public func replaceAssignments(with assignments: [Assignment]) throws {
            try db.execute(sql: "DELETE FROM assignment")
            try Store.upsert(assignments, in: db)
        }
    }

    /// Makes `body`'s changes in one transaction (see `Changes`).
    public func changing(_ body: (Changes) throws -> Void) throws {
        let resetsUser = try write { db in
            let changes = Changes(db)
            try body(changes)
            return changes.resetsUser
        }
        if resetsUser { log.timeline.withLock { $0.keepOnly(Self.installHistory) } }
    }

    /// Deletes the rows a reset forgot that the event queue is done with (sent, or never to
    /// be): no rule reads them again and nothing will send them. The newest row stays, so that
    /// SQLite never hands its id out again behind the queue's position.
    static func pruneForgottenPlacements(in db: Database) throws {
        let position = (try? value(.eventQueuePosition, in: db)) ?? 0
        // Each by its own index: the forgotten rows up to the position, and those never to be
        // sent, not every forgotten row still waiting to go out.
        try db.execute(
            sql: """
                DELETE FROM placement WHERE id IN (
                    SELECT id FROM placement INDEXED BY placementForgotten WHERE forgotten = 1 AND id <= ?
                    UNION ALL
                    SELECT id FROM placement INDEXED BY placementForgottenUnqueued WHERE forgotten = 1 AND queued = 0
                ) AND id < (SELECT MAX(id) FROM placement)
                """,
            arguments: [position]
        )
    }

    /// Prunes what the queue has sent since the last reset forgot it (see
    /// `pruneForgottenPlacements(in:)`).
    public func pruneForgottenPlacements() throws {
        try changing { try Store.pruneForgottenPlacements(in: $0.db) }
    }

    /// The placement log's rows a reset keeps.
    static let installHistory: Set<String> = ["app_install", "app_launch"]
    static let installHistorySQL = "('app_install', 'app_launch')"

    /// What SuperwallKit's storage reset does: the user's values, assignments and occurrences
    /// go, and the placement log keeps only the install's own history (`app_install`,
    /// `app_launch`).
    public func resetUser() throws {
        try changing { try $0.resetUser() }
    }
}
