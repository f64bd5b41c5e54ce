import GRDB
import ObscuraCrypto
import ObscuraPages
import Testing

@Suite struct CommitTests {
    /// On a database of more than 2,000 pages, a one-row update commits only its page, its
    /// leaf, its upper node and the header; an insert at the end a few more. One SQLite
    /// transaction calls xSync once and makes one store commit.
    @Test func smallWritesCommitFewBlocks() throws {
        let (store, catalog) = try Fixture.create()
        try Fixture.fill(catalog, rows: 2200)
        let pages = catalog.backend.committedRoot.pageCount
        #expect(pages >= 2000)

        let commitsBefore = store.commits.count
        let syncsBefore = catalog.backend.syncCalls
        try catalog.write { db in
            try db.execute(sql: "UPDATE t SET body = replace(body, 'MARKER', 'marker') WHERE id = 1500")
        }
        #expect(store.commits.count == commitsBefore + 1)
        #expect(catalog.backend.syncCalls == syncsBefore + 1)
        let update = store.commits.last!
        #expect(update.count <= 8)
        #expect(update[0] != nil)

        try catalog.write { db in
            try db.execute(sql: "INSERT INTO t(id, body) VALUES (100000, hex(randomblob(1400)))")
        }
        let insert = store.commits.last!
        #expect(insert.count <= 8)
        #expect(store.commits.count == commitsBefore + 2)
        #expect(catalog.backend.syncCalls == syncsBefore + 2)
        print("ObscuraPages: \(pages) pages; one-row update committed \(update.count) blocks "
              + "(\(pageNumbers(in: update, pages: pages + 1).count) pages); insert committed \(insert.count) blocks "
              + "(\(pageNumbers(in: insert, pages: pages + 1).count) pages)")

        // A transaction that reads only makes no commit.
        _ = try Fixture.summary(catalog)
        #expect(store.commits.count == commitsBefore + 2)
        try catalog.close()
    }

    /// A commit that would take the generation's seal count to its budget starts
    /// generation g+1: every page and node is re-sealed, and the catalog reopens.
    @Test func sealBudgetStartsANewGeneration() throws {
        let (store, catalog) = try Fixture.create()
        try Fixture.fill(catalog, rows: 600)
        let before = try Fixture.summary(catalog)
        let root = catalog.backend.committedRoot
        catalog.backend.sealBudget = root.seals + 3
        try catalog.write { db in try db.execute(sql: "UPDATE t SET body = body || 'y' WHERE id = 10") }
        let next = catalog.backend.committedRoot
        #expect(next.generation == root.generation + 1)
        let expectedSeals = next.pageCount + PageLayout.leafCount(pages: next.pageCount)
            + PageLayout.upperCount(pages: next.pageCount)
        #expect(next.seals == UInt64(expectedSeals))
        #expect(store.commits.last!.count == PageLayout.logicalCount(pages: next.pageCount))
        try catalog.close()

        let reopened = try Fixture.reopen(store)
        #expect(try Fixture.summary(reopened)[0] == before[0])
        #expect(try Fixture.summary(reopened)[1] == before[1] + 1)
        try reopened.close()
    }

    /// A tree of two upper nodes, written page by page without SQL: the pages on both
    /// sides of the 63,504-page boundary read back, and a one-page change in the second
    /// upper node commits four blocks.
    @Test func secondUpperNode() throws {
        let store = MemoryPageStore()
        let t = PagesFormat.tagsPerNode
        let count = t * t + 300
        let file = try PagedFile.empty(store: store, mek: Fixture.mek, prefix: Fixture.prefix, random: SystemRandom())
        var page = [UInt8](repeating: 0, count: PagesFormat.pageSize)
        for k in 1...count {
            page.withUnsafeMutableBytes { $0.storeBytes(of: UInt32(k).bigEndian, toByteOffset: 0, as: UInt32.self) }
            try page.withUnsafeBytes { try file.write($0, offset: (k - 1) * PagesFormat.pageSize) }
        }
        try file.sync()
        #expect(store.logicalCounts.last == PageLayout.page(count) + 1)
        #expect(file.committedRoot.upperTags.count == 2)

        let reopened = try PagedFile.open(store: store, mek: Fixture.mek, headerBlock: store.header, random: SystemRandom())
        for k in [1, t, t * t, t * t + 1, count] {
            let read = try reopened.plaintextPage(k)
            #expect(read.prefix(4) == ArraySlice([UInt8](withUnsafeBytes(of: UInt32(k).bigEndian) { Array($0) })))
        }
        page.withUnsafeMutableBytes { $0.storeBytes(of: UInt32(7).bigEndian, toByteOffset: 100, as: UInt32.self) }
        try page.withUnsafeBytes { try reopened.write($0, offset: (count - 1) * PagesFormat.pageSize) }
        try reopened.sync()
        #expect(Set(store.commits.last!.keys) == [
            0, PageLayout.upper(1), PageLayout.leaf(PageLayout.leafIndex(ofPage: count)), PageLayout.page(count),
        ])
        // Truncating back into the first upper node drops the second one's tag.
        try reopened.truncate(to: 100 * PagesFormat.pageSize)
        try reopened.sync()
        #expect(reopened.committedRoot.upperTags.count == 1)
        #expect(store.logicalCounts.last == PageLayout.page(100) + 1)
        let again = try PagedFile.open(store: store, mek: Fixture.mek, headerBlock: store.header, random: SystemRandom())
        #expect(try again.plaintextPage(100).prefix(4) == [0, 0, 0, 100])
    }

    /// Shrinking across a leaf boundary (253 → 252 pages) leaves every remaining leaf's
    /// child count as it was, yet the upper node must drop the vanished leaf's tag: a
    /// reader checks that entries past the last child are zero.
    @Test func shrinkAcrossALeafBoundary() throws {
        let store = MemoryPageStore()
        let t = PagesFormat.tagsPerNode
        let file = try PagedFile.empty(store: store, mek: Fixture.mek, prefix: Fixture.prefix, random: SystemRandom())
        var page = [UInt8](repeating: 0, count: PagesFormat.pageSize)
        for k in 1...(t + 1) {
            page[0] = UInt8(k % 256)
            try page.withUnsafeBytes { try file.write($0, offset: (k - 1) * PagesFormat.pageSize) }
        }
        try file.sync()
        try file.truncate(to: t * PagesFormat.pageSize)
        // Nothing was staged, so the shrink committed at once: header and upper 0 (leaf 0
        // is rebuilt too, as the last leaf).
        #expect(Set(store.commits.last!.keys) == [0, PageLayout.upper(0), PageLayout.leaf(0)])
        let reopened = try PagedFile.open(store: store, mek: Fixture.mek, headerBlock: store.header, random: SystemRandom())
        #expect(reopened.committedRoot.pageCount == t)
        #expect(try reopened.plaintextPage(t)[0] == UInt8(t % 256))
    }
}
