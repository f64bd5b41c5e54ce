import Foundation

/// Which items a page of ``Vault/itemsPage(scope:favoritesOnly:after:limit:)`` draws from.
public enum ItemScope: Sendable, Equatable {
    /// Every item the session can see: the top level and every open folder.
    case visible
    /// The library views (All photos, Favourites): the top level and every unprotected
    /// folder. A protected folder's items stay inside it even while it is unlocked, as a
    /// locked folder should (issue 16): they show only when that folder is opened.
    case library
    /// The top level only.
    case topLevel
    /// One folder, which must be open.
    case folder(FolderRecord)
    /// The trash: deleted items of the top level and every open folder, the most recently
    /// deleted first.
    case trash
}

/// One page of items, newest capture first.
public struct ItemPage: Sendable {
    /// The items, at most the limit asked for.
    public var items: [ItemView]
    /// Where the next page starts; nil on the last page.
    public var nextCursor: String?
    /// How many items the scope holds in all.
    public var total: Int
}

extension Vault {
    /// A page of items in `scope` kept by `filter`, ordered by capture date (import date
    /// when there is none), newest first, then by id: the order ``items(in:)`` uses; the
    /// trash is ordered by the time of the delete instead. Paging is by key, not offset,
    /// so a page costs the same at the end of 100,000 items as at the start, and items
    /// added meanwhile never shift a page.
    ///
    /// - Parameter cursor: `nextCursor` of the previous page, nil for the first.
    /// - Throws: ``VaultError/folderLocked(_:)`` for a locked folder,
    ///   ``VaultError/invalidCursor`` for a cursor this method did not make.
    public func itemsPage(scope: ItemScope, filter: ItemFilter = ItemFilter(), after cursor: String? = nil, limit: Int) throws -> ItemPage {
        try enter()
        defer { leave() }
        let folders = try catalog.folders()
        let catalogScope: Catalog.PageScope
        switch scope {
        case .visible:
            catalogScope = .all(excluding: folders.filter { !isOpen($0) }.map(\.id))
        case .library:
            catalogScope = .all(excluding: folders.filter(\.isProtected).map(\.id))
        case .topLevel:
            catalogScope = .topLevel
        case let .folder(folder):
            guard isOpen(folder) else { throw VaultError.folderLocked(folder.name) }
            catalogScope = .folder(folder.id)
        case .trash:
            catalogScope = .trash(excluding: folders.filter { !isOpen($0) }.map(\.id))
        }
        var position: (key: Double, id: String)?
        if let cursor {
            position = Self.decodeCursor(cursor)
            if position == nil { throw VaultError.invalidCursor }
        }
        if case let .folder(folder) = scope, folder.isProtected {
            return try protectedPage(folder, in: folders, filter: filter, after: position, limit: limit)
        }
        // One row past the page tells whether another page follows.
        let (page, total) = try catalog.page(catalogScope, filter: filter.catalogFilter, after: position, limit: limit + 1)
        let byId = Dictionary(uniqueKeysWithValues: folders.map { ($0.id, $0) })
        let items = try page.prefix(limit).map { row -> ItemView in
            guard let folderId = row.folderId, let folder = byId[folderId] else { return ItemView(record: row, folderPath: nil) }
            return ItemView(record: try revealed(row), folderPath: folderPath(folder, in: folders))
        }
        let next = page.count > limit ? page[limit - 1] : nil
        return ItemPage(items: items, nextCursor: next.map { Self.cursor(after: $0, trash: scope == .trash) }, total: total)
    }

    /// A page of items in `scope`, favourites only when `favoritesOnly`.
    public func itemsPage(scope: ItemScope, favoritesOnly: Bool, after cursor: String? = nil, limit: Int) throws -> ItemPage {
        try itemsPage(scope: scope, filter: ItemFilter(favoritesOnly: favoritesOnly), after: cursor, limit: limit)
    }

    /// A page of a protected folder. Its rows keep their capture dates, names and places
    /// sealed under the folder key (§6.4), so SQL could order them by import date only and
    /// search none of them: the folder's rows are opened here, filtered and ordered as
    /// every other page is, then cut at the cursor.
    private func protectedPage(
        _ folder: FolderRecord, in folders: [FolderRecord], filter: ItemFilter,
        after position: (key: Double, id: String)?, limit: Int
    ) throws -> ItemPage {
        let (rows, _) = try catalog.page(.folder(folder.id), filter: Catalog.PageFilter(), after: nil, limit: Int(Int32.max))
        let path = folderPath(folder, in: folders)
        let key = { (row: ItemRecord) in row.takenAt ?? row.importedAt }
        var opened = try rows.map { try revealed($0) }.filter(filter.keeps).sorted { a, b in
            key(a) != key(b) ? key(a) > key(b) : a.id < b.id
        }
        let total = opened.count
        if let (at, id) = position {
            opened.removeAll { key($0) > at || (key($0) == at && $0.id <= id) }
        }
        let next = opened.count > limit ? opened[limit - 1] : nil
        return ItemPage(
            items: opened.prefix(limit).map { ItemView(record: $0, folderPath: path) },
            nextCursor: next.map { Self.cursor(after: $0) }, total: total)
    }

    /// Marks or unmarks an item as a favourite, and persists the catalog.
    public func setFavorite(_ id: String, _ favorite: Bool) throws -> ItemRecord {
        try enter()
        defer { leave() }
        var row = try item(id)
        row.favorite = favorite
        try catalog.setFavorite(favorite, itemId: row.id)
        try persist()
        return row
    }

    /// A cursor: the sort key's bit pattern in hex, a dot, the item id. The key is
    /// ``Catalog/sortKey`` worked out in Swift.
    /// In the trash the key is `deletedAt`.
    static func cursor(after row: ItemRecord, trash: Bool = false) -> String {
        let key = trash ? row.deletedAt ?? 0 : row.takenAt ?? row.importedAt
        return String(key.bitPattern, radix: 16) + "." + row.id
    }

    static func decodeCursor(_ cursor: String) -> (key: Double, id: String)? {
        let parts = cursor.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, let bits = UInt64(parts[0], radix: 16) else { return nil }
        let key = Double(bitPattern: bits)
        guard key.isFinite, UUID(uuidString: String(parts[1])) != nil else { return nil }
        return (key, String(parts[1]))
    }
}
