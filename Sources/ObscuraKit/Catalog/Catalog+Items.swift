import Foundation
import GRDB

/// The statements on the `item` table (docs/FORMAT.md §3.3), as typed calls: the vault's
/// operations ask for rows here and never write SQL of their own.
extension Catalog {
    /// Every item row, in the table's own order.
    func allItems() throws -> [ItemRecord] {
        try read { try ItemRecord.fetchAll($0) }
    }

    /// Every item row and every folder row, in the tables' own order. One transaction, so
    /// that the two lists agree: an export's manifest lists each item's folder.
    func itemsAndFolders() throws -> (items: [ItemRecord], folders: [FolderRecord]) {
        try read { db in (try ItemRecord.fetchAll(db), try FolderRecord.fetchAll(db)) }
    }

    /// The items of `folderId` (every item when nil) in the gallery order, newest capture
    /// first, with every folder row, in one transaction so that each item's folder is
    /// among the folders.
    func itemsInGalleryOrder(folderId: String?) throws -> (items: [ItemRecord], folders: [FolderRecord]) {
        try read { db in
            var request = ItemRecord.order(sql: "\(Self.sortKey) DESC, id")
            if let folderId { request = request.filter(Column("folderId") == folderId) }
            return (try request.fetchAll(db), try FolderRecord.fetchAll(db))
        }
    }

    /// The rows whose id starts with `prefix`, in id order, at most two: enough to tell
    /// one match from an ambiguous prefix. `prefix` must be lower-case hex and dashes.
    func items(withIdPrefix prefix: String) throws -> [ItemRecord] {
        // A primary-key range, not a scan: the gallery asks for one item per thumbnail.
        // Ids are lower-case hex and dashes, all below "g", so [prefix, prefix + "g")
        // holds exactly the ids that start with prefix.
        try read { db in
            try ItemRecord.fetchAll(db, sql: "SELECT * FROM item WHERE id >= ? AND id < ? ORDER BY id LIMIT 2",
                                    arguments: [prefix, prefix + "g"])
        }
    }

    /// How many items the catalog holds, in every folder, locked or not.
    func itemCount() throws -> Int {
        try read { try ItemRecord.fetchCount($0) }
    }

    /// How many items the folder `folderId` holds.
    func itemCount(inFolder folderId: String) throws -> Int {
        try read { try ItemRecord.filter(Column("folderId") == folderId).fetchCount($0) }
    }

    /// SHA-256 of every item's plaintext, for duplicate detection.
    func contentHashes() throws -> Set<Data> {
        try read { db in Set(try Data.fetchAll(db, sql: "SELECT contentHash FROM item")) }
    }

    /// Adds `items`, all or none.
    func insert(_ items: [ItemRecord]) throws {
        try write { db in for item in items { try item.insert(db) } }
    }

    /// Replaces the rows of `items` (matched by id), all or none.
    func update(_ items: [ItemRecord]) throws {
        try write { db in for item in items { try item.update(db) } }
    }

    /// Removes the rows of `items` (matched by id), all or none.
    func delete(_ items: [ItemRecord]) throws {
        try write { db in for item in items { _ = try item.delete(db) } }
    }

    /// Marks or unmarks the item `itemId` as a favourite.
    func setFavorite(_ favorite: Bool, itemId: String) throws {
        try write { db in
            try db.execute(sql: "UPDATE item SET favorite = ? WHERE id = ?", arguments: [favorite, itemId])
        }
    }
}
