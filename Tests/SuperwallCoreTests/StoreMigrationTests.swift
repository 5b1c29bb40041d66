import Foundation
import GRDB
import Testing

@testable import SuperwallCore

@Suite struct StoreMigrationTests {
    /// The tables and indexes of `queue`, as SQLite writes them down; SQLite's own and GRDB's
    /// are left out (AUTOINCREMENT, which an early step used, leaves an empty `sqlite_sequence`).
    private func schema(of queue: DatabaseQueue) throws -> [[String?]] {
        try queue.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT type, name, tbl_name, sql FROM sqlite_master
                    WHERE name NOT IN ('sqlite_sequence', 'grdb_migrations')
                    AND name NOT LIKE 'sqlite_autoindex_grdb_migrations%'
                    ORDER BY name
                    """
            )
            .map { row in (0..<4).map { row[$0] as String? } }
        }
    }

    /// A new database gets the schema in one statement; whatever step a database made by an
    /// earlier build had reached, the steps it had not had leave it with the same schema.
    @Test func everyDatabaseEndsWithTheSchemaANewOneGetsInOneStep() throws {
        let new = try DatabaseQueue()
        try Store.migrator.migrate(new)
        let expected = try schema(of: new)
        #expect(expected.count == 10, "five tables, three indexes and two tables' own")
        let fromTheSchemaStep = Store.steps.drop { $0.identifier != Store.schemaStep }.map(\.identifier)
        #expect(fromTheSchemaStep.first == Store.schemaStep)
        #expect(try new.read { try Store.migrator.appliedMigrations($0) } == fromTheSchemaStep)

        for step in Store.steps {
            let earlier = try DatabaseQueue()
            try Store.stepwiseMigrator(through: step.identifier).migrate(earlier)
            try Store.migrator.migrate(earlier)
            #expect(try schema(of: earlier) == expected, "a database at \(step.identifier)")
            #expect(try earlier.read { try Store.migrator.hasCompletedMigrations($0) })
        }
    }

    /// What an earlier build kept is kept through the steps it had not had.
    @Test func rowsOfADatabaseAtTheFirstStepSurviveTheRest() throws {
        let earlier = try DatabaseQueue()
        try Store.stepwiseMigrator(through: "v1").migrate(earlier)
        try earlier.write { db in
            try db.execute(
                sql: "INSERT INTO placement (name, createdAtMs, params) VALUES ('app_open', 1000, '{}')"
            )
        }
        try Store.migrator.migrate(earlier)
        let rows = try earlier.read { db in
            try Row.fetchAll(db, sql: "SELECT name, createdAtMs, queued, forgotten FROM placement")
        }
        #expect(rows.count == 1)
        #expect(rows.first?["name"] as String? == "app_open")
        #expect(rows.first?["queued"] as Int? == 0)
    }
}
