import GRDB

/// Pages of items in the gallery order (docs/FORMAT.md §3.3): the statements behind
/// ``Vault/itemsPage(scope:filter:after:limit:)``, which turns a session's view (open and
/// locked folders, the cursor, a search) into a ``PageScope``, a ``PageFilter`` and a
/// position.
extension Catalog {
    /// Which items a page draws from, in the catalog's terms: folder ids.
    enum PageScope: Equatable {
        /// Every item except those of the folders `excluding` (a session's locked ones).
        case all(excluding: [String])
        /// The top level only.
        case topLevel
        /// The folder with this id.
        case folder(String)
        /// The items in the trash, except those of the folders `excluding`. Ordered by
        /// `deletedAt`, not the gallery's key: the most recently deleted first.
        case trash(excluding: [String])
    }

    /// What a page keeps of its scope, in the catalog's terms.
    struct PageFilter: Equatable {
        /// Favourites only.
        var favoritesOnly = false
        /// Only this kind.
        var kind: ItemKind?
        /// Only items whose sort key is at least this.
        var from: Double?
        /// Only items whose sort key is below this.
        var before: Double?
        /// Only items whose name or place holds this text (case-insensitively).
        var text: String?
        /// Only items whose place holds this text (case-insensitively).
        var place: String?

        /// Whether the filter keeps every item, so that the tally can count the scope.
        var keepsAll: Bool { !favoritesOnly && kind == nil && from == nil && before == nil && text == nil && place == nil }
    }

    /// The sort key of the gallery order, as SQL; the index item_by_sort indexes exactly
    /// this. The order is the key descending, then id ascending.
    static let sortKey = "COALESCE(takenAt, importedAt)"

    /// The trigram tokenizer's shortest query (migration v4): shorter text matches nothing
    /// in the index and is looked for row by row instead.
    static let shortestIndexedText = 3

    /// At most `limit` items of `scope` kept by `filter`, in the scope's order, starting
    /// after the item at `position` (its key and id) or at the top, and how many items the
    /// scope and filter hold in all; both read in one transaction.
    func page(
        _ scope: PageScope, filter: PageFilter, after position: (key: Double, id: String)?, limit: Int
    ) throws -> (items: [ItemRecord], total: Int) {
        var conditions: [String] = []
        var arguments: [DatabaseValueConvertible] = []
        var key = Self.sortKey
        // The whole-catalog scopes walk item_by_sort in order and stop after one page; a
        // folder's few items are found by item_by_folder and sorted, and a search's by
        // the search index. A kind walks item_by_kind, which is item_by_sort per kind.
        var index = filter.kind == nil ? "INDEXED BY item_by_sort" : "INDEXED BY item_by_kind"
        switch scope {
        case let .all(excluded):
            conditions.append("deletedAt IS NULL")
            if !excluded.isEmpty {
                conditions.append("(folderId IS NULL OR folderId NOT IN (\(Self.placeholders(excluded.count))))")
                arguments += excluded
            }
        case .topLevel:
            conditions += ["deletedAt IS NULL", "folderId IS NULL"]
        case let .folder(id):
            conditions += ["deletedAt IS NULL", "folderId = ?"]
            arguments.append(id)
            index = ""
        case let .trash(excluded):
            conditions.append("deletedAt IS NOT NULL")
            if !excluded.isEmpty {
                conditions.append("(folderId IS NULL OR folderId NOT IN (\(Self.placeholders(excluded.count))))")
                arguments += excluded
            }
            key = "deletedAt"
            index = "INDEXED BY item_in_trash"
        }
        // The tally's rule (migration v3): any non-zero value is a favourite.
        if filter.favoritesOnly { conditions.append("favorite != 0") }
        if let kind = filter.kind {
            conditions.append("kind = ?")
            arguments.append(kind.rawValue)
        }
        if let from = filter.from {
            conditions.append("\(Self.sortKey) >= ?")
            arguments.append(from)
        }
        if let before = filter.before {
            conditions.append("\(Self.sortKey) < ?")
            arguments.append(before)
        }
        for (text, columns) in [(filter.text, ["name", "place"]), (filter.place, ["place"])] {
            guard let text, !text.isEmpty else { continue }
            if text.count >= Self.shortestIndexedText {
                conditions.append("rowid IN (SELECT rowid FROM item_search WHERE item_search MATCH ?)")
                arguments.append(Self.phrase(text, in: columns))
                if case .trash = scope {} else { index = "" }
            } else {
                conditions.append("(" + columns.map { "\($0) LIKE ? ESCAPE '\\'" }.joined(separator: " OR ") + ")")
                arguments += columns.map { _ in Self.likePattern(text) }
            }
        }
        let whereSQL = conditions.joined(separator: " AND ")
        var pageSQL = whereSQL
        var pageArguments = arguments
        if let (at, id) = position {
            // `key <= ?` first, so that the index is entered at the position, not at the top.
            pageSQL += " AND \(key) <= ? AND (\(key) < ? OR id > ?)"
            pageArguments += [at, at, id]
        }
        // The tally counts a library scope, and its favourites, without reading the rows.
        var tallied: Bool?
        if case .trash = scope {} else if filter.keepsAll {
            tallied = false
        } else if filter == PageFilter(favoritesOnly: true) {
            tallied = true
        }
        return try read { db in
            let items = try ItemRecord.fetchAll(db, sql: """
                SELECT * FROM item \(index) WHERE \(pageSQL) ORDER BY \(key) DESC, id LIMIT ?
                """, arguments: StatementArguments(pageArguments + [limit]))
            let total = try tallied.map { try Self.count(db, scope: scope, favoritesOnly: $0) }
                ?? Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item WHERE \(whereSQL)", arguments: StatementArguments(arguments))
                ?? 0
            return (items, total)
        }
    }

    /// How many items a scope holds, from the per-folder tally the catalog's triggers
    /// keep (migrations `v3` and `v4`, docs/FORMAT.md §3.3): a sum over folders, whatever
    /// the number of items. The tally leaves out the trash.
    private static func count(_ db: Database, scope: PageScope, favoritesOnly: Bool) throws -> Int {
        let column = favoritesOnly ? "favorites" : "items"
        let (condition, arguments): (String, [DatabaseValueConvertible]) = switch scope {
        case let .all(excluded) where excluded.isEmpty: ("1", [])
        case let .all(excluded): ("folder NOT IN (\(placeholders(excluded.count)))", excluded)
        case .topLevel: ("folder = ''", [])
        case let .folder(id): ("folder = ?", [id])
        case .trash: ("0", [])
        }
        return try Int.fetchOne(db, sql: "SELECT ifnull(SUM(\(column)), 0) FROM item_tally WHERE \(condition)",
                                arguments: StatementArguments(arguments)) ?? 0
    }

    /// An FTS5 query for `text` as one phrase in `columns`: the text between double quotes,
    /// its own double quotes doubled, so that no character of it is query syntax.
    static func phrase(_ text: String, in columns: [String]) -> String {
        "{\(columns.joined(separator: " "))} : \"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A LIKE pattern that finds `text` anywhere, with LIKE's own characters escaped.
    static func likePattern(_ text: String) -> String {
        var escaped = ""
        for c in text {
            if c == "%" || c == "_" || c == "\\" { escaped.append("\\") }
            escaped.append(c)
        }
        return "%" + escaped + "%"
    }

    private static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ",")
    }
}
