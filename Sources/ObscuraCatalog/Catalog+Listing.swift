import GRDB

/// Pages of items in the gallery order (docs/FORMAT.md §3.3): the statements behind
/// `Vault.itemListing(scope:filter:after:limit:)` (ObscuraKit), which turns a session's view (open and
/// locked folders, the cursor, a search) into a ``ListingScope``, a ``ListingFilter`` and a
/// position.
extension Catalog {
    /// Which items a page draws from, in the catalog's terms: folder ids.
    package enum ListingScope: Equatable {
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
    package struct ListingFilter: Equatable {
        /// Favourites only.
        var favoritesOnly = false
        /// Only this kind.
        var kind: ItemKind?
        /// Only items whose sort key is at least this.
        var from: Double?
        /// Only items whose sort key is below this.
        var before: Double?
        /// Only items whose name, place or note text holds this text (case-insensitively),
        /// or whose picture's text (the word index, Catalog+WordIndex.swift) has every
        /// word of it as a word or a word's start, outside the trash.
        var text: String?
        /// Only items whose place holds this text (case-insensitively).
        var place: String?

        /// Whether the filter keeps every item, so that the tally can count the scope.
        var keepsAll: Bool { !favoritesOnly && kind == nil && from == nil && before == nil && text == nil && place == nil }

        /// A filter; the defaults keep every item.
        package init(
            favoritesOnly: Bool = false,
            kind: ItemKind? = nil,
            from: Double? = nil,
            before: Double? = nil,
            text: String? = nil,
            place: String? = nil
        ) {
            self.favoritesOnly = favoritesOnly
            self.kind = kind
            self.from = from
            self.before = before
            self.text = text
            self.place = place
        }
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
    package func listing(
        _ scope: ListingScope, filter: ListingFilter, after position: (key: Double, id: String)?, limit: Int
    ) throws -> (items: [ItemRecord], total: Int) {
        // Columns are named with their table: a search joins item_search, which has a
        // `name` and a `place` of its own.
        var conditions: [String] = []
        var arguments: [DatabaseValueConvertible] = []
        var key = Self.sortKey
        // The whole-catalog scopes walk item_by_sort in order and stop after one page; a
        // folder's few items are found by item_by_folder and sorted. A kind walks
        // item_by_kind, which is item_by_sort per kind.
        var index = filter.kind == nil ? "INDEXED BY item_by_sort" : "INDEXED BY item_by_kind"
        switch scope {
        case let .all(excluded):
            conditions.append("item.deletedAt IS NULL")
            if !excluded.isEmpty {
                conditions.append("(item.folderId IS NULL OR item.folderId NOT IN (\(Self.placeholders(excluded.count))))")
                arguments += excluded
            }
        case .topLevel:
            conditions += ["item.deletedAt IS NULL", "item.folderId IS NULL"]
        case let .folder(id):
            conditions += ["item.deletedAt IS NULL", "item.folderId = ?"]
            arguments.append(id)
            index = ""
        case let .trash(excluded):
            conditions.append("item.deletedAt IS NOT NULL")
            if !excluded.isEmpty {
                conditions.append("(item.folderId IS NULL OR item.folderId NOT IN (\(Self.placeholders(excluded.count))))")
                arguments += excluded
            }
            key = "item.deletedAt"
            index = "INDEXED BY item_in_trash"
        }
        let scopeConditions = conditions.count
        // The tally's rule (migration v3): any non-zero value is a favourite.
        if filter.favoritesOnly { conditions.append("item.favorite != 0") }
        if let kind = filter.kind {
            conditions.append("item.kind = ?")
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
        // The picture's text is searched word by word in the word index, which holds no
        // trashed item; the trash is searched by names, places and notes only.
        var words: String?
        if case .trash = scope {} else { words = filter.text.flatMap(Self.wordQuery) }
        if let query = words {
            try fillWordIndex()
            // No picture holds the words: the name index alone answers, as before there
            // was a word index (its plans are the ones measured, BENCHMARKS.md).
            let any = try read { db in
                try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM temp.ocr_words WHERE ocr_words MATCH ?)", arguments: [query])
            }
            if any != true { words = nil }
        }
        // Text of three characters or more goes to the search index, which holds no
        // trashed item; shorter text, and any text in the trash, is matched row by row.
        var phrases = [String]()
        var named: (match: String?, like: String?)?
        for (text, columns) in [(filter.text, Self.searchColumns), (filter.place, ["place"])] {
            guard let text, !text.isEmpty else { continue }
            if words != nil && columns == Self.searchColumns {
                // Either index may match: kept apart from the place's phrase (below).
                named = text.count >= Self.shortestIndexedText ? (Self.phrase(text, in: columns), nil) : (nil, text)
                continue
            }
            if case .trash = scope {} else if text.count >= Self.shortestIndexedText {
                phrases.append(Self.phrase(text, in: columns))
                continue
            }
            conditions.append(Self.likeCondition(columns))
            arguments += columns.map { _ in Self.likePattern(text) }
        }
        // The rowids either index matches, as one set: SQLite builds it once per statement
        // and probes it by rowid. Neither index holds a trashed or a protected item.
        var union: (sql: String, arguments: [DatabaseValueConvertible])?
        if let words, let named {
            let nameSide = named.match != nil
                ? "SELECT rowid FROM item_search WHERE item_search MATCH ?"
                : "SELECT rowid FROM item WHERE item.deletedAt IS NULL AND " + Self.likeCondition(Self.searchColumns)
            union = ("\(nameSide) UNION SELECT rowid FROM temp.ocr_words WHERE ocr_words MATCH ?",
                     (named.match.map { [$0] } ?? Self.searchColumns.map { _ in Self.likePattern(named.like!) }) + [words])
        }
        let match = phrases.isEmpty ? nil : phrases.joined(separator: " AND ")
        if let union, match != nil {
            // With a place's phrase, the place's index leads and the set is one condition.
            conditions.append("item.rowid IN (\(union.sql))")
            arguments += union.arguments
        }
        // The index holds only items outside the trash and outside protected folders, the
        // only folders a whole-catalog scope leaves out (Vault.itemListing): with no other
        // condition, its count of the match is the total.
        var countsInTheIndex = false
        if case .all = scope, conditions.count == scopeConditions { countsInTheIndex = true }
        let whereSQL = conditions.joined(separator: " AND ")
        var pageSQL = whereSQL
        var pageArguments = arguments
        if let (at, id) = position {
            // `key <= ?` first, so that the index is entered at the position, not at the top.
            pageSQL += " AND \(key) <= ? AND (\(key) < ? OR item.id > ?)"
            pageArguments += [at, at, id]
        }
        // The tally counts a library scope, and its favourites, without reading the rows.
        var tallied: Bool?
        if case .trash = scope {} else if filter.keepsAll {
            tallied = false
        } else if filter == ListingFilter(favoritesOnly: true) {
            tallied = true
        }
        return try read { db in
            if let union, match == nil {
                return try Self.listing(db, union: union, scope: scope, index: index, key: key, limit: limit,
                                        conditions: (whereSQL, arguments), page: (pageSQL, pageArguments),
                                        scopeOnly: conditions.count == scopeConditions)
            }
            guard let match else {
                let items = try ItemRecord.fetchAll(db, sql: """
                    SELECT * FROM item \(index) WHERE \(pageSQL) ORDER BY \(key) DESC, item.id LIMIT ?
                    """, arguments: StatementArguments(pageArguments + [limit]))
                let total = try tallied.map { try Self.count(db, scope: scope, favoritesOnly: $0) }
                    ?? Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item WHERE \(whereSQL)", arguments: StatementArguments(arguments))
                    ?? 0
                return (items, total)
            }
            // How many items the index matches decides how to read the page. When they are
            // most of the scope, the gallery's index is walked in order and each row looked
            // up in the search index, stopping after one page (a text every name holds:
            // "img"). Otherwise the matches are read from the search index and sorted:
            // looking up a row that does not match costs far more than one that does.
            let matches = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item_search WHERE item_search MATCH ?", arguments: [match]) ?? 0
            let scopeSize = try Self.count(db, scope: scope, favoritesOnly: false)
            let dense = index != "" && matches * 2 >= scopeSize
            let items = try ItemRecord.fetchAll(db, sql: dense ? """
                SELECT * FROM item \(index) WHERE \(pageSQL) AND EXISTS (
                    SELECT 1 FROM item_search WHERE item_search MATCH ? AND item_search.rowid = item.rowid)
                ORDER BY \(key) DESC, item.id LIMIT ?
                """ : """
                SELECT item.* FROM item_search CROSS JOIN item ON item.rowid = item_search.rowid
                WHERE item_search MATCH ? AND \(pageSQL) ORDER BY \(key) DESC, item.id LIMIT ?
                """, arguments: StatementArguments(dense ? pageArguments + [match, limit] : [match] + pageArguments + [limit]))
            let total = countsInTheIndex ? matches : try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM item_search CROSS JOIN item ON item.rowid = item_search.rowid
                WHERE item_search MATCH ? AND \(whereSQL)
                """, arguments: StatementArguments([match] + arguments)) ?? 0
            return (items, total)
        }
    }

    /// A page of a text search over both indexes (the name index and the word index of
    /// pictures' text), read as the name index's own search is: when the matches are
    /// most of the scope, the gallery's index is walked in order and each row probed in
    /// the set, stopping after one page; otherwise the set's rows are read and sorted.
    private static func listing(
        _ db: Database, union: (sql: String, arguments: [DatabaseValueConvertible]), scope: ListingScope, index: String,
        key: String, limit: Int, conditions: (String, [DatabaseValueConvertible]), page: (String, [DatabaseValueConvertible]),
        scopeOnly: Bool
    ) throws -> (items: [ItemRecord], total: Int) {
        let matches = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(union.sql))", arguments: StatementArguments(union.arguments)) ?? 0
        // Walking the gallery's index in order costs about scope / matches rows a page;
        // reading the set costs its size: the walk wins from about √(limit × scope)
        // matches (measured by the review of step 2, S3), never for a small set.
        let scopeSize = try count(db, scope: scope, favoritesOnly: false)
        let dense = index != "" && Double(matches) >= (Double(limit) * Double(scopeSize)).squareRoot()
        let member = "item.rowid IN (\(union.sql))"
        let items = try ItemRecord.fetchAll(db, sql: dense
            ? "SELECT * FROM item \(index) WHERE \(page.0) AND \(member) ORDER BY \(key) DESC, item.id LIMIT ?"
            : "SELECT * FROM item WHERE \(member) AND \(page.0) ORDER BY \(key) DESC, item.id LIMIT ?",
            arguments: StatementArguments(dense ? page.1 + union.arguments + [limit] : union.arguments + page.1 + [limit]))
        // A whole-catalog scope with no other condition holds every match: neither index
        // holds an item of the trash or of a protected folder (the only ones it leaves out).
        var total = matches
        if case .all = scope, scopeOnly {} else {
            total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item WHERE \(member) AND \(conditions.0)",
                                     arguments: StatementArguments(union.arguments + conditions.1)) ?? 0
        }
        return (items, total)
    }

    /// How many items a scope holds, from the per-folder tally the catalog's triggers
    /// keep (migrations `v3` and `v4`, docs/FORMAT.md §3.3): a sum over folders, whatever
    /// the number of items. The tally leaves out the trash.
    private static func count(_ db: Database, scope: ListingScope, favoritesOnly: Bool) throws -> Int {
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

    /// The search index's columns (migrations `v4` and `v8`, docs/FORMAT.md §3.3).
    static let searchColumns = CatalogSchema.noteSearchColumns

    /// An FTS5 query for `text` as one phrase in `columns`: the text between double quotes,
    /// its own double quotes doubled, so that no character of it is query syntax. A phrase
    /// in every column has no column filter: FTS5 then counts matches without reading
    /// where in a row each one is, about 15% faster for a text every name holds.
    static func phrase(_ text: String, in columns: [String]) -> String {
        let quoted = "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        return Set(columns) == Set(searchColumns) ? quoted : "{\(columns.joined(separator: " "))} : " + quoted
    }

    /// `item` rows where any of `columns` holds a ``likePattern(_:)`` (one argument per
    /// column). A view-limited note's text is not searched (migration v10), as in the index.
    static func likeCondition(_ columns: [String]) -> String {
        "(" + columns.map { column in
            "item.\(column) LIKE ? ESCAPE '\\'" + (column == "noteText" ? " AND item.viewsLeft IS NULL" : "")
        }.joined(separator: " OR ") + ")"
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
