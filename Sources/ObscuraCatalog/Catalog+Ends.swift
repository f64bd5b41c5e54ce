import GRDB

/// The statements of ends (docs/FORMAT.md §3.3, "Ends"): `endsAt` and `viewsLeft` say when
/// an item is deleted for good; the partial index `item_by_end` finds those whose time came.
extension Catalog {
    /// Sets the end of the items `ids`, all or none: nil clears that part of it. The items
    /// that gain or lose an end in views have their picture index rows replaced (§3.3), so
    /// the commit takes ``dropFloor(items:)`` for them, counted from the stored rows; a
    /// counted view changes none.
    package func setEnd(_ ids: [String], endsAt: Double?, viewsLeft: Int?) throws {
        let changing = try read { db in
            try ItemRecord.fetchAll(db, keys: ids).filter { ($0.viewsLeft == nil) != (viewsLeft == nil) }.count
        }
        try write(minimumBucket: changing > 0 ? Self.dropFloor(items: changing) : 0) { db in
            for id in ids {
                try db.execute(sql: "UPDATE item SET endsAt = ?, viewsLeft = ? WHERE id = ?", arguments: [endsAt, viewsLeft, id])
            }
        }
    }

    /// The items whose end is at or before `time`, in any folder, locked or not, and in
    /// the trash too; read through the partial index item_by_end.
    package func endedItems(at time: Double) throws -> [ItemRecord] {
        try read { db in
            try ItemRecord.fetchAll(db, sql: """
                SELECT * FROM item INDEXED BY item_by_end WHERE endsAt IS NOT NULL AND endsAt <= ? ORDER BY endsAt, id
                """, arguments: [time])
        }
    }

    /// The earliest end in time of any item, or nil when none has one.
    package func earliestEnd() throws -> Double? {
        try read { db in
            try Double.fetchOne(db, sql: "SELECT min(endsAt) FROM item INDEXED BY item_by_end WHERE endsAt IS NOT NULL")
        }
    }
}
