import GRDB

/// Pages of items in the gallery order (docs/FORMAT.md §3.3): the statements behind
/// ``Vault/itemsPage(scope:favoritesOnly:after:limit:)``, which turns a session's view
/// (open and locked folders, the cursor) into a ``PageScope`` and a position.
extension Catalog {
    /// Which items a page draws from, in the catalog's terms: folder ids.
    enum PageScope: Equatable {
        /// Every item except those of the folders `excluding` (a session's locked ones).
        case all(excluding: [String])
        /// The top level only.
        case topLevel
        /// The folder with this id.
        case folder(String)
    }

    /// The sort key of the gallery order, as SQL; the index item_by_sort indexes exactly
    /// this. The order is the key descending, then id ascending.
    static let sortKey = "COALESCE(takenAt, importedAt)"

    /// At most `limit` items of `scope` in the gallery order, starting after the item at
    /// `position` (its sort key and id) or at the top, and how many items `scope` holds
    /// in all; both read in one transaction.
    func page(
        _ scope: PageScope, favoritesOnly: Bool, after position: (key: Double, id: String)?, limit: Int
    ) throws -> (items: [ItemRecord], total: Int) {
        var conditions: [String] = []
        var arguments: [DatabaseValueConvertible] = []
        // The whole-catalog scopes walk item_by_sort in order and stop after one page;
        // a folder's few items are found by item_by_folder and sorted.
        var index = "INDEXED BY item_by_sort"
        switch scope {
        case let .all(excluded):
            if !excluded.isEmpty {
                conditions.append("(folderId IS NULL OR folderId NOT IN (\(Self.placeholders(excluded.count))))")
                arguments += excluded
            }
        case .topLevel:
            conditions.append("folderId IS NULL")
        case let .folder(id):
            conditions.append("folderId = ?")
            arguments.append(id)
            index = ""
        }
        if favoritesOnly { conditions.append("favorite = 1") }
        let scopeSQL = conditions.isEmpty ? "1" : conditions.joined(separator: " AND ")
        let scopeArguments = arguments

        var pageSQL = scopeSQL
        if let (key, id) = position {
            // `key <= ?` first, so that the index is entered at the position, not at the top.
            pageSQL += " AND \(Self.sortKey) <= ? AND (\(Self.sortKey) < ? OR id > ?)"
            arguments += [key, key, id]
        }
        return try read { db in
            let items = try ItemRecord.fetchAll(db, sql: """
                SELECT * FROM item \(index) WHERE \(pageSQL) ORDER BY \(Self.sortKey) DESC, id LIMIT ?
                """, arguments: StatementArguments(arguments + [limit]))
            return (items, try Self.count(db, scope: scope, favoritesOnly: favoritesOnly,
                                          where: scopeSQL, arguments: scopeArguments))
        }
    }

    /// How many items a scope holds. Counting the whole table is cheap (SQLite counts
    /// its smallest index) and the items of excluded folders are found by item_by_folder,
    /// so the common scopes are counted by difference rather than by a filtered scan.
    private static func count(
        _ db: Database, scope: PageScope, favoritesOnly: Bool, where scopeSQL: String,
        arguments: [DatabaseValueConvertible]
    ) throws -> Int {
        func fetch(_ sql: String, _ arguments: [DatabaseValueConvertible] = []) throws -> Int {
            try Int.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)) ?? 0
        }
        switch (scope, favoritesOnly) {
        case let (.all(excluded), false):
            let all = try fetch("SELECT COUNT(*) FROM item")
            guard !excluded.isEmpty else { return all }
            return all - (try fetch("SELECT COUNT(*) FROM item WHERE folderId IN (\(placeholders(excluded.count)))", excluded))
        case (.topLevel, false):
            return try fetch("SELECT COUNT(*) FROM item") - (try fetch("SELECT COUNT(*) FROM item WHERE folderId IS NOT NULL"))
        default:
            return try fetch("SELECT COUNT(*) FROM item WHERE \(scopeSQL)", arguments)
        }
    }

    private static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ",")
    }
}
