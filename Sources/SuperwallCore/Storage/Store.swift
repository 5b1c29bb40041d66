import Foundation
import GRDB

/// Everything the core persists, in one SQLite database (WAL) per data directory.
///
/// Keyed values (identity, attributes, the last config, ...) live in one table with a scope,
/// so that `reset()` is one statement; the placement log is a table of its own, because
/// audience rules query it by name and time.
public final class Store: Sendable {
    private let database: any DatabaseWriter

    /// Opens (creating and migrating as needed) the database file at `path`.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        database = try DatabasePool(path: path, configuration: configuration)
        try Self.migrator.migrate(database)
    }

    /// A private database in memory, for tests and throwaway sessions.
    public init() throws {
        database = try DatabaseQueue()
        try Self.migrator.migrate(database)
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "keyedValue") { table in
                table.primaryKey("key", .text)
                table.column("scope", .text).notNull()
                table.column("value", .blob).notNull()
            }
            try db.create(table: "placement") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("name", .text).notNull()
                table.column("createdAtMs", .double).notNull()
                table.column("params", .blob).notNull()
            }
            try db.create(index: "placementByNameAndTime", on: "placement", columns: ["name", "createdAtMs"])
        }
        migrator.registerMigration("v2: occurrences and assignments") { db in
            // An audience's occurrence limit counts these rows by key within its interval.
            try db.create(table: "occurrence") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("key", .text).notNull()
                table.column("createdAtMs", .double).notNull()
            }
            try db.create(index: "occurrenceByKeyAndTime", on: "occurrence", columns: ["key", "createdAtMs"])
            // The user's sticky variant per experiment (SuperwallKit `confirmedAssignments`).
            try db.create(table: "assignment") { table in
                table.primaryKey("experimentId", .text)
                table.column("variantId", .text).notNull()
                table.column("variantKind", .text).notNull()
                table.column("paywallIdentifier", .text)
                table.column("isSentToServer", .boolean).notNull().defaults(to: false)
            }
        }
        return migrator
    }

    // MARK: Keyed values

    public func value<Value>(_ key: StorageKey<Value>) throws -> Value? {
        let data = try database.read { db in
            try Data.fetchOne(db, sql: "SELECT value FROM keyedValue WHERE key = ?", arguments: [key.name])
        }
        guard let data else { return nil }
        return try JSONDecoder().decode(Value.self, from: data)
    }

    public func set<Value>(_ value: Value, for key: StorageKey<Value>) throws {
        let data = try JSONEncoder().encode(value)
        try database.write { db in
            try db.execute(
                sql: "INSERT INTO keyedValue (key, scope, value) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [key.name, key.scope.rawValue, data])
        }
    }

    public func remove<Value>(_ key: StorageKey<Value>) throws {
        try database.write { db in
            try db.execute(sql: "DELETE FROM keyedValue WHERE key = ?", arguments: [key.name])
        }
    }

    // MARK: Placement log

    /// Records that a placement (or event) happened, for `*Since` and `placementsIn*` rules.
    /// One statement, so it commits on its own; prepared once per connection.
    public func logPlacement(_ name: String, at time: Date, params: [String: JSON]) throws {
        let data = Data(JSON.object(params).jsonText.utf8)
        try database.writeWithoutTransaction { db in
            try db.cachedStatement(sql: "INSERT INTO placement (name, createdAtMs, params) VALUES (?, ?, ?)")
                .execute(arguments: [name, time.timeIntervalSince1970 * 1000, data])
        }
    }

    /// When `name` last happened at or before `time`.
    public func lastPlacement(named name: String, before time: Date) throws -> Date? {
        try database.read { db in
            try Double.fetchOne(
                db, sql: "SELECT MAX(createdAtMs) FROM placement WHERE name = ? AND createdAtMs <= ?",
                arguments: [name, time.timeIntervalSince1970 * 1000])
        }.map { Date(timeIntervalSince1970: $0 / 1000) }
    }

    /// How often `name` happened in `[since, until]`; all of its history when `since` is nil.
    public func placementCount(named name: String, since: Date?, until: Date) throws -> Int {
        try database.read { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM placement WHERE name = ? AND createdAtMs >= ? AND createdAtMs <= ?",
                arguments: [name, (since?.timeIntervalSince1970 ?? -.infinity) * 1000, until.timeIntervalSince1970 * 1000]) ?? 0
        }
    }

    /// The names logged, oldest first (for tests and diagnostics).
    public func placementNames() throws -> [String] {
        try database.read { db in try String.fetchAll(db, sql: "SELECT name FROM placement ORDER BY id") }
    }

    // MARK: Occurrences

    public func recordOccurrence(key: String, at time: Date) throws {
        try database.write { db in
            try db.execute(sql: "INSERT INTO occurrence (key, createdAtMs) VALUES (?, ?)", arguments: [key, time.timeIntervalSince1970 * 1000])
        }
    }

    /// How many occurrences of `key` were recorded since `since` (ever, when nil).
    public func occurrenceCount(key: String, since: Date?) throws -> Int {
        try database.read { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM occurrence WHERE key = ? AND createdAtMs >= ?",
                arguments: [key, (since?.timeIntervalSince1970 ?? -.infinity) * 1000]) ?? 0
        }
    }

    // MARK: Assignments

    /// One experiment's variant for this user, and whether the server has been told.
    public struct Assignment: Sendable, Equatable {
        public var experimentId: String
        public var variant: Variant
        public var isSentToServer: Bool

        public init(experimentId: String, variant: Variant, isSentToServer: Bool) {
            self.experimentId = experimentId
            self.variant = variant
            self.isSentToServer = isSentToServer
        }
    }

    public func save(_ assignment: Assignment) throws {
        try database.write { db in try Self.upsert(assignment, in: db) }
    }

    /// Replaces every stored assignment with `assignments`, in one transaction.
    public func replaceAssignments(with assignments: [Assignment]) throws {
        try database.write { db in
            try db.execute(sql: "DELETE FROM assignment")
            for assignment in assignments { try Self.upsert(assignment, in: db) }
        }
    }

    private static func upsert(_ assignment: Assignment, in db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO assignment (experimentId, variantId, variantKind, paywallIdentifier, isSentToServer) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(experimentId) DO UPDATE SET variantId = excluded.variantId, variantKind = excluded.variantKind,
            paywallIdentifier = excluded.paywallIdentifier, isSentToServer = excluded.isSentToServer
            """).execute(arguments: [assignment.experimentId, assignment.variant.id, assignment.variant.kind.rawValue,
                                     assignment.variant.paywallIdentifier, assignment.isSentToServer])
    }

    public func assignments() throws -> [Assignment] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM assignment ORDER BY experimentId").map { row in
                Assignment(
                    experimentId: row["experimentId"],
                    variant: Variant(id: row["variantId"], kind: Variant.Kind(rawValue: row["variantKind"]) ?? .treatment,
                                     percentage: 0, paywallIdentifier: row["paywallIdentifier"]),
                    isSentToServer: row["isSentToServer"])
            }
        }
    }

    // MARK: Reset

    /// What SuperwallKit's storage reset does: the user's values, assignments and occurrences
    /// go, and the placement log keeps only the install's own history (`app_install`,
    /// `app_launch`).
    public func resetUser() throws {
        try database.write { db in
            try db.execute(sql: "DELETE FROM keyedValue WHERE scope = ?", arguments: [StorageKey<Bool>.Scope.user.rawValue])
            try db.execute(sql: "DELETE FROM placement WHERE name NOT IN ('app_install', 'app_launch')")
            try db.execute(sql: "DELETE FROM occurrence")
            try db.execute(sql: "DELETE FROM assignment")
        }
    }
}
