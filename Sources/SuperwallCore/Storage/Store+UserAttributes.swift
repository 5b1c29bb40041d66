import Foundation
import GRDB

/// The user's attributes, a row each: a change writes the members it changed, so a one-key
/// change near the 10,000-member bound writes one row, not the whole map.
extension Store {
    public func userAttributes() throws -> [String: JSON] {
        try database.read { db in
            let decoder = JSONDecoder()
            var attributes: [String: JSON] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT key, value FROM userAttribute")
            while let row = try rows.next() {
                attributes[row[0]] = try decoder.decode(JSON.self, from: row[1] as Data)
            }
            return attributes
        }
    }

    /// Makes the stored attributes `attributes`, given that `stored` is what is stored now.
    public func setUserAttributes(_ attributes: [String: JSON], replacing stored: [String: JSON]) throws {
        try changing { try $0.setUserAttributes(attributes, replacing: stored) }
    }
}

extension Store.Changes {
    /// Writes the members of `attributes` that differ from `stored` (what the store holds when
    /// the change begins) and deletes those it no longer has.
    public func setUserAttributes(_ attributes: [String: JSON], replacing stored: [String: JSON]) throws {
        let upsert = try db.cachedStatement(
            sql:
                "INSERT INTO userAttribute (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"
        )
        for (key, value) in attributes where stored[key] != value {
            try upsert.execute(arguments: [key, Data(value.jsonText.utf8)])
        }
        let delete = try db.cachedStatement(sql: "DELETE FROM userAttribute WHERE key = ?")
        for key in stored.keys where attributes[key] == nil {
            try delete.execute(arguments: [key])
        }
    }
}
