import GRDB

/// The statements of the trash (docs/FORMAT.md §3.3, `deletedAt`): a trashed item keeps
/// its row until it is deleted for good, and only `deletedAt` says where it is.
extension Catalog {
    /// Puts the items `ids` in the trash at `time`, all or none; items already there keep
    /// their first time, so that expiry counts from the first delete.
    package func trash(_ ids: [String], at time: Double) throws {
        try write { db in
            for id in ids {
                try db.execute(sql: "UPDATE item SET deletedAt = ? WHERE id = ? AND deletedAt IS NULL", arguments: [time, id])
            }
        }
    }

    /// Takes the items `ids` out of the trash, all or none.
    package func restore(_ ids: [String]) throws {
        try write { db in
            for id in ids { try db.execute(sql: "UPDATE item SET deletedAt = NULL WHERE id = ?", arguments: [id]) }
        }
    }

    /// The items in the trash since before `time` (every trashed item when nil), in any
    /// folder, locked or not; read through the partial index item_in_trash.
    package func trashedItems(before time: Double? = nil) throws -> [ItemRecord] {
        try read { db in
            try ItemRecord.fetchAll(db, sql: """
                SELECT * FROM item INDEXED BY item_in_trash WHERE deletedAt IS NOT NULL AND deletedAt < ? ORDER BY deletedAt, id
                """, arguments: [time ?? Double.infinity])
        }
    }
}
