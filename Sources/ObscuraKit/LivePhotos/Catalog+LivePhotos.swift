import Foundation
import GRDB

/// The statements of Live Photos (docs/FORMAT.md §3.3, `companion*`, `pairKey`).
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
