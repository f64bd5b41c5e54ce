import Foundation
@testable import ObscuraCatalog
import ObscuraCrypto
import ObscuraStoreTestSupport
import ObscuraPages
import Testing
@testable import ObscuraKit
@testable import ObscuraStore

/// Search by the text in pictures (docs/SEARCH.md §S5.1, step 2): the word index in the
/// catalog connection's temp schema, its fill, and a search that matches an item when its
/// name index or its picture's words match. Rows are written by hand, as the indexing job
/// (step 4) will write them.
@Suite struct WordIndexTests {
    static let texts = [
        "receipt.bin": "Kassenbon Bäckerei München total 12,50 EUR",
        "contract.bin": "Rental contract between Alice and Bob",
        "whiteboard.bin": "sprint planning whiteboard",
        "passport.bin": "PASSPORT Reisepass Alice Example",
        "empty.bin": "",
    ]

    static func vault(_ root: TestRoot) throws -> (Vault, [String: ItemRecord]) {
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        var items = [String: ItemRecord]()
        for (name, text) in texts.sorted(by: { $0.key < $1.key }) {
            let item = try vault.addRaw(Array("bytes of \(name)".utf8), name: name)
            items[name] = item
            #expect(try vault.indexForTest(item.id, text: text, vector: false))
        }
        return (vault, items)
    }

    func names(_ vault: Vault, _ text: String, scope: ItemScope = .visible) throws -> (names: [String], total: Int) {
        let page = try vault.itemListing(scope: scope, filter: ItemFilter(text: text), limit: 50)
        return (page.items.map(\.record.name).sorted(), page.total)
    }

    @Test func wordsPrefixesAndFoldedLettersFindThePicture() throws {
        let (vault, _) = try Self.vault(try TestRoot())
        #expect(try names(vault, "whiteboard") == (["whiteboard.bin"], 1))  // the name too: counted once
        #expect(try names(vault, "munchen") == (["receipt.bin"], 1), "diacritics fold")
        #expect(try names(vault, "MÜNCHEN") == (["receipt.bin"], 1))
        #expect(try names(vault, "bäck") == (["receipt.bin"], 1), "a word's start")
        #expect(try names(vault, "alice") == (["contract.bin", "passport.bin"], 2))
        #expect(try names(vault, "alice bob") == (["contract.bin"], 1), "every word")
        #expect(try names(vault, "bob alice") == (["contract.bin"], 1), "in any order")
        #expect(try names(vault, "lice") == ([], 0), "not inside a word")
        #expect(try names(vault, "pass") == (["passport.bin"], 1), "the name's trigrams and the words agree")
        #expect(try names(vault, "12") == (["receipt.bin"], 1), "two characters: a word's start")
        #expect(try names(vault, "\"bob\" OR x") == ([], 0), "query syntax is text")
        #expect(try names(vault, "contract") == (["contract.bin"], 1))
    }

    @Test func theTrashAndItsRestoreTakeThePictureOutAndBack() throws {
        let (vault, items) = try Self.vault(try TestRoot())
        try vault.trashItems([items["receipt.bin"]!.id])
        #expect(try names(vault, "munchen") == ([], 0))
        #expect(try names(vault, "munchen", scope: .trash) == ([], 0), "the trash is searched by names only")
        #expect(try names(vault, "receipt", scope: .trash) == (["receipt.bin"], 1))
        try vault.restoreItems([items["receipt.bin"]!.id])
        #expect(try names(vault, "munchen") == (["receipt.bin"], 1))
        #expect(try vault.catalog.wordIndexMismatches() == [])
    }

    /// The count is the slow reference's: every item whose name holds the text or whose
    /// picture's words start with each of its words, over many rows and queries.
    @Test func theCountIsTheSlowReferences() throws {
        let root = try TestRoot()
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        let words = ["alpha", "alpine", "beta", "gamma", "delta", "deltoid", "omega"]
        let random = SeededRandom(seed: "word index count")
        var texts = [String: String]()
        for n in 0..<80 {
            let name = "\(words[random.uniform(in: 0..<words.count)])-\(n).bin"
            let item = try vault.addRaw([UInt8(n)], name: name)
            let text = (0..<random.uniform(in: 0..<4)).map { _ in words[random.uniform(in: 0..<words.count)] }.joined(separator: " ")
            texts[name] = text
            if n % 5 != 0 { #expect(try vault.indexForTest(item.id, text: text, vector: false)) } else { texts[name] = "" }
            if n % 9 == 0 { try vault.trashItems([item.id]) ; texts[name] = nil }
        }
        for query in ["alp", "alpha", "delt", "gamma omega", "bet", "z", "omega alp"] {
            let tokens = query.split(separator: " ").map(String.init)
            let expected = texts.filter { name, text in
                name.localizedCaseInsensitiveContains(query)
                    || tokens.allSatisfy { token in text.split(separator: " ").contains { $0.hasPrefix(token) } }
            }.keys.sorted()
            let found = try names(vault, query)
            #expect(found.names == expected, "\(query)")
            #expect(found.total == expected.count, "\(query)")
        }
        #expect(try vault.catalog.wordIndexMismatches() == [])
    }

    /// A paged catalog in a ten-slot container whose store it reopens from, holding items
    /// `i0` … `i(n-1)` with texts "zebracake word<n>", as the job would have appended them:
    /// every third in the trash, one with an end in views (its placeholder) and one in a
    /// protected folder (a box).
    static func pagedCatalog(items n: Int) throws -> (Catalog, SlotContainer) {
        let (_, container, _) = try ContainerFixtures.make(size: 600_000)
        try container.commit(innerFormat: .blocks)
        let mek = SecureBytes(copying: [UInt8](repeating: 9, count: 32))
        let store = SlotPageStore(container: container, slot: container.slots[2])
        let paged = try PagedCatalog.create(store: store, mek: mek, headerPrefix: [UInt8](repeating: 0x33, count: 136))
        let catalog = try Catalog.paged(paged, reopen: {
            try PagedCatalog.open(store: store, mek: mek, headerBlock: try store.readBlock(0))
        })
        try catalog.write { db in
            try db.execute(sql: "INSERT INTO folder (id, name, createdAt, wrappedKey) VALUES ('locked', 'L', 0, x'00')")
            for k in 0..<n {
                try db.execute(sql: """
                    INSERT INTO item (id, kind, mediaId, name, mimeType, size, importedAt, contentHash, folderId)
                    VALUES (?, 'photo', ?, ?, 'image/jpeg', 1, ?, x'00', ?)
                    """, arguments: ["i\(k)", "m\(k)", "p\(k).jpg", k, k == 1 ? "locked" : nil])
            }
        }
        let entries = try (0..<n).map { k -> Catalog.IndexEntry in
            let rowid = try #require(try catalog.itemRowid(of: "i\(k)"))
            if k == 1 {
                return .init(itemRowid: rowid, mediaId: "m1", folderId: "locked", readable: true, state: .protected,
                             sealed: [UInt8](repeating: 1, count: IndexLimits.boxSize))
            }
            return .init(itemRowid: rowid, mediaId: "m\(k)", folderId: nil, readable: true, state: .textRead,
                         text: "zebracake word\(k) " + String(repeating: "filler ", count: k % 7 * 60))
        }
        try catalog.settle(entries)
        try catalog.setEnd(["i2"], endsAt: nil, viewsLeft: 3)
        try catalog.trash((0..<n).filter { $0 % 3 == 0 }.map { "i\($0)" }, at: 1)
        return (catalog, container)
    }

    /// The index lives only in the connection's temp schema: filling it, chunk by chunk,
    /// writes no page of the catalog, makes no container commit and opens no file, and
    /// gives the index the rows would (review of step 2, M1: the catalog's own triggers
    /// had filled it already; a reopened connection starts empty).
    @Test func fillingTheIndexMakesNoCommit() throws {
        let (catalog, container) = try Self.pagedCatalog(items: 40)
        try catalog.reload()
        #expect(try catalog.wordIndexMismatches() != [], "the new connection's index is empty")
        let sequence = container.state.sequence
        let image = try catalog.image()
        let refused = PagedCatalog.refusedOpens
        try catalog.fillWordIndex(chunk: 3, bytes: 900)
        #expect(catalog.wordIndexState.filled)
        #expect(container.state.sequence == sequence, "no container commit")
        #expect(try catalog.image() == image, "no page of the catalog changed")
        #expect(PagedCatalog.refusedOpens == refused, "no file asked for")
        #expect(try catalog.wordIndexMismatches() == [])
        let found = try catalog.listing(.all(excluding: ["locked"]), filter: .init(text: "zebracake"), after: nil, limit: 100)
        let expected = (0..<40).filter { $0 % 3 != 0 && $0 != 1 && $0 != 2 }.map { "i\($0)" }
        #expect(Set(found.items.map(\.id)) == Set(expected) && found.total == expected.count)
    }

    /// Every scope and filter, page by page through the cursor, against the rows.
    @Test func scopesFiltersAndPagesAgreeWithTheRows() throws {
        let root = try TestRoot()
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        let plain = try vault.createFolder("Plain")
        let locked = try vault.createFolder("Locked", password: pw("fp"), iterations: testIterations)
        var expectedText = [String: String]()
        var rows = [String: ItemRecord]()
        for n in 0..<36 {
            let folder = n % 4 == 1 ? plain : n % 9 == 4 ? locked : nil
            let item = try vault.addRaw([UInt8(n)], name: n % 5 == 0 ? "beach-\(n).bin" : "file-\(n).bin", folder: folder)
            let text = n % 2 == 0 ? "beach towel \(n)" : "receipt \(n)"
            #expect(try vault.indexForTest(item.id, text: text, vector: false))
            if n % 3 == 0 { _ = try vault.setFavorite(item.id, true) }
            expectedText[item.id] = folder?.isProtected == true ? nil : text
            rows[item.id] = try vault.item(item.id)
        }
        func all(_ scope: ItemScope, _ filter: ItemFilter, limit: Int) throws -> (ids: [String], total: Int) {
            var ids = [String](), cursor: String?, total = -1
            repeat {
                let page = try vault.itemListing(scope: scope, filter: filter, after: cursor, limit: limit)
                ids += page.items.map(\.record.id)
                total = page.total
                cursor = page.nextCursor
            } while cursor != nil
            return (ids, total)
        }
        let scopes: [(ItemScope, (ItemRecord) -> Bool)] = [
            (.visible, { $0.folderId != locked.id }), (.topLevel, { $0.folderId == nil }), (.folder(plain), { $0.folderId == plain.id }),
        ]
        let filters: [(ItemFilter, (ItemRecord) -> Bool)] = [
            (ItemFilter(text: "beach"), { _ in true }),
            (ItemFilter(favoritesOnly: true, text: "beach"), { $0.favorite }),
            (ItemFilter(text: "beach", place: "x"), { _ in false }),
            (ItemFilter(text: "rec"), { _ in true }),
        ]
        for (scope, inScope) in scopes {
            for (filter, extra) in filters {
                let words = filter.text!.lowercased()
                let expected = rows.values.filter { row in
                    inScope(row) && extra(row)
                        && (row.name.contains(words) || (expectedText[row.id]?.split(separator: " ").contains { $0.hasPrefix(words) } ?? false))
                }.sorted { ($0.importedAt, $0.id) > ($1.importedAt, $1.id) }
                for limit in [4, 50] {
                    let found = try all(scope, filter, limit: limit)
                    #expect(Set(found.ids) == Set(expected.map(\.id)) && found.ids.count == expected.count, "\(scope) \(filter) \(limit)")
                    #expect(found.total == expected.count, "\(scope) \(filter)")
                }
            }
        }
    }

    /// A catalog reopened after a failed commit has a new connection, without temp
    /// objects: its word index is made again, empty, under a new generation, and the next
    /// search fills it (review round 2, R2-10).
    @Test func aReopenedConnectionGetsItsIndexAgain() throws {
        let (catalog, _) = try Self.pagedCatalog(items: 6)
        try catalog.fillWordIndex()
        #expect(catalog.wordIndexState == (0, true))
        try catalog.reload()
        #expect(catalog.wordIndexState == (1, false))
        let found = try catalog.listing(.all(excluding: ["locked"]), filter: .init(text: "word4"), after: nil, limit: 5)
        #expect(found.items.map(\.id) == ["i4"])
        #expect(catalog.wordIndexState == (1, true))
        #expect(try catalog.wordIndexMismatches() == [])
    }
}
