import GRDB
import GRDBSQLite

/// `BEGIN IMMEDIATE`, `COMMIT` and the placement insert, prepared once on the writer's
/// connection and run with SQLite's own calls, with the journal's mark: a transfer commits
/// every few dozen rows, and GRDB's statement cache and its bookkeeping around each statement
/// would cost thousands of instructions a commit.
/// Used only inside the writer's queue; finalized before the connection closes.
final class CommitStatements: @unchecked Sendable {
    let begin: OpaquePointer
    let commit: OpaquePointer
    let insert: OpaquePointer
    let setTransferred: OpaquePointer

    init(_ db: Database) throws {
        func prepare(_ sql: String) throws -> OpaquePointer {
            var statement: OpaquePointer?
            let code = sqlite3_prepare_v3(
                db.sqliteConnection,
                sql,
                -1,
                UInt32(SQLITE_PREPARE_PERSISTENT),
                &statement,
                nil
            )
            try Store.check(code, in: db)
            guard let statement else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "no statement for \(sql)")
            }
            return statement
        }
        begin = try prepare("BEGIN IMMEDIATE TRANSACTION")
        commit = try prepare("COMMIT TRANSACTION")
        insert = try prepare(
            "INSERT INTO placement (name, createdAtMs, params, eventId, queued) VALUES (?, ?, ?, ?, ?)"
        )
        setTransferred = try prepare(
            """
            INSERT INTO keyedValue (key, scope, value) VALUES ('\(Store.transferredKey)', 'app', ?)
            ON CONFLICT(key) DO UPDATE SET value = excluded.value
            """
        )
    }

    func run(_ statement: OpaquePointer, in db: Database) throws {
        let code = sqlite3_step(statement)
        sqlite3_reset(statement)
        try Store.check(code, is: SQLITE_DONE, in: db)
    }

    func finalize() {
        for statement in [begin, commit, insert, setTransferred] { sqlite3_finalize(statement) }
    }
}
