import GRDB
import ObscuraCrypto
import ObscuraPages
import Testing

/// An attacker who can rewrite the store's blocks but has no key: every change is an
/// error when the block is read, never different rows.
@Suite struct TamperTests {
    /// A catalog of 600 rows (three leaves), closed; returns its store and page count.
    private func prepared(_ seed: String = #function) throws -> (MemoryPageStore, Int) {
        let (store, catalog) = try Fixture.create(seed: seed)
        try Fixture.fill(catalog, rows: 600)
        let pages = catalog.backend.committedRoot.pageCount
        try catalog.close()
        return (store, pages)
    }

    /// Updates one row of a closed catalog; returns the blocks as they were before.
    private func updateOneRow(_ store: MemoryPageStore) throws -> [Int: [UInt8]] {
        let old = store.blocks
        let catalog = try Fixture.reopen(store)
        try catalog.write { db in try db.execute(sql: "UPDATE t SET body = body || 'z' WHERE id = 450") }
        try catalog.close()
        return old
    }

    private func readAll(_ store: MemoryPageStore) -> PagesError? {
        pagesError {
            let catalog = try Fixture.reopen(store)
            defer { try? catalog.close() }
            _ = try Fixture.summary(catalog)
        }
    }

    @Test func flippedByteInAPage() throws {
        let (store, pages) = try prepared()
        let k = pages - 10
        var blocks = store.blocks
        blocks[PageLayout.page(k)]![2000] ^= 0x01
        store.blocks = blocks
        #expect(readAll(store) == .damagedPage(page: k))
    }

    /// Every byte of one page (SQLite's bytes, the nonce and the tag in its reserved
    /// bytes), flipped one at a time: each is that page's damage, never other rows.
    @Test func everyFlippedByteOfAPageIsThatPagesDamage() throws {
        let (store, pages) = try prepared()
        let k = pages - 10
        let original = store.blocks
        var missed = [Int]()
        for offset in 0..<original[PageLayout.page(k)]!.count {
            var blocks = original
            blocks[PageLayout.page(k)]![offset] ^= 0x01
            store.blocks = blocks
            // The page as SQLite would read it (flippedByteInAPage goes through SQL).
            let error = pagesError {
                let catalog = try Fixture.reopen(store)
                defer { try? catalog.close() }
                _ = try catalog.backend.plaintextPage(k)
            }
            if error != .damagedPage(page: k) { missed.append(offset) }
        }
        #expect(missed.isEmpty, "offsets not detected: \(missed.prefix(20))")
        store.blocks = original
        #expect(readAll(store) == nil)
    }

    /// Bytes of the header block (the prefix the root is sealed under, and the sealed root),
    /// flipped one at a time: the catalog does not open; never other rows.
    @Test func flippedBytesOfTheRootBlockAreDetected() throws {
        let (store, _) = try prepared()
        let expected = try { () throws -> [Int] in
            let catalog = try Fixture.reopen(store)
            defer { try? catalog.close() }
            return try Fixture.summary(catalog)
        }()
        let original = store.blocks
        var detected = 0, harmless = 0, wrong = [Int]()
        // Every byte of the prefix and the root's nonce, then one in 16 (the page test
        // above flips every byte of a sealed block).
        let size = original[0]!.count
        let offsets = Array(0..<(HeaderFormat.prefixSize + 12)) + Array(stride(from: HeaderFormat.prefixSize + 12, to: size, by: 16))
        for offset in offsets {
            var blocks = original
            blocks[0]![offset] ^= 0x01
            store.blocks = blocks
            do {
                let catalog = try PagedCatalog.open(store: store, mek: Fixture.mek, headerBlock: blocks[0]!)
                defer { try? catalog.close() }
                if try Fixture.summary(catalog) == expected { harmless += 1 } else { wrong.append(offset) }
            } catch {
                detected += 1
            }
        }
        #expect(wrong.isEmpty, "offsets that changed what was read: \(wrong.prefix(20))")
        // The sealed root fills the block after the prefix, which is its associated data:
        // every byte is authenticated (docs/FORMAT.md §9.5).
        #expect(detected == offsets.count && harmless == 0)
        store.blocks = original
    }

    @Test func flippedTagOfAPage() throws {
        let (store, pages) = try prepared()
        let k = pages - 10
        var blocks = store.blocks
        blocks[PageLayout.page(k)]![4067] ^= 0x80
        store.blocks = blocks
        #expect(readAll(store) == .damagedPage(page: k))
    }

    @Test func swappedPages() throws {
        let (store, pages) = try prepared()
        let (a, b) = (pages - 20, pages - 5)
        var blocks = store.blocks
        blocks.swapAt(PageLayout.page(a), PageLayout.page(b))
        store.blocks = blocks
        let error = readAll(store)
        #expect(error == .damagedPage(page: a) || error == .damagedPage(page: b))
    }

    @Test func olderVersionOfOnePage() throws {
        let (store, pages) = try prepared()
        let old = try updateOneRow(store)
        let changed = pageNumbers(in: store.commits.last!, pages: pages)
        #expect(!changed.isEmpty)
        var blocks = store.blocks
        for k in changed { blocks[PageLayout.page(k)] = old[PageLayout.page(k)] }
        store.blocks = blocks
        let error = readAll(store)
        #expect(changed.contains { error == .damagedPage(page: $0) })
    }

    @Test func olderRootWithNewerPages() throws {
        let (store, _) = try prepared()
        let old = try updateOneRow(store)
        var blocks = store.blocks
        blocks[0] = old[0]
        store.blocks = blocks
        // The old root still opens (rollback of a whole slot is the container's to catch),
        // but its tag of the upper node no longer matches.
        #expect(readAll(store) == .damagedNode(level: 2, index: 0))
    }

    @Test func olderLeaf() throws {
        let (store, pages) = try prepared()
        let old = try updateOneRow(store)
        let n = PageLayout.leafIndex(ofPage: pageNumbers(in: store.commits.last!, pages: pages).first!)
        var blocks = store.blocks
        blocks[PageLayout.leaf(n)] = old[PageLayout.leaf(n)]
        store.blocks = blocks
        #expect(readAll(store) == .damagedNode(level: 1, index: n))
    }

    @Test func olderUpper() throws {
        let (store, _) = try prepared()
        let old = try updateOneRow(store)
        var blocks = store.blocks
        blocks[PageLayout.upper(0)] = old[PageLayout.upper(0)]
        store.blocks = blocks
        #expect(readAll(store) == .damagedNode(level: 2, index: 0))
    }

    @Test func swappedLeaves() throws {
        let (store, _) = try prepared()
        var blocks = store.blocks
        blocks.swapAt(PageLayout.leaf(0), PageLayout.leaf(1))
        store.blocks = blocks
        let error = readAll(store)
        #expect(error == .damagedNode(level: 1, index: 0) || error == .damagedNode(level: 1, index: 1))
    }

    @Test func wrongKey() throws {
        let (store, _) = try prepared()
        let error = pagesError { _ = try PagedCatalog.open(store: store, mek: Fixture.otherMEK, headerBlock: store.header) }
        guard case .damagedRoot = error else {
            Issue.record("expected damagedRoot, got \(String(describing: error))")
            return
        }
    }

    @Test func alteredHeaderPrefix() throws {
        let (store, _) = try prepared()
        var header = store.header
        header[20] ^= 1
        let error = pagesError { _ = try PagedCatalog.open(store: store, mek: Fixture.mek, headerBlock: header) }
        guard case .damagedRoot = error else {
            Issue.record("expected damagedRoot, got \(String(describing: error))")
            return
        }
    }

    /// A page of another catalog under the same key at the same position fails: the vault
    /// id is in every page's associated data.
    @Test func pageFromAnotherCatalog() throws {
        let (store, pages) = try prepared()
        let (other, _) = try prepared("pageFromAnotherCatalog-other")
        let k = pages - 3
        var blocks = store.blocks
        blocks[PageLayout.page(k)] = other.blocks[PageLayout.page(k)]
        store.blocks = blocks
        #expect(readAll(store) == .damagedPage(page: k))
    }
}

extension Dictionary where Key == Int, Value == [UInt8] {
    mutating func swapAt(_ a: Int, _ b: Int) {
        let saved = self[a]
        self[a] = self[b]
        self[b] = saved
    }
}
