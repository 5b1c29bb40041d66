import Foundation
import GRDB
import GRDBSQLite

/// Documents: values stored as their bytes (the cached config), read and written a chunk at a time.
extension Store {
    /// Stores `bytes` as they are, written into SQLite a chunk at a time (incremental blob
    /// I/O): binding a multi-megabyte config would copy it whole, twice, into SQLite's memory.
    public func setDocument(_ bytes: Data, for key: DocumentKey) throws {
        try write { db in
            try db.execute(
                sql:
                    "INSERT INTO keyedValue (key, scope, value) VALUES (?, ?, zeroblob(?)) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [key.name, key.scope.rawValue, bytes.count]
            )
            guard
                let row = try Int64.fetchOne(
                    db,
                    sql: "SELECT rowid FROM keyedValue WHERE key = ?",
                    arguments: [key.name]
                )
            else { return }
            try Self.withBlob(of: row, writable: true, in: db) { blob in
                try bytes.withUnsafeBytes { raw in
                    var offset = 0
                    while offset < raw.count {
                        let length = min(Self.documentChunk, raw.count - offset)
                        try Self.check(
                            sqlite3_blob_write(blob, raw.baseAddress! + offset, Int32(length), Int32(offset)),
                            in: db
                        )
                        offset += length
                    }
                }
            }
        }
    }

    /// The bytes stored under `key`, read straight into the answer.
    public func document(_ key: DocumentKey) throws -> Data? {
        try database.read { db in
            guard
                let row = try Int64.fetchOne(
                    db,
                    sql: "SELECT rowid FROM keyedValue WHERE key = ?",
                    arguments: [key.name]
                )
            else { return nil }
            return try Self.withBlob(of: row, writable: false, in: db) { blob in
                var bytes = Data(count: Int(sqlite3_blob_bytes(blob)))
                try bytes.withUnsafeMutableBytes { raw in
                    guard let base = raw.baseAddress else { return }
                    try Self.check(sqlite3_blob_read(blob, base, Int32(raw.count), 0), in: db)
                }
                return bytes
            }
        }
    }

    static let documentChunk = 256 * 1024

    static func withBlob<T>(
        of row: Int64,
        writable: Bool,
        in db: Database,
        _ body: (OpaquePointer) throws -> T
    ) throws -> T {
        // A connection closed by the store's `close()` while this call waited for it.
        guard let connection = db.sqliteConnection else { throw StoreFault.closed }
        var blob: OpaquePointer?
        try check(
            sqlite3_blob_open(connection, "main", "keyedValue", "value", row, writable ? 1 : 0, &blob),
            in: db
        )
        defer { sqlite3_blob_close(blob) }
        return try body(blob!)
    }

    /// Throws SQLite's error unless its own API answered `expected`.
    static func check(_ code: Int32, is expected: Int32 = SQLITE_OK, in db: Database) throws {
        guard code == expected else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code),
                message: String(cString: sqlite3_errmsg(db.sqliteConnection))
            )
        }
    }
}
