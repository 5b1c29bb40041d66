import Foundation
import GRDB
import TestSupport
import Testing

@testable import SuperwallCore

@Suite struct CachedConfigStorageTests {
    @Test func theCachedConfigIsKeptAsItsBytes() throws {
        let store = try Store()
        let body = Data((minimalConfig + String(repeating: " ", count: 700_000)).utf8)
        try store.setDocument(body, for: .lastConfig)
        #expect(try store.document(.lastConfig) == body)
        try store.setDocument(Data("{}".utf8), for: .lastConfig)
        #expect(try store.document(.lastConfig) == Data("{}".utf8))
        try store.remove(DocumentKey.lastConfig)
        #expect(try store.document(.lastConfig) == nil)
    }

    @Test func aConfigCachedByTheLastVersionAsAJSONStringIsReadAfterTheUpgrade() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString + ".sqlite").path
        do {
            // What versions before v6 wrote: the body as a JSON string.
            let queue = try DatabaseQueue(path: path)
            try Store.stepwiseMigrator(through: "v5: the placement log is the outgoing event queue").migrate(queue)
            let old = try JSONEncoder().encode(minimalConfig)
            try queue.write { db in
                try db.execute(
                    sql: "INSERT INTO keyedValue (key, scope, value) VALUES ('lastConfig', 'app', ?)",
                    arguments: [old]
                )
            }
        }
        let upgraded = try Store(path: path)
        let body = try #require(try upgraded.document(.lastConfig))
        #expect(String(decoding: body, as: UTF8.self) == minimalConfig)
        #expect(try Config.decode(from: body).buildId == "b")
    }

    /// On disk the cached config is a file beside the database, not a row of it; one that an
    /// earlier version kept in SQLite goes from there when the next one is written.
    @Test func aStoreOnDiskKeepsTheCachedConfigInAFileBesideTheDatabase() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try Store(path: directory.appendingPathComponent("superwall.sqlite").path)
        let file = directory.appendingPathComponent("superwall.sqlite-lastConfig")
        let older = Data("{\"older\":true}".utf8)
        try store.database.write { db in
            try db.execute(
                sql: "INSERT INTO keyedValue (key, scope, value) VALUES ('lastConfig', 'app', ?)",
                arguments: [older]
            )
        }
        #expect(try store.document(.lastConfig) == older)

        let body = Data(minimalConfig.utf8)
        try store.setDocument(body, for: .lastConfig)
        #expect(try Data(contentsOf: file) == body)
        #expect(try store.document(.lastConfig) == body)
        let rows = try store.database.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM keyedValue WHERE key = 'lastConfig'")
        }
        #expect(rows == 0)

        try store.remove(DocumentKey.lastConfig)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(try store.document(.lastConfig) == nil)
    }
}
