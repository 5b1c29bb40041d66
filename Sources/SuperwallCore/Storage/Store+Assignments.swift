import Foundation
import GRDB
import GRDBSQLite

/// Assignments: each experiment's sticky variant for the user, and whether the server knows it.
extension Store {
    /// One experiment's variant for this user, and whether the server has been told.
    /// How a session came by an assignment.
    public enum AssignmentOrigin: String, Sendable {
        /// Kept from an earlier session.
        case sticky
        /// Drawn on this device by the variants' percentages.
        case drawn
        /// Given by the server's assignments.
        case server
        /// Set by `debug/overrideAssignment`.
        case override
    }

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
        try write { db in try Self.upsert([assignment], in: db) }
    }

    /// Replaces every stored assignment with `assignments`, in one transaction.
    public func replaceAssignments(with assignments: [Assignment]) throws {
        try changing { try $0.replaceAssignments(with: assignments) }
    }

    /// Inserts or replaces each of `assignments` through SQLite's own calls: a `configure`
    /// stores thousands, and GRDB's argument handling costs several times SQLite's own work
    /// per row.
    static func upsert(_ assignments: [Assignment], in db: Database) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO assignment (experimentId, variantId, variantKind, paywallIdentifier, isSentToServer) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(experimentId) DO UPDATE SET variantId = excluded.variantId, variantKind = excluded.variantKind,
                paywallIdentifier = excluded.paywallIdentifier, isSentToServer = excluded.isSentToServer
                """
        ).sqliteStatement
        defer { sqlite3_reset(statement) }
        for assignment in assignments {
            sqlite3_reset(statement)
            var code = bind(assignment.experimentId, at: 1, of: statement)
            if code == SQLITE_OK { code = bind(assignment.variant.id, at: 2, of: statement) }
            if code == SQLITE_OK { code = bind(assignment.variant.kind.rawValue, at: 3, of: statement) }
            if code == SQLITE_OK { code = bind(assignment.variant.paywallIdentifier, at: 4, of: statement) }
            if code == SQLITE_OK { code = sqlite3_bind_int(statement, 5, assignment.isSentToServer ? 1 : 0) }
            if code == SQLITE_OK { code = sqlite3_step(statement) }
            try check(code, is: SQLITE_DONE, in: db)
        }
    }

    /// Binds `text`, or NULL, to parameter `index` of `statement`; SQLite copies the text.
    static func bind(_ text: String?, at index: Int32, of statement: SQLiteStatement) -> Int32 {
        guard let text else { return sqlite3_bind_null(statement, index) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        return text.utf8.withContiguousStorageIfAvailable { bytes in
            sqlite3_bind_text(
                statement,
                index,
                bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                Int32(bytes.count),
                transient
            )
        } ?? sqlite3_bind_text(statement, index, text, -1, transient)
    }

    public func assignments() throws -> [Assignment] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM assignment ORDER BY experimentId").map { row in
                Assignment(
                    experimentId: row["experimentId"],
                    variant: Variant(
                        id: row["variantId"],
                        kind: Variant.Kind(rawValue: row["variantKind"]) ?? .treatment,
                        percentage: 0,
                        paywallIdentifier: row["paywallIdentifier"]
                    ),
                    isSentToServer: row["isSentToServer"]
                )
            }
        }
    }
}
