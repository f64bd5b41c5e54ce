import Foundation
import GRDB

/// The statements of pairs: Live Photos and RAW+JPEG (docs/FORMAT.md §3.3, `companion*`, `pairKey`).
extension Catalog {
    /// The stored rows outside the trash in folder `folderId` (nil: top level) still
    /// waiting for their other half under `pairKey`, through item_by_pair_key.
    func unpairedItems(pairKey: Data, folderId: String?) throws -> [ItemRecord] {
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
    /// columns of `stills` and nothing else of theirs, so that a favourite or a trash set
    /// since the still was read stays.
    func recordImports(deleting taken: [ItemRecord], inserting rows: [ItemRecord], pairing stills: [ItemRecord]) throws {
        try write { db in
            for row in taken { _ = try row.delete(db) }
            for row in rows { try row.insert(db) }
            for still in stills {
                try db.execute(sql: """
                    UPDATE item SET companionId = ?, companionRole = ?, companionName = ?, companionMimeType = ?,
                        companionSize = ?, companionHash = ?, pairKey = NULL, duration = ?, renditionId = ?,
                        renditionState = ?, protectedMeta = ?
                    WHERE id = ?
                    """, arguments: [
                        still.companionId, still.companionRole?.rawValue, still.companionName, still.companionMimeType,
                        still.companionSize, still.companionHash, still.duration, still.renditionId,
                        still.renditionState?.rawValue, still.protectedMeta, still.id,
                    ])
            }
        }
    }
}
