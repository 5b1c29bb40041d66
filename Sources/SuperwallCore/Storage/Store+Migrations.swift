import Foundation
import GRDB

/// The schema, one step per change. A database new to the bridge gets the schema the steps
/// leave in one statement (`schema`); one an earlier build made gets the steps it has not had,
/// in order. GRDB's merged migration makes that choice: it is told which of the steps it merges
/// the database has had. Run step by step, a new database's migrations were a third of a first
/// `configure`'s instructions, paid by every test that opens a fresh data directory.
///
/// A change of schema is a new step at the end of `steps`: it runs after the merged ones, on
/// new databases too (`schema` stays what the steps through `schemaStep` leave).
extension Store {
    static var migrator: DatabaseMigrator {
        // No table has a foreign key: the checks GRDB defers to each migration's end find nothing.
        var migrator = DatabaseMigrator().disablingDeferredForeignKeyChecks()
        let mergedCount = (steps.firstIndex { $0.identifier == schemaStep } ?? steps.count - 1) + 1
        let (earlier, last) = (steps[..<(mergedCount - 1)], steps[mergedCount - 1])
        migrator.registerMigration(last.identifier, merging: Set(earlier.map(\.identifier))) { db, applied in
            guard !applied.isEmpty else { return try db.execute(sql: schema) }
            for step in earlier where !applied.contains(step.identifier) { try step.migrate(db) }
            try last.migrate(db)
        }
        for step in steps[mergedCount...] { migrator.registerMigration(step.identifier, migrate: step.migrate) }
        return migrator
    }

    /// The last step `schema` includes.
    static let schemaStep = "v8: user attributes a row each"

    /// The migrator of a build whose last step was `identifier`, one migration a step: how
    /// databases made before the steps were merged were migrated (tests make them with it).
    static func stepwiseMigrator(through identifier: String) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for step in steps {
            migrator.registerMigration(step.identifier, migrate: step.migrate)
            if step.identifier == identifier { break }
        }
        return migrator
    }

    /// A new database's tables and indexes: what the steps through `schemaStep` leave, as
    /// SQLite writes them down.
    static let schema = """
        CREATE TABLE "keyedValue" ("key" TEXT PRIMARY KEY NOT NULL, "scope" TEXT NOT NULL, "value" BLOB NOT NULL);
        CREATE TABLE "assignment" ("experimentId" TEXT PRIMARY KEY NOT NULL, "variantId" TEXT NOT NULL, "variantKind" TEXT NOT NULL, "paywallIdentifier" TEXT, "isSentToServer" BOOLEAN NOT NULL DEFAULT 0);
        CREATE TABLE "placement" (id INTEGER PRIMARY KEY, name TEXT NOT NULL, createdAtMs DOUBLE NOT NULL, params BLOB NOT NULL, eventId TEXT, queued INTEGER NOT NULL DEFAULT 0, forgotten INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE "occurrence" (id INTEGER PRIMARY KEY, key TEXT NOT NULL, createdAtMs DOUBLE NOT NULL);
        CREATE INDEX occurrenceByKeyAndTime ON occurrence (key, createdAtMs);
        CREATE INDEX placementForgotten ON placement (id) WHERE forgotten = 1;
        CREATE INDEX placementForgottenUnqueued ON placement (id) WHERE forgotten = 1 AND queued = 0;
        CREATE TABLE userAttribute (key TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
        """

    /// One change of the schema, as a migration of its own.
    struct MigrationStep: Sendable {
        let identifier: String
        let migrate: @Sendable (Database) throws -> Void

        init(_ identifier: String, _ migrate: @escaping @Sendable (Database) throws -> Void) {
            self.identifier = identifier
            self.migrate = migrate
        }
    }

    static let steps: [MigrationStep] = [
        MigrationStep("v1") { db in
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
        },
        MigrationStep("v2: occurrences and assignments") { db in
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
        },
        MigrationStep("v3: logs without AUTOINCREMENT") { db in
            // AUTOINCREMENT's counter is one more page written by every commit; the rowid alone
            // is increasing as the logs need (rows are only deleted by a reset).
            try db.execute(
                sql: """
                    CREATE TABLE placement_v3 (id INTEGER PRIMARY KEY, name TEXT NOT NULL, createdAtMs DOUBLE NOT NULL, params BLOB NOT NULL);
                    INSERT INTO placement_v3 SELECT id, name, createdAtMs, params FROM placement;
                    DROP TABLE placement;
                    ALTER TABLE placement_v3 RENAME TO placement;
                    CREATE INDEX placementByNameAndTime ON placement (name, createdAtMs);
                    CREATE TABLE occurrence_v3 (id INTEGER PRIMARY KEY, key TEXT NOT NULL, createdAtMs DOUBLE NOT NULL);
                    INSERT INTO occurrence_v3 SELECT id, key, createdAtMs FROM occurrence;
                    DROP TABLE occurrence;
                    ALTER TABLE occurrence_v3 RENAME TO occurrence;
                    CREATE INDEX occurrenceByKeyAndTime ON occurrence (key, createdAtMs);
                    """
            )
        },
        MigrationStep("v4: the placement log's times in memory") { db in
            // `PlacementTimeline` answers by name and time; the index only cost writes.
            try db.execute(sql: "DROP INDEX placementByNameAndTime")
        },
        MigrationStep("v5: the placement log is the outgoing event queue") { db in
            // Events go out in id order from a persisted cursor, so the log is append-only: a
            // reset marks rows forgotten instead of deleting them (a deleted last row would let
            // SQLite hand its id out again, behind the cursor).
            try db.execute(
                sql: """
                    ALTER TABLE placement ADD COLUMN eventId TEXT;
                    ALTER TABLE placement ADD COLUMN queued INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE placement ADD COLUMN forgotten INTEGER NOT NULL DEFAULT 0;
                    """
            )
        },
        MigrationStep("v6: the cached config as its bytes") { db in
            // It was a JSON string holding the config's text; `document(_:)` reads the text
            // itself, a chunk at a time.
            try db.execute(
                sql: """
                    UPDATE keyedValue SET value = CAST(json_extract(CAST(value AS TEXT), '$') AS BLOB)
                    WHERE key = 'lastConfig' AND json_valid(CAST(value AS TEXT)) AND json_type(CAST(value AS TEXT)) = 'text'
                    """
            )
        },
        MigrationStep("v7: forgotten placements indexed") { db in
            // A reset marks only the rows since the last one, and the rows no rule reads again
            // are pruned, each by this index instead of a scan of the whole log.
            try db.execute(
                sql: """
                    CREATE INDEX placementForgotten ON placement (id) WHERE forgotten = 1;
                    CREATE INDEX placementForgottenUnqueued ON placement (id) WHERE forgotten = 1 AND queued = 0;
                    """
            )
        },
        MigrationStep("v8: user attributes a row each") { db in
            try db.execute(sql: "CREATE TABLE userAttribute (key TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID")
            if let whole = try Data.fetchOne(db, sql: "SELECT value FROM keyedValue WHERE key = 'userAttributes'") {
                try Changes(db).setUserAttributes(
                    try JSONDecoder().decode([String: JSON].self, from: whole),
                    replacing: [:]
                )
                try db.execute(sql: "DELETE FROM keyedValue WHERE key = 'userAttributes'")
            }
        },
    ]
}
