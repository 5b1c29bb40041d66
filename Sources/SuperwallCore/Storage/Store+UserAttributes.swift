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

    /// Writes the members named in `keys` as `attributes` has them, and deletes those it does
    /// not have: for a change that knows its keys, without comparing every other member.
    public func setUserAttributes(_ keys: some Sequence<String>, of attributes: [String: JSON]) throws {
        try changing { changes in
            for key in keys { try changes.setUserAttribute(key, to: attributes[key]) }
        }
    }
}

extension Store.Changes {
    /// Writes the members of `attributes` that differ from `stored` (what the store holds when
    /// the change begins) and deletes those it no longer has.
    public func setUserAttributes(_ attributes: [String: JSON], replacing stored: [String: JSON]) throws {
        for (key, value) in attributes where stored[key] != value { try setUserAttribute(key, to: value) }
        for key in stored.keys where attributes[key] == nil { try setUserAttribute(key, to: nil) }
    }

    /// Stores `value` under `key`, or deletes the key when `value` is nil.
    func setUserAttribute(_ key: String, to value: JSON?) throws {
        if let value {
            try db.cachedStatement(
                sql:
                    "INSERT INTO userAttribute (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"
            ).execute(arguments: [key, Data(value.jsonText.utf8)])
        } else {
            try db.cachedStatement(sql: "DELETE FROM userAttribute WHERE key = ?").execute(arguments: [key])
        }
    }
}
