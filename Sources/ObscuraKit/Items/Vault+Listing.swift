import Foundation
import ObscuraCatalog

/// Which items a page of ``Vault/itemListing(scope:favoritesOnly:after:limit:)`` draws from.
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
public struct ItemListing: Sendable {
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
    public func itemListing(scope: ItemScope, filter: ItemFilter = ItemFilter(), after cursor: String? = nil, limit: Int) throws -> ItemListing {
        return try operation {
            let folders = try catalog.folders()
            let catalogScope: Catalog.ListingScope
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
            if scope == .trash, filter != ItemFilter() {
                // The trash holds open protected folders' items, whose names, places and dates
                // are sealed: a search of it (small, as the trash is) is worked out in Swift.
                let (rows, _) = try catalog.listing(catalogScope, filter: Catalog.ListingFilter(), after: nil, limit: Int(Int32.max))
                return try openedPage(rows, in: folders, key: { $0.deletedAt ?? 0 }, filter: filter, after: position, limit: limit,
                                      trash: true)
            }
            // One row past the page tells whether another page follows.
            let (page, total) = try catalog.listing(catalogScope, filter: filter.catalogFilter, after: position, limit: limit + 1)
            let byId = Dictionary(uniqueKeysWithValues: folders.map { ($0.id, $0) })
            let items = try page.prefix(limit).map { row -> ItemView in
                guard let folderId = row.folderId, let folder = byId[folderId] else { return ItemView(record: row, folderPath: nil) }
                return ItemView(record: try revealed(row), folderPath: folderPath(folder, in: folders))
            }
            let next = page.count > limit ? page[limit - 1] : nil
            return ItemListing(items: items, nextCursor: next.map { Self.cursor(after: $0, trash: scope == .trash) }, total: total)
        }
    }

    /// How many items of `scope` each month holds (`YYYY-MM` of the capture date, else the
    /// import date, in UTC), newest first: the gallery's date scrubber. The trash has none.
    /// A protected folder's dates are sealed (§6.4): its rows are opened and counted here.
    public func months(scope: ItemScope, favoritesOnly: Bool = false) throws -> [(month: String, count: Int)] {
        return try operation {
            let folders = try catalog.folders()
            switch scope {
            case .visible:
                return try catalog.months(.all(excluding: folders.filter { !isOpen($0) }.map(\.id)), favoritesOnly: favoritesOnly)
            case .library:
                return try catalog.months(.all(excluding: folders.filter(\.isProtected).map(\.id)), favoritesOnly: favoritesOnly)
            case .topLevel:
                return try catalog.months(.topLevel, favoritesOnly: favoritesOnly)
            case .trash:
                return []
            case let .folder(folder):
                guard isOpen(folder) else { throw VaultError.folderLocked(folder.name) }
                guard folder.isProtected else { return try catalog.months(.folder(folder.id), favoritesOnly: favoritesOnly) }
                let page = try itemListing(scope: scope, filter: ItemFilter(favoritesOnly: favoritesOnly), limit: Int(Int32.max))
                var counts = [(month: String, count: Int)]()
                for view in page.items {
                    let month = Self.month(view.record.takenAt ?? view.record.importedAt)
                    if counts.last?.month == month { counts[counts.count - 1].count += 1 } else { counts.append((month, 1)) }
                }
                return counts
            }
        }
    }

    /// `YYYY-MM` of `time` in UTC, as SQLite's strftime('%Y-%m', time, 'unixepoch') gives it.
    static func month(_ time: Double) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month], from: Date(timeIntervalSince1970: time))
        return String(format: "%04d-%02d", parts.year ?? 0, parts.month ?? 0)
    }

    /// A page of items in `scope`, favourites only when `favoritesOnly`.
    public func itemListing(scope: ItemScope, favoritesOnly: Bool, after cursor: String? = nil, limit: Int) throws -> ItemListing {
        try itemListing(scope: scope, filter: ItemFilter(favoritesOnly: favoritesOnly), after: cursor, limit: limit)
    }

    /// A page of a protected folder. Its rows keep their capture dates, names and places
    /// sealed under the folder key (§6.4), so SQL could order them by import date only and
    /// search none of them: the folder's rows are opened here, filtered and ordered as
    /// every other page is, then cut at the cursor.
    private func protectedPage(
        _ folder: FolderRecord, in folders: [FolderRecord], filter: ItemFilter,
        after position: (key: Double, id: String)?, limit: Int
    ) throws -> ItemListing {
        let (rows, _) = try catalog.listing(.folder(folder.id), filter: Catalog.ListingFilter(), after: nil, limit: Int(Int32.max))
        return try openedPage(rows, in: folders, key: { $0.takenAt ?? $0.importedAt }, filter: filter, after: position,
                              limit: limit, trash: false)
    }

    /// A page worked out in Swift: `rows` opened, kept by `filter`, ordered by `key`
    /// descending then id, cut at the cursor's position.
    private func openedPage(
        _ rows: [ItemRecord], in folders: [FolderRecord], key: (ItemRecord) -> Double, filter: ItemFilter,
        after position: (key: Double, id: String)?, limit: Int, trash: Bool
    ) throws -> ItemListing {
        let byId = Dictionary(uniqueKeysWithValues: folders.map { ($0.id, $0) })
        var opened = try rows.map { try revealed($0) }.filter(filter.keeps).sorted { a, b in
            key(a) != key(b) ? key(a) > key(b) : a.id < b.id
        }
        let total = opened.count
        if let (at, id) = position {
            opened.removeAll { key($0) > at || (key($0) == at && $0.id <= id) }
        }
        let next = opened.count > limit ? opened[limit - 1] : nil
        return ItemListing(
            items: opened.prefix(limit).map { row in
                ItemView(record: row, folderPath: row.folderId.flatMap { byId[$0] }.map { folderPath($0, in: folders) })
            },
            nextCursor: next.map { Self.cursor(after: $0, trash: trash) }, total: total)
    }

    /// Marks or unmarks an item as a favourite, and commits the catalog.
    public func setFavorite(_ id: String, _ favorite: Bool) throws -> ItemRecord {
        return try operation {
            var row = try item(id)
            row.favorite = favorite
            try catalog.setFavorite(favorite, itemId: row.id)
            return row
        }
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
