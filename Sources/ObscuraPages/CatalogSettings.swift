import GRDB

/// The SQLite settings every catalog connection runs with, pinned in one place: each one
/// keeps plaintext off the disk or keeps one SQLite transaction one store commit.
public enum CatalogSettings {
    /// The pragmas set on every connection, in order, with the value each reads back as.
    public static let pragmas: [(name: String, value: String, readBack: String)] = [
        // No other process opens the slot (the vault directory is locked), and holding the
        // lock keeps SQLite from re-reading page 1 at every transaction.
        ("locking_mode", "EXCLUSIVE", "exclusive"),
        // The rollback journal stays in memory: the VFS refuses every file but the main
        // database, and the store's commit is atomic by itself.
        ("journal_mode", "MEMORY", "memory"),
        // No page is written before the commit, so a transaction's pages reach the store
        // in the one commit that ends it.
        ("cache_spill", "OFF", "0"),
        // Freed cells and pages are zeroed, so a deleted row's bytes leave the next commit.
        ("secure_delete", "ON", "1"),
        // Pages are never mapped: every read goes through the VFS and its verification.
        ("mmap_size", "0", "0"),
        // Temporary tables and indices stay in memory: the VFS has no temporary files.
        ("temp_store", "MEMORY", "2"),
        // FULL makes SQLite call xSync at every commit, which is where the store commits.
        ("synchronous", "FULL", "2"),
        // A bounded page cache (16 MiB): with cache_spill off, a transaction may still
        // grow it, but reads do not.
        ("cache_size", "-16384", "-16384"),
        // A REPLACE's implicit delete fires no delete trigger, on every build alike: the
        // catalog's index triggers are written for that (docs/SEARCH.md §S4.1's write rules,
        // which forbid REPLACE on the rows they guard; Debian's default, pinned).
        ("recursive_triggers", "OFF", "0"),
        // The format's bound (§9.5 "Header and root", 240·252·252 pages): SQLite refuses to grow past
        // it with SQLITE_FULL, a clean failed transaction, before the VFS would have to.
        ("max_page_count", "\(PagesFormat.maxPages)", "\(PagesFormat.maxPages)"),
    ]

    /// Sets the pinned pragmas on `db` and checks that SQLite took each one.
    static func apply(_ db: Database) throws {
        for pragma in pragmas {
            try db.execute(sql: "PRAGMA \(pragma.name) = \(pragma.value)")
            let value = try String.fetchOne(db, sql: "PRAGMA \(pragma.name)")
            guard value == pragma.readBack else {
                throw PagesError.unsupported("SQLite did not take \(pragma.name) = \(pragma.value) (reads \(value ?? "nothing"))")
            }
        }
    }
}
