import Foundation
import GRDB

/// Which items a page of ``Vault/itemsPage(scope:favoritesOnly:after:limit:)`` draws from.
public enum ItemScope: Sendable, Equatable {
    /// Every item the session can see: the top level and every open folder.
    case visible
    /// The top level only.
    case topLevel
    /// One folder, which must be open.
    case folder(FolderRecord)
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
    /// A page of items in `scope`, ordered by capture date (import date when there is
    /// none), newest first, then by id: the order ``items(in:)`` uses. Paging is by key,
    /// not offset, so a page costs the same at the end of 100,000 items as at the start,
    /// and items added meanwhile never shift a page.
    ///
    /// - Parameter cursor: `nextCursor` of the previous page, nil for the first.
    /// - Throws: ``VaultError/folderLocked(_:)`` for a locked folder,
    ///   ``VaultError/invalidCursor`` for a cursor this method did not make.
    public func itemsPage(scope: ItemScope, favoritesOnly: Bool = false, after cursor: String? = nil, limit: Int) throws -> ItemPage {
        try enter()
        defer { leave() }
        let folders = try catalog.read { try FolderRecord.fetchAll($0) }
        let closed = folders.filter { !isOpen($0) }.map(\.id)
        var conditions: [String] = []
        var arguments: [DatabaseValueConvertible] = []
        // The whole-catalog scopes walk item_by_sort in order and stop after one page;
        // a folder's few items are found by item_by_folder and sorted.
        var index = "INDEXED BY item_by_sort"
        switch scope {
        case .visible:
            if !closed.isEmpty {
                conditions.append("(folderId IS NULL OR folderId NOT IN (\(Self.placeholders(closed.count))))")
                arguments += closed
            }
        case .topLevel:
            conditions.append("folderId IS NULL")
        case let .folder(folder):
            guard isOpen(folder) else { throw VaultError.folderLocked(folder.name) }
            conditions.append("folderId = ?")
            arguments.append(folder.id)
            index = ""
        }
        if favoritesOnly { conditions.append("favorite = 1") }
        let scopeSQL = conditions.isEmpty ? "1" : conditions.joined(separator: " AND ")
        let scopeArguments = arguments

        var pageSQL = scopeSQL
        if let cursor {
            guard let (key, id) = Self.decodeCursor(cursor) else { throw VaultError.invalidCursor }
            // `key <= ?` first, so that the index is entered at the cursor, not at the top.
            pageSQL += " AND \(Self.sortKey) <= ? AND (\(Self.sortKey) < ? OR id > ?)"
            arguments += [key, key, id]
        }
        let (rows, total) = try catalog.read { db in
            let rows = try ItemRecord.fetchAll(db, sql: """
                SELECT * FROM item \(index) WHERE \(pageSQL) ORDER BY \(Self.sortKey) DESC, id LIMIT ?
                """, arguments: StatementArguments(arguments + [limit + 1]))
            return (rows, try Self.count(db, scope: scope, favoritesOnly: favoritesOnly, closed: closed,
                                         where: scopeSQL, arguments: scopeArguments))
        }
        let byId = Dictionary(uniqueKeysWithValues: folders.map { ($0.id, $0) })
        let items = try rows.prefix(limit).map { row -> ItemView in
            guard let folderId = row.folderId, let folder = byId[folderId] else { return ItemView(record: row, folderPath: nil) }
            return ItemView(record: try revealed(row), folderPath: folderPath(folder, in: folders))
        }
        let next = rows.count > limit ? rows[limit - 1] : nil
        return ItemPage(items: items, nextCursor: next.map { Self.cursor(after: $0) }, total: total)
    }

    /// Marks or unmarks an item as a favourite, and persists the catalog.
    public func setFavorite(_ id: String, _ favorite: Bool) throws -> ItemRecord {
        var row = try item(id)
        row.favorite = favorite
        try catalog.write { db in
            try db.execute(sql: "UPDATE item SET favorite = ? WHERE id = ?", arguments: [favorite, row.id])
        }
        try persist()
        return row
    }

    /// How many items a scope holds. Counting the whole table is cheap (SQLite counts
    /// its smallest index) and the items of locked folders are found by item_by_folder,
    /// so the common scopes are counted by difference rather than by a filtered scan.
    private static func count(
        _ db: Database, scope: ItemScope, favoritesOnly: Bool, closed: [String], where scopeSQL: String,
        arguments: [DatabaseValueConvertible]
    ) throws -> Int {
        func fetch(_ sql: String, _ arguments: [DatabaseValueConvertible] = []) throws -> Int {
            try Int.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)) ?? 0
        }
        switch (scope, favoritesOnly) {
        case (.visible, false):
            let all = try fetch("SELECT COUNT(*) FROM item")
            guard !closed.isEmpty else { return all }
            return all - (try fetch("SELECT COUNT(*) FROM item WHERE folderId IN (\(placeholders(closed.count)))", closed))
        case (.topLevel, false):
            return try fetch("SELECT COUNT(*) FROM item") - (try fetch("SELECT COUNT(*) FROM item WHERE folderId IS NOT NULL"))
        default:
            return try fetch("SELECT COUNT(*) FROM item WHERE \(scopeSQL)", arguments)
        }
    }

    private static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ",")
    }

    /// The sort key of the gallery order, as SQL; item_by_sort indexes exactly this.
    static let sortKey = "COALESCE(takenAt, importedAt)"

    /// A cursor: the sort key's bit pattern in hex, a dot, the item id.
    static func cursor(after row: ItemRecord) -> String {
        String((row.takenAt ?? row.importedAt).bitPattern, radix: 16) + "." + row.id
    }

    static func decodeCursor(_ cursor: String) -> (Double, String)? {
        let parts = cursor.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, let bits = UInt64(parts[0], radix: 16) else { return nil }
        let key = Double(bitPattern: bits)
        guard key.isFinite, UUID(uuidString: String(parts[1])) != nil else { return nil }
        return (key, String(parts[1]))
    }
}
