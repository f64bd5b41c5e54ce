import GRDB

/// The statements on the `setting` table (docs/FORMAT.md §3.3): one text value a key.
extension Catalog {
    /// The value stored under `key`, if any.
    func setting(_ key: String) throws -> String? {
        try read { try String.fetchOne($0, sql: "SELECT value FROM setting WHERE key = ?", arguments: [key]) }
    }

    /// Stores `value` under `key`, replacing any value there.
    func setSetting(_ key: String, to value: String) throws {
        try write { db in
            try db.execute(sql: "INSERT INTO setting(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                           arguments: [key, value])
        }
    }
}
