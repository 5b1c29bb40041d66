import Foundation
import GRDB
import GRDBSQLite

#if canImport(Glibc)
import Glibc
#endif

/// Documents: values stored as their bytes (the cached config).
///
/// A store on disk keeps each in a file of its own beside the database
/// (`superwall.sqlite-lastConfig`), private to its owner, never opened through a link, and
/// replaced whole by a rename: through SQLite, a config of megabytes would go into the
/// write-ahead log, then into the database again at the next checkpoint, with a checksum of
/// every page (Benchmarks/README, `configure`). A document that an earlier version kept in
/// SQLite is read from there until it is next written. A store in memory keeps its documents
/// in SQLite.
extension Store {
    public func setDocument(_ bytes: Data, for key: DocumentKey) throws {
        guard let file = documentFile(for: key) else { return try setStoredDocument(bytes, for: key) }
        guard !isClosed.load(ordering: .acquiring) else { throw StoreFault.closed }
        let written = file + ".new"
        let descriptor = try PrivateFile.open(written, O_WRONLY | O_CREAT | O_TRUNC)
        do {
            defer { Glibc.close(descriptor) }
            try bytes.withUnsafeBytes { raw in try PrivateFile.write(raw, to: descriptor, path: written) }
        }
        guard rename(written, file) == 0 else {
            throw PrivateFile.OpenError(path: file, reason: String(cString: strerror(errno)))
        }
        if try database.read({ db in try Self.documentRow(key, in: db) }) != nil {
            try changing { try $0.remove(named: key.name) }
        }
    }

    /// The bytes stored under `key`, or nil.
    public func document(_ key: DocumentKey) throws -> Data? {
        guard let file = documentFile(for: key) else { return try storedDocument(key) }
        guard !isClosed.load(ordering: .acquiring) else { throw StoreFault.closed }
        let descriptor: Int32
        do {
            descriptor = try PrivateFile.open(file, O_RDONLY)
        } catch let error as PrivateFile.OpenError where error.code == ENOENT {
            return try storedDocument(key)
        }
        defer { Glibc.close(descriptor) }
        return try PrivateFile.readAll(descriptor, path: file)
    }

    /// Forgets the document under `key`, wherever it is kept.
    public func remove(_ key: DocumentKey) throws {
        if let file = documentFile(for: key) {
            guard !isClosed.load(ordering: .acquiring) else { throw StoreFault.closed }
            if unlink(file) != 0, errno != ENOENT {
                throw PrivateFile.OpenError(path: file, reason: String(cString: strerror(errno)))
            }
        }
        try changing { try $0.remove(named: key.name) }
    }

    /// The last config fetched, decoded as `platform` reads it; nil when there is none or it
    /// no longer decodes.
    func cachedConfig(for platform: ReferenceSDK) -> Config? {
        ((try? document(.lastConfig)) ?? nil).flatMap { try? Config.decode(from: $0, for: platform) }
    }

    /// The path of `key`'s document; nil for a store in memory.
    func documentFile(for key: DocumentKey) -> String? {
        documentsPrefix.map { "\($0)-\(key.name)" }
    }

    /// Stores `bytes` in SQLite, written a chunk at a time (incremental blob I/O): binding a
    /// multi-megabyte document would copy it whole, twice, into SQLite's memory.
    private func setStoredDocument(_ bytes: Data, for key: DocumentKey) throws {
        try write { db in
            try db.execute(
                sql:
                    "INSERT INTO keyedValue (key, scope, value) VALUES (?, ?, zeroblob(?)) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [key.name, key.scope.rawValue, bytes.count]
            )
            guard let row = try Self.documentRow(key, in: db) else { return }
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

    /// The row SQLite keeps `key`'s document in, if it keeps one.
    private static func documentRow(_ key: DocumentKey, in db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT rowid FROM keyedValue WHERE key = ?", arguments: [key.name])
    }

    /// The bytes SQLite holds under `key`, read straight into the answer.
    private func storedDocument(_ key: DocumentKey) throws -> Data? {
        try database.read { db in
            guard let row = try Self.documentRow(key, in: db) else { return nil }
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
