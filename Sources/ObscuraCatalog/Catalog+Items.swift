import Foundation
import GRDB
import ObscuraCrypto

/// The statements on the `item` table (docs/FORMAT.md §3.3), as typed calls: the vault's
/// operations ask for rows here and never write SQL of their own.
extension Catalog {
    /// Every item row, in the table's own order.
    package func allItems() throws -> [ItemRecord] {
        try read { try ItemRecord.fetchAll($0) }
    }

    /// Every item row and every folder row, in the tables' own order. One transaction, so
    /// that the two lists agree: an export's manifest lists each item's folder.
    package func itemsAndFolders() throws -> (items: [ItemRecord], folders: [FolderRecord]) {
        try read { db in (try ItemRecord.fetchAll(db), try FolderRecord.fetchAll(db)) }
    }

    /// The items of `folderId` (every item when nil) in the gallery order, newest capture
    /// first, with every folder row, in one transaction so that each item's folder is
    /// among the folders.
    package func itemsInGalleryOrder(folderId: String?) throws -> (items: [ItemRecord], folders: [FolderRecord]) {
        try read { db in
            var request = ItemRecord.order(sql: "\(Self.sortKey) DESC, id")
            if let folderId { request = request.filter(Column("folderId") == folderId) }
            return (try request.fetchAll(db), try FolderRecord.fetchAll(db))
        }
    }

    /// The rows whose id starts with `prefix`, in id order, at most two: enough to tell
    /// one match from an ambiguous prefix. `prefix` must be lower-case hex and dashes.
    package func items(withIdPrefix prefix: String) throws -> [ItemRecord] {
        // A primary-key range, not a scan: the gallery asks for one item per thumbnail.
        // Ids are lower-case hex and dashes, all below "g", so [prefix, prefix + "g")
        // holds exactly the ids that start with prefix.
        try read { db in
            try ItemRecord.fetchAll(db, sql: "SELECT * FROM item WHERE id >= ? AND id < ? ORDER BY id LIMIT 2",
                                    arguments: [prefix, prefix + "g"])
        }
    }

    /// How many items the catalog holds, in every folder, locked or not.
    package func itemCount() throws -> Int {
        try read { try ItemRecord.fetchCount($0) }
    }

    /// How many items the folder `folderId` holds outside the trash.
    package func itemCount(inFolder folderId: String) throws -> Int {
        try read { try ItemRecord.filter(Column("folderId") == folderId && Column("deletedAt") == nil).fetchCount($0) }
    }

    /// The items outside the trash whose `contentHash` is one of `values`, with their
    /// folders, for duplicate detection (docs/FORMAT.md §6.7): the caller keeps those the
    /// session can open. A trashed item is no duplicate: a file imported again after a
    /// delete is added, as the person expects.
    ///
    /// Notes and files are apart: a file is no duplicate of a note whose body has its
    /// bytes, nor a note of a file (`notes` says which side is asked about).
    package func items(withContentHashes values: [Data], notes: Bool = false) throws -> [(folderId: String?, hash: Data)] {
        guard !values.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: values.count).joined(separator: ", ")
        let kind = notes ? "kind = 'note'" : "kind <> 'note'"
        return try read { db in
            // item_by_hash and item_by_companion_hash answer this without reading the other
            // rows. A Live Photo's motion is a file the vault holds too.
            try Row.fetchAll(db, sql: """
                SELECT folderId, contentHash AS hash FROM item WHERE contentHash IN (\(marks)) AND deletedAt IS NULL AND \(kind)
                UNION ALL
                SELECT folderId, companionHash FROM item WHERE companionHash IN (\(marks)) AND deletedAt IS NULL AND \(kind)
                """, arguments: StatementArguments(values + values))
                .map { ($0["folderId"], $0["hash"]) }
        }
    }

    /// The items whose `contentHash` is still a plain SHA-256 (§3.3: 32 bytes), with their
    /// folders: those a keyed hash has not yet replaced.
    package func plainContentHashes() throws -> [(id: String, folderId: String?, hash: Data)] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT id, folderId, contentHash FROM item WHERE length(contentHash) = ?",
                             arguments: [SHA256Digest.size])
                .map { ($0["id"], $0["folderId"], $0["contentHash"]) }
        }
    }

    /// Replaces items' `contentHash` values, all or none. Secure delete is on for the
    /// connection from here on: a replaced value must not survive in the database's free
    /// space, where it would stay readable in the image sealed under the MEK (§6.7).
    package func setContentHashes(_ hashes: [(id: String, hash: Data)]) throws {
        try write { db in
            try db.execute(sql: "PRAGMA secure_delete = ON")
            for (id, hash) in hashes {
                try db.execute(sql: "UPDATE item SET contentHash = ? WHERE id = ?", arguments: [hash, id])
            }
        }
    }

    /// Adds `items`, all or none.
    package func insert(_ items: [ItemRecord]) throws {
        try write { db in for item in items { try item.insert(db) } }
    }

    /// The stored rows of the items `ids` that exist (protected ones as stored, sealed).
    package func rows(ids: [String]) throws -> [ItemRecord] {
        try read { db in try ItemRecord.fetchAll(db, keys: ids) }
    }

    /// Replaces the rows of `items` (matched by id), all or none. The items that move
    /// into, out of or between protected folders lose their picture index rows, so the
    /// commit takes ``dropFloor(items:)`` for them, counted from the stored rows and the
    /// folders, never from the index. (The vault holds its rows gate across a move, so
    /// the stored rows do not change between the count and the write.)
    package func update(_ items: [ItemRecord]) throws {
        let crossing = try read { db -> Int in
            let protected = Set(try FolderRecord.fetchAll(db).filter(\.isProtected).map(\.id))
            let stored = try ItemRecord.fetchAll(db, keys: items.map(\.id))
            let before = Dictionary(stored.map { ($0.id, $0.folderId) }, uniquingKeysWith: { a, _ in a })
            return items.filter { item in
                guard let old = before[item.id], old != item.folderId else { return false }
                return old.map(protected.contains) == true || item.folderId.map(protected.contains) == true
            }.count
        }
        try write(minimumBucket: crossing > 0 ? Self.dropFloor(items: crossing) : 0) { db in
            for item in items { try item.update(db) }
        }
    }

    /// Removes the rows of `items` (matched by id), all or none, in a commit of
    /// ``dropFloor(items:)``: an item's picture index row goes with it.
    package func delete(_ items: [ItemRecord]) throws {
        try write(minimumBucket: Self.dropFloor(items: items.count)) { db in for item in items { _ = try item.delete(db) } }
    }

    /// Marks or unmarks the item `itemId` as a favourite.
    package func setFavorite(_ favorite: Bool, itemId: String) throws {
        try write { db in
            try db.execute(sql: "UPDATE item SET favorite = ? WHERE id = ?", arguments: [favorite, itemId])
        }
    }
}
