import GRDB

extension Catalog {
    /// The item tally's non-zero rows, and the same figures counted from the rows
    /// (folder key, items, favourites, by folder key): equal in a sound catalog
    /// (docs/FORMAT.md §3.3). For the consistency checks of tests and audits.
    package func tallyAndCounts() throws -> (tally: [[DatabaseValue]], counted: [[DatabaseValue]]) {
        try database.read { db in
            (try Row.fetchAll(db, sql: "SELECT folder, items, favorites FROM item_tally WHERE items > 0 OR favorites > 0 ORDER BY folder")
                .map { Array($0.databaseValues) },
             try Row.fetchAll(db, sql: "SELECT ifnull(folderId, ''), COUNT(*), SUM(favorite != 0) FROM item WHERE deletedAt IS NULL GROUP BY 1 ORDER BY 1")
                .map { Array($0.databaseValues) })
        }
    }
}
