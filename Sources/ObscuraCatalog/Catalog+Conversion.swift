import Foundation
import GRDB
import ObscuraCrypto
import ObscuraPages

/// Moving a version 3 catalog image into a paged catalog (docs/FORMAT.md §9.7), and
/// making a new paged catalog's schema.
extension Catalog {
    /// Copies the database `image` (a version 3 catalog) into the new, empty paged
    /// catalog `paged`, in one transaction: its tables, rows, indexes and triggers, its
    /// migrations table and its `user_version`.
    ///
    /// The image is attached as an in-memory schema of the paged connection, so its pages
    /// never pass through the paged VFS, and detached after the copy.
    /// - Returns: the image's rows per table and its items' rowids and ids
    ///   (``itemKeys()``), for checking the copy.
    /// - Throws: ``CatalogError/invalidImage`` when the image is not a valid database.
    @discardableResult
    package static func copy(image: [UInt8], into paged: PagedCatalog) throws -> (rows: [String: Int], items: [String]) {
        try paged.queue.writeWithoutTransaction { db in
            try db.execute(sql: "ATTACH DATABASE ':memory:' AS source")
            defer { try? db.execute(sql: "DETACH DATABASE source") }
            do {
                try load(image, into: db, schema: "source")
            } catch {
                throw CatalogError.invalidImage
            }
            try db.inTransaction {
                // Rows may reference rows of tables created later (folders, items).
                try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
                let objects = try Row.fetchAll(db, sql: """
                    SELECT type, name, sql FROM source.sqlite_schema
                    WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid
                    """)
                // A virtual table (the FTS5 search index, migration v4) is made anew from
                // its statement and filled from the copied rows, never copied: its shadow
                // tables are its own business. They go with it.
                let virtual = objects.filter { ($0["type"] as String?) == "table" && Self.isVirtual($0["sql"]) }
                let shadows = virtual.map { ($0["name"] as String) + "_" }
                let tables = objects.filter { object in
                    guard (object["type"] as String?) == "table", !Self.isVirtual(object["sql"]) else { return false }
                    let name: String = object["name"]
                    return !shadows.contains { name.hasPrefix($0) }
                }
                // Tables first and filled, then indexes and triggers over the copied rows:
                // a trigger must not fire for rows that are only being copied.
                for table in tables { try db.execute(sql: table["sql"] as String) }
                for table in tables { try Self.copyRows(of: table["name"], in: db) }
                for table in virtual {
                    let name = (table["name"] as String).replacingOccurrences(of: "\"", with: "\"\"")
                    try db.execute(sql: table["sql"] as String)
                    // The index's columns are those of the image's schema version (v4, v8), and
                    // what it takes of a view-limited note that of its triggers (v10), which
                    // are copied from the image below.
                    let columns = name == "item_search"
                        ? try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('item_search', 'main')") : []
                    let hiding = try Bool.fetchOne(db, sql: """
                        SELECT COUNT(*) > 0 FROM source.sqlite_schema
                        WHERE name = 'item_search_update' AND sql LIKE '%viewsLeft%'
                        """) ?? false
                    try db.execute(sql: name == "item_search"
                        ? CatalogSchema.searchFill(columns, hidingViewLimited: hiding)
                        : "INSERT INTO main.\"\(name)\" (\"\(name)\") VALUES ('rebuild')")
                }
                if try Bool.fetchOne(db, sql: "SELECT COUNT(*) > 0 FROM source.sqlite_schema WHERE name = 'sqlite_sequence'") == true {
                    try db.execute(sql: "INSERT INTO main.sqlite_sequence SELECT * FROM source.sqlite_sequence")
                }
                for object in objects where (object["type"] as String?) != "table" { try db.execute(sql: object["sql"] as String) }
                let version = try Int.fetchOne(db, sql: "PRAGMA source.user_version") ?? 0
                try db.execute(sql: "PRAGMA main.user_version = \(version)")
                return .commit
            }
            return (try rowCounts(in: db, schema: "source"), try itemKeys(in: db, schema: "source"))
        }
    }

    /// Copies the rows of table `name` from `source` to `main` **with their rowids**
    /// (docs/FORMAT.md §9.7): rows elsewhere name an item by its rowid (the search index,
    /// and the text index of docs/SEARCH.md §S4.1), so a copy that renumbered `item` would
    /// give one item's words to another. Columns are named, never `*`; a `WITHOUT ROWID`
    /// table has no rowid to keep, and a table whose rowid is its `INTEGER PRIMARY KEY`
    /// keeps it through that column.
    private static func copyRows(of name: String, in db: Database) throws {
        let quoted = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        let columns = try Row.fetchAll(db, sql: "SELECT name, type, pk FROM pragma_table_info(?, 'source')", arguments: [name])
        let withoutRowid = try Bool.fetchOne(
            db, sql: "SELECT wr FROM pragma_table_list WHERE schema = 'source' AND name = ?", arguments: [name]) ?? false
        let keys = columns.filter { ($0["pk"] as Int) > 0 }
        let aliased = keys.count == 1 && (keys[0]["type"] as String).uppercased() == "INTEGER"
        var names = columns.map { "\"" + ($0["name"] as String).replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        if !withoutRowid && !aliased { names.insert("rowid", at: 0) }
        let list = names.joined(separator: ", ")
        try db.execute(sql: "INSERT INTO main.\(quoted) (\(list)) SELECT \(list) FROM source.\(quoted)")
    }

    /// Every item as "rowid id", by rowid, then every picture index row as "index seq id
    /// digest", the id its `itemRowid` names and a digest of its text or box: what a
    /// conversion must keep exactly, beside the row counts (a renumbering keeps the counts,
    /// and would pair one item's text with another; review round 2, R2-5).
    package func itemKeys() throws -> [String] {
        try read { db in try Self.itemKeys(in: db, schema: "main") }
    }

    static func itemKeys(in db: Database, schema: String) throws -> [String] {
        let items = try String.fetchAll(db, sql: "SELECT rowid || ' ' || id FROM \(schema).item ORDER BY rowid")
        let indexed = try Bool.fetchOne(
            db, sql: "SELECT COUNT(*) > 0 FROM \(schema).sqlite_schema WHERE type = 'table' AND name = 'item_index'") ?? false
        guard indexed else { return items }
        let rows = try Row.fetchAll(db, sql: """
            SELECT x.seq, item.id, x.ocrText, x.sealed FROM \(schema).item_index x
            LEFT JOIN \(schema).item ON item.rowid = x.itemRowid ORDER BY x.seq
            """)
        return items + rows.map { row in
            let content = Array(((row["ocrText"] as String?).map { Data($0.utf8) } ?? row["sealed"] ?? Data()))
            let digest = SHA256Digest.hash(content).prefix(8).map { String(format: "%02x", $0) }.joined()
            return "index \(row["seq"] as Int64) \(row["id"] as String? ?? "none") \(digest)"
        }
    }

    /// Applies the catalog schema's migrations to a new paged catalog (the same tables a
    /// version 3 catalog image has).
    static func applySchema(to paged: PagedCatalog) throws {
        try CatalogSchema.migrator.migrate(paged.queue)
    }

    /// Rows per table, for checking a conversion's copy against its source.
    package func rowCounts() throws -> [String: Int] {
        try read { db in try Self.rowCounts(in: db, schema: "main") }
    }

    /// Whether a `sqlite_schema` statement makes a virtual table.
    private static func isVirtual(_ sql: String?) -> Bool {
        sql?.uppercased().hasPrefix("CREATE VIRTUAL TABLE") == true
    }

    /// Rows per ordinary table: a virtual table and its shadow tables are rebuilt, not
    /// copied, and their rows need not match.
    private static func rowCounts(in db: Database, schema: String) throws -> [String: Int] {
        var counts = [String: Int]()
        let objects = try Row.fetchAll(
            db, sql: "SELECT name, sql FROM \(schema).sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        let shadows = objects.filter { isVirtual($0["sql"]) }.map { ($0["name"] as String) + "_" }
        let tables = objects.filter { !isVirtual($0["sql"]) }.map { $0["name"] as String }
            .filter { name in !shadows.contains { name.hasPrefix($0) } }
        for table in tables {
            let name = table.replacingOccurrences(of: "\"", with: "\"\"")
            counts[table] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(schema).\"\(name)\"") ?? 0
        }
        return counts
    }

    /// Whether SQLite finds the database sound (`PRAGMA quick_check`): every page it holds
    /// is read, so a paged catalog's are verified down the tag tree too.
    package func isIntact() throws -> Bool {
        try read { db in try String.fetchOne(db, sql: "PRAGMA quick_check") == "ok" }
    }
}
