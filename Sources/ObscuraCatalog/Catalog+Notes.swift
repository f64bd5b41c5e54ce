import GRDB

/// The statements of note attachments (docs/FORMAT.md §3.3, "Notes"): the table
/// `note_attachment` links a note to the items attached to it, in the order attached.
extension Catalog {
    /// Appends `itemIds` to the attachments of `noteId`, after those it has; an item
    /// already attached keeps its place. All or none.
    package func attach(_ itemIds: [String], to noteId: String) throws {
        try write { db in
            var next = try Int.fetchOne(db, sql: "SELECT ifnull(max(position) + 1, 0) FROM note_attachment WHERE noteId = ?",
                                        arguments: [noteId]) ?? 0
            for itemId in itemIds {
                try db.execute(sql: "INSERT OR IGNORE INTO note_attachment (noteId, itemId, position) VALUES (?, ?, ?)",
                               arguments: [noteId, itemId, next])
                next += db.changesCount
            }
        }
    }

    /// Removes `itemIds` from the attachments of `noteId`.
    package func detach(_ itemIds: [String], from noteId: String) throws {
        try write { db in
            for itemId in itemIds {
                try db.execute(sql: "DELETE FROM note_attachment WHERE noteId = ? AND itemId = ?", arguments: [noteId, itemId])
            }
        }
    }

    /// The ids of the items attached to `noteId`, in the order they were attached.
    package func attachmentIds(of noteId: String) throws -> [String] {
        try read { db in
            try String.fetchAll(db, sql: "SELECT itemId FROM note_attachment WHERE noteId = ? ORDER BY position",
                                arguments: [noteId])
        }
    }
}
