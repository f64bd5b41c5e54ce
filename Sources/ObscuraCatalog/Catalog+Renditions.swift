import GRDB

/// The statements of renditions (docs/FORMAT.md §3.3, `renditionId`, `renditionState`).
extension Catalog {
    /// The ids of the items whose rendition is still to be made, trashed ones included
    /// (restoring one should find it ready), through the partial index
    /// item_rendition_pending.
    package func pendingRenditions() throws -> [String] {
        try read { db in
            try String.fetchAll(db, sql: """
                SELECT id FROM item INDEXED BY item_rendition_pending WHERE renditionState = 'pending' ORDER BY id
                """)
        }
    }

    /// Records the outcome of making the rendition of item `id` from original `mediaId`
    /// (its own, or a Live Photo's motion):
    /// only if the item still has that original and still waits for it (it may have been
    /// deleted, or moved to another folder's key, meanwhile). Returns whether it did.
    package func settleRendition(_ id: String, mediaId: String, renditionId: String?, state: RenditionState) throws -> Bool {
        try write { db in
            try db.execute(sql: """
                UPDATE item SET renditionId = ?, renditionState = ?
                WHERE id = ? AND ? IN (mediaId, companionId) AND renditionState = 'pending'
                """, arguments: [renditionId, state.rawValue, id, mediaId])
            return db.changesCount == 1
        }
    }

    /// Puts every video rendition that failed back in the queue (a newer ffmpeg may do
    /// better); returns how many.
    package func retryFailedRenditions() throws -> Int {
        try write { db in
            try db.execute(sql: "UPDATE item SET renditionState = 'pending' WHERE renditionState = 'failed'")
            return db.changesCount
        }
    }
}
