import GRDB

/// The statements on the `folder` table (docs/FORMAT.md §3.3), as typed calls.
extension Catalog {
    /// Every folder row, in the table's own order.
    package func folders() throws -> [FolderRecord] {
        try read { try FolderRecord.fetchAll($0) }
    }

    /// The folder whose id is `id`, if any.
    package func folder(id: String) throws -> FolderRecord? {
        try read { try FolderRecord.fetchOne($0, key: id) }
    }

    /// One change to the folder table, as ``changeFolders(_:)`` applies it.
    package enum FolderChange {
        case insert(FolderRecord)
        /// New folders in order, each parent before its children; the last is returned.
        case insertAll([FolderRecord])
        case update(FolderRecord)
        case none
    }

    /// Runs `decide` on every folder row inside one write transaction and applies the
    /// change it returns, so that its checks (a name taken, a cycle, a protected parent)
    /// hold for the rows as they stand when written: writes run one at a time, and two
    /// changes at once (two moves, a move and a delete) cannot each pass a check the
    /// other breaks. Returns the row written, nil for ``FolderChange/none``.
    @discardableResult
    package func changeFolders(_ decide: ([FolderRecord]) throws -> FolderChange) throws -> FolderRecord? {
        try write { db in
            switch try decide(try FolderRecord.fetchAll(db)) {
            case let .insert(folder):
                try folder.insert(db)
                return folder
            case let .insertAll(folders):
                for folder in folders { try folder.insert(db) }
                return folders.last
            case let .update(folder):
                try folder.update(db)
                return folder
            case .none:
                return nil
            }
        }
    }

    /// Deletes the folder `folderId` if it holds no item and no folder, both counted in
    /// the deleting transaction: the row's foreign keys would otherwise cascade to a
    /// folder moved into it meanwhile and leave the items of a protected one without
    /// their key. Returns whether it was deleted.
    package func deleteFolderIfEmpty(_ folderId: String) throws -> Bool {
        try write { db in
            let items = try ItemRecord.filter(Column("folderId") == folderId).fetchCount(db)
            let children = try FolderRecord.filter(Column("parentId") == folderId).fetchCount(db)
            guard items == 0 && children == 0 else { return false }
            return try FolderRecord.deleteOne(db, key: folderId)
        }
    }
}
