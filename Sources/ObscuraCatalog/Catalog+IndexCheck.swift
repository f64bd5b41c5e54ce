import GRDB

extension Catalog {
    /// The rows that break the picture index's invariants I1–I5 (docs/FORMAT.md §3.3,
    /// "The picture index"), each said with the invariant and the row's `seq`; empty in a
    /// sound catalog. I6 (no update of identity or text) is the `item_index_fixed`
    /// trigger's. For the consistency checks of tests and audits.
    package func indexInvariantViolations() throws -> [String] {
        try read { db in
            let protected = Self.protectedFolders
            let checks: [(String, String)] = [
                ("I1 names no item", "SELECT seq FROM item_index WHERE itemRowid NOT IN (SELECT rowid FROM item)"),
                ("I1 a second row of one item", """
                    SELECT seq FROM item_index x WHERE EXISTS (SELECT 1 FROM item_index y WHERE y.itemRowid = x.itemRowid AND y.seq != x.seq)
                    """),
                ("I2 vector without its row, or of a row that may hold none", """
                    SELECT v.seq FROM item_vector v LEFT JOIN item_index x ON x.seq = v.seq LEFT JOIN item i ON i.rowid = x.itemRowid
                    WHERE x.seq IS NULL OR i.rowid IS NULL OR i.viewsLeft IS NOT NULL OR i.folderId IN \(protected)
                       OR x.sealed IS NOT NULL OR x.state & 2 = 0 OR length(v.vector) != \(IndexLimits.vectorSize)
                    """),
                ("I3 protected item's row is neither a box nor the placeholder", """
                    SELECT x.seq FROM item_index x JOIN item i ON i.rowid = x.itemRowid WHERE i.folderId IN \(protected)
                    AND NOT ((x.state = 128 AND length(x.sealed) = \(IndexLimits.boxSize) AND x.ocrText IS NULL
                              AND x.textProfile IS NULL AND x.vectorProfile IS NULL AND i.viewsLeft IS NULL)
                          OR (x.state = 64 AND x.sealed IS NULL AND x.ocrText IS NULL AND x.textProfile IS NULL AND x.vectorProfile IS NULL
                              AND i.viewsLeft IS NOT NULL))
                    """),
                ("I4 view-limited item's row is not the placeholder", """
                    SELECT x.seq FROM item_index x JOIN item i ON i.rowid = x.itemRowid WHERE i.viewsLeft IS NOT NULL
                    AND NOT (x.state = 64 AND x.sealed IS NULL AND x.ocrText IS NULL AND x.textProfile IS NULL AND x.vectorProfile IS NULL)
                    """),
                ("I5 plaintext row with a box, other flags or text over the cap", """
                    SELECT x.seq FROM item_index x JOIN item i ON i.rowid = x.itemRowid
                    WHERE i.viewsLeft IS NULL AND (i.folderId IS NULL OR i.folderId NOT IN \(protected))
                    AND (x.sealed IS NOT NULL OR x.state & ~\(IndexState.outcomes.rawValue) != 0
                         OR length(CAST(x.ocrText AS BLOB)) > \(IndexLimits.textCap))
                    """),
            ]
            var found = [String]()
            for (name, sql) in checks {
                found += try Int64.fetchAll(db, sql: sql).map { "\(name): row \($0)" }
            }
            return found
        }
    }
}
