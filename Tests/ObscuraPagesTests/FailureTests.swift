import GRDB
import ObscuraCrypto
import ObscuraPages
import Testing

@Suite struct FailureTests {
    /// A store commit that throws fails the GRDB write with the store's own error; the
    /// catalog then refuses everything, and the store still holds the state before.
    @Test func failedCommitBreaksTheCatalog() throws {
        let (store, catalog) = try Fixture.create()
        try Fixture.fill(catalog, rows: 300)
        let before = try Fixture.summary(catalog)
        let commits = store.commits.count
        store.failNextCommit()
        #expect(throws: MemoryPageStore.Injected()) {
            try Fixture.fill(catalog, rows: 50, from: 1000)
        }
        #expect(store.commits.count == commits)
        #expect(throws: PagesError.broken) { _ = try Fixture.summary(catalog) }
        #expect(throws: PagesError.broken) { try Fixture.fill(catalog, rows: 1, from: 5000) }
        #expect(throws: PagesError.broken) { try catalog.replaceHeaderPrefix(Fixture.prefix) }
        try? catalog.close()

        let reopened = try Fixture.reopen(store)
        #expect(try Fixture.summary(reopened) == before)
        try Fixture.fill(reopened, rows: 1, from: 5000)
        #expect(try Fixture.summary(reopened)[0] == 301)
        try reopened.close()
    }

    /// A new header prefix commits block 0 alone; the catalog reopens under it with the
    /// same rows, and the old header is still a valid, older root.
    @Test func headerPrefixReplacement() throws {
        let (store, catalog) = try Fixture.create()
        try Fixture.fill(catalog, rows: 100)
        let before = try Fixture.summary(catalog)
        let sequence = catalog.backend.committedRoot.sequence
        let newPrefix = [UInt8](repeating: 0x3C, count: 136)
        try catalog.replaceHeaderPrefix(newPrefix)
        #expect(Set(store.commits.last!.keys) == [0])
        #expect(Array(store.header[0..<136]) == newPrefix)
        #expect(catalog.headerPrefix == newPrefix)
        #expect(catalog.backend.committedRoot.sequence == sequence + 1)
        // The connection goes on writing under the new prefix.
        try Fixture.fill(catalog, rows: 1, from: 9000)
        #expect(Array(store.header[0..<136]) == newPrefix)
        try catalog.close()

        let reopened = try Fixture.reopen(store)
        #expect(reopened.headerPrefix == newPrefix)
        #expect(try Fixture.summary(reopened)[0] == before[0] + 1)
        try reopened.close()
        #expect(throws: PagesError.unsupported("a header prefix of 10 bytes")) {
            try reopened.replaceHeaderPrefix([UInt8](repeating: 0, count: 10))
        }
    }

    /// A header commit that fails leaves the old prefix in the store and breaks the catalog.
    @Test func failedHeaderCommit() throws {
        let (store, catalog) = try Fixture.create()
        try Fixture.fill(catalog, rows: 10)
        store.failNextCommit()
        #expect(throws: MemoryPageStore.Injected()) {
            try catalog.replaceHeaderPrefix([UInt8](repeating: 0x3C, count: 136))
        }
        #expect(Array(store.header[0..<136]) == Fixture.prefix)
        #expect(throws: PagesError.broken) { _ = try Fixture.summary(catalog) }
        try? catalog.close()
        let reopened = try Fixture.reopen(store)
        #expect(reopened.headerPrefix == Fixture.prefix)
        #expect(try Fixture.summary(reopened)[0] == 10)
        try reopened.close()
    }

    /// Rows written in a transaction that rolls back never reach the store.
    @Test func rolledBackTransactionCommitsNothing() throws {
        let (store, catalog) = try Fixture.create()
        try Fixture.fill(catalog, rows: 10)
        let commits = store.commits.count
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try catalog.write { db in
                try db.execute(sql: "DELETE FROM t")
                throw Abort()
            }
        }
        #expect(store.commits.count == commits)
        #expect(try Fixture.summary(catalog)[0] == 10)
        try catalog.close()
    }
}
