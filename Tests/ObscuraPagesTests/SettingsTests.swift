import GRDB
import ObscuraCrypto
import ObscuraPages
import Testing

@Suite struct SettingsTests {
    /// Every pinned pragma reads back on the connection, after creation and after reopening.
    @Test func pinnedPragmasReadBack() throws {
        let expected = [
            "journal_mode": "memory", "locking_mode": "exclusive", "cache_spill": "0", "secure_delete": "1",
            "mmap_size": "0", "temp_store": "2", "synchronous": "2", "cache_size": "-16384",
            "max_page_count": "15240960", "recursive_triggers": "0",
        ]
        func check(_ catalog: PagedCatalog) throws {
            for (name, value) in expected {
                let read = try catalog.read { db in try String.fetchOne(db, sql: "PRAGMA \(name)") }
                #expect(read == value, "PRAGMA \(name)")
            }
        }
        let (store, created) = try Fixture.create()
        try check(created)
        try created.close()
        let reopened = try Fixture.reopen(store)
        try check(reopened)
        #expect(Dictionary(uniqueKeysWithValues: CatalogSettings.pragmas.map { ($0.name, $0.readBack) }) == expected)
        try reopened.close()
    }

    /// Temporary tables, big sorts, statement journals and VACUUM all run without the VFS
    /// ever being asked for a file other than the main database.
    @Test func nothingButTheMainDatabaseIsOpened() throws {
        let (store, catalog) = try Fixture.create()
        let refusedBefore = PagedCatalog.refusedOpens
        try Fixture.fill(catalog, rows: 400)
        let sorted = try catalog.write { db -> Int in
            try db.execute(sql: "CREATE TEMP TABLE scratch AS SELECT id, body FROM t ORDER BY body DESC")
            try db.execute(sql: "CREATE INDEX temp.byBody ON scratch(body)")
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT DISTINCT body FROM scratch ORDER BY random())")!
        }
        #expect(sorted == 400)
        // A statement that fails half-way inside a transaction undoes its part from the
        // statement journal (kept in memory with journal_mode MEMORY).
        #expect(throws: DatabaseError.self) {
            try catalog.write { db in try db.execute(sql: "UPDATE t SET id = id + 200 WHERE id < 300") }
        }
        try catalog.queue.writeWithoutTransaction { db in try db.execute(sql: "DELETE FROM t WHERE id % 2 = 0") }
        let before = catalog.backend.committedRoot.pageCount
        let commits = store.commits.count
        try catalog.queue.writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }
        let after = catalog.backend.committedRoot.pageCount
        #expect(after < before)
        // VACUUM's pages at its sync, then the shrink SQLite makes after that sync.
        #expect(store.commits.count == commits + 2)
        #expect(store.logicalCounts.last == PageLayout.logicalCount(pages: after))
        #expect(PagedCatalog.refusedOpens == refusedBefore)
        try catalog.close()
        let reopened = try Fixture.reopen(store)
        #expect(try Fixture.summary(reopened)[0] == 200)
        #expect(try reopened.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") } == "ok")
        try reopened.close()
    }

    /// No committed block holds a row's text or SQLite's header in clear, through inserts,
    /// updates and deletes.
    @Test func theStoreNeverSeesPlaintext() throws {
        let (store, catalog) = try Fixture.create()
        try Fixture.fill(catalog, rows: 300)
        try catalog.write { db in try db.execute(sql: "UPDATE t SET body = body || 'x' WHERE id % 7 = 0") }
        try catalog.write { db in try db.execute(sql: "DELETE FROM t WHERE id % 5 = 0") }
        try catalog.close()
        let needles = [Array(Fixture.marker.utf8), Array("SQLite format 3".utf8), Array("CREATE TABLE".utf8)]
        var scanned = 0
        for commit in store.commits {
            for block in commit.values {
                for needle in needles { #expect(!contains(block, needle)) }
                scanned += 1
            }
        }
        #expect(scanned > 300)
    }
}
