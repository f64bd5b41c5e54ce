import GRDB

/// The statements on the `folder` table (docs/FORMAT.md §3.3), as typed calls.
extension Catalog {
    /// Every folder row, in the table's own order.
    func folders() throws -> [FolderRecord] {
        try read { try FolderRecord.fetchAll($0) }
    }

    /// The folder whose id is `id`, if any.
    func folder(id: String) throws -> FolderRecord? {
        try read { try FolderRecord.fetchOne($0, key: id) }
    }

    /// Adds `folder`.
    func insert(_ folder: FolderRecord) throws {
        try write { try folder.insert($0) }
    }

    /// Replaces `folder`'s row (matched by id): a rename or a move.
    func update(_ folder: FolderRecord) throws {
        try write { try folder.update($0) }
    }

    /// Removes `folder`'s row (matched by id).
    func delete(_ folder: FolderRecord) throws {
        _ = try write { try folder.delete($0) }
    }

    /// Whether the folder `folderId` holds no item and no folder, both counted in one
    /// transaction.
    func folderIsEmpty(_ folderId: String) throws -> Bool {
        let (items, children) = try read { db in
            (try ItemRecord.filter(Column("folderId") == folderId).fetchCount(db),
             try FolderRecord.filter(Column("parentId") == folderId).fetchCount(db))
        }
        return items == 0 && children == 0
    }
}
