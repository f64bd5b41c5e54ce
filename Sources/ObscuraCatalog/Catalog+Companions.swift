import Foundation
import GRDB

/// The statements of pairs: Live Photos and RAW+JPEG (docs/FORMAT.md §3.3, `companion*`, `pairKey`).
extension Catalog {
    /// The stored rows outside the trash in folder `folderId` (nil: top level) still
    /// waiting for their other half under `pairKey`, through item_by_pair_key.
    package func unpairedItems(pairKey: Data, folderId: String?) throws -> [ItemRecord] {
        try read { db in
            try ItemRecord.fetchAll(db, sql: """
                SELECT * FROM item INDEXED BY item_by_pair_key
                WHERE pairKey = ? AND folderId IS ? AND deletedAt IS NULL AND companionId IS NULL
                ORDER BY importedAt, id
                """, arguments: [pairKey, folderId])
        }
    }
}

extension Catalog {
    /// Records what an import made, all or none (one commit of a paged catalog, one
    /// transaction of an image): the stored halves a new still took in are deleted, the
    /// new rows inserted, and each stored still that took a new half in gets the pairing
    /// columns of `stills` and nothing else of theirs, so that a favourite set since the
    /// still was read stays. A stored row that is no longer an unpaired one outside the
    /// trash refuses the whole write (the caller holds the rows gate, which trash and
    /// restore take, so this is a last guard, not a path). A write that deletes stored
    /// halves takes ``dropFloor(items:)`` for them: their picture index rows go with them.
    package func recordImports(deleting taken: [ItemRecord], inserting rows: [ItemRecord], pairing stills: [ItemRecord]) throws {
        try write(minimumBucket: taken.isEmpty ? 0 : Self.dropFloor(items: taken.count)) { db in
            func changedOne() throws {
                guard db.changesCount == 1 else { throw CatalogError.corrupt("an item to pair changed while it was paired") }
            }
            for row in taken {
                try db.execute(sql: "DELETE FROM item WHERE id = ? AND deletedAt IS NULL AND companionId IS NULL",
                               arguments: [row.id])
                try changedOne()
            }
            for row in rows { try row.insert(db) }
            for still in stills {
                try db.execute(sql: """
                    UPDATE item SET companionId = ?, companionRole = ?, companionName = ?, companionMimeType = ?,
                        companionSize = ?, companionHash = ?, pairKey = NULL, duration = ?, renditionId = ?,
                        renditionState = ?, protectedMeta = ?
                    WHERE id = ? AND deletedAt IS NULL AND companionId IS NULL
                    """, arguments: [
                        still.companionId, still.companionRole?.rawValue, still.companionName, still.companionMimeType,
                        still.companionSize, still.companionHash, still.duration, still.renditionId,
                        still.renditionState?.rawValue, still.protectedMeta, still.id,
                    ])
                try changedOne()
            }
        }
    }
}
