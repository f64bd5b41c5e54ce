import GRDB
import ObscuraCrypto
import Testing
import ObscuraPages

@Suite struct RoundTripTests {
    /// Rows written, closed and reopened from the header block read back the same, over
    /// enough pages for a dozen leaves.
    @Test func manyRowsSurviveReopen() throws {
        let (store, catalog) = try Fixture.create()
        try Fixture.fill(catalog, rows: 3000)
        let before = try Fixture.summary(catalog)
        let pages = catalog.backend.committedRoot.pageCount
        try catalog.close()
        #expect(before[0] == 3000)
        #expect(pages >= 3000)
        #expect(PageLayout.leafCount(pages: pages) >= 12)

        let reopened = try Fixture.reopen(store)
        #expect(try Fixture.summary(reopened) == before)
        let row = try reopened.read { db in try String.fetchOne(db, sql: "SELECT body FROM t WHERE id = 1234") }
        #expect(row?.hasPrefix("\(Fixture.marker)-001234-") == true)
        let check = try reopened.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
        #expect(check == "ok")
        try reopened.close()
        #expect(store.logicalCounts.last == PageLayout.logicalCount(pages: pages))
    }

    /// Creation is one commit (header and page 1, sequence 1), and page 1 records page
    /// size 4096 and 56 reserved bytes.
    @Test func creationCommitsPageOneWithTheReserve() throws {
        let (store, catalog) = try Fixture.create()
        #expect(store.commits.count == 1)
        #expect(Set(store.commits[0].keys) == [0, PageLayout.upper(0), PageLayout.leaf(0), PageLayout.page(1)])
        let root = catalog.backend.committedRoot
        #expect(root.sequence == 1 && root.generation == 1 && root.pageCount == 1 && root.seals == 3)
        let page1 = try catalog.backend.plaintextPage(1)
        #expect(Array(page1[0..<16]) == Array("SQLite format 3\0".utf8))
        #expect(Int(page1[16]) << 8 | Int(page1[17]) == 4096)
        #expect(page1[20] == 56)
        let reserve = try catalog.read { db in try Int.fetchOne(db, sql: "PRAGMA page_size") }
        #expect(reserve == 4096)
        try catalog.close()
    }
}
