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
        // The tally's rule (migration v3): any non-zero value is a favourite.
        if favoritesOnly { conditions.append("favorite != 0") }
        var pageSQL = conditions.isEmpty ? "1" : conditions.joined(separator: " AND ")
        if let (key, id) = position {
            // `key <= ?` first, so that the index is entered at the position, not at the top.
            pageSQL += " AND \(Self.sortKey) <= ? AND (\(Self.sortKey) < ? OR id > ?)"
            arguments += [key, key, id]
        }
        return try read { db in
            let items = try ItemRecord.fetchAll(db, sql: """
                SELECT * FROM item \(index) WHERE \(pageSQL) ORDER BY \(Self.sortKey) DESC, id LIMIT ?
                """, arguments: StatementArguments(arguments + [limit]))
            return (items, try Self.count(db, scope: scope, favoritesOnly: favoritesOnly))
        }
    }

    /// How many items a scope holds, from the per-folder tally the catalog's triggers
    /// keep (migration `v3`, docs/FORMAT.md §3.3): a sum over folders, whatever the
    /// number of items.
    private static func count(_ db: Database, scope: PageScope, favoritesOnly: Bool) throws -> Int {
        let column = favoritesOnly ? "favorites" : "items"
        let (condition, arguments): (String, [DatabaseValueConvertible]) = switch scope {
        case let .all(excluded) where excluded.isEmpty: ("1", [])
        case let .all(excluded): ("folder NOT IN (\(placeholders(excluded.count)))", excluded)
        case .topLevel: ("folder = ''", [])
        case let .folder(id): ("folder = ?", [id])
        }
        return try Int.fetchOne(db, sql: "SELECT ifnull(SUM(\(column)), 0) FROM item_tally WHERE \(condition)",
                                arguments: StatementArguments(arguments)) ?? 0
    }

    private static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ",")
    }
}
