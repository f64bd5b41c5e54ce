import GRDB

/// The months a scope's items were captured in, for the gallery's date scrubber (issue 17,
/// point 5): the statement behind `Vault.months(scope:favoritesOnly:)` (ObscuraKit).
extension Catalog {
    /// How many items of `scope` (favourites only when `favoritesOnly`) each month holds,
    /// newest first, months as `YYYY-MM` of the sort key in UTC; months with none left out.
    /// One walk of item_by_sort, which yields the months in order, so the grouping needs no
    /// sort of its own.
    package func months(_ scope: ListingScope, favoritesOnly: Bool) throws -> [(month: String, count: Int)] {
        var conditions = ["deletedAt IS NULL"]
        var arguments: [DatabaseValueConvertible] = []
        var index = "INDEXED BY item_by_sort"
        switch scope {
        case let .all(excluded):
            if !excluded.isEmpty {
                conditions.append("(folderId IS NULL OR folderId NOT IN (\(excluded.map { _ in "?" }.joined(separator: ","))))")
                arguments += excluded
            }
        case .topLevel:
            conditions.append("folderId IS NULL")
        case let .folder(id):
            conditions.append("folderId = ?")
            arguments.append(id)
            index = ""
        case .trash:
            return []
        }
        if favoritesOnly { conditions.append("favorite != 0") }
        return try read { db in
            try Row.fetchAll(db, sql: """
                SELECT strftime('%Y-%m', \(Self.sortKey), 'unixepoch') AS month, COUNT(*) AS count
                FROM item \(index) WHERE \(conditions.joined(separator: " AND "))
                GROUP BY month ORDER BY month DESC
                """, arguments: StatementArguments(arguments))
                .map { ($0["month"], $0["count"]) }
        }
    }
}
