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

    /// The index lives only in the connection's temp schema: filling it writes no page of
    /// the catalog and makes no container commit.
    @Test func fillingTheIndexMakesNoCommit() throws {
        let (_, container, _) = try ContainerFixtures.make()
        try container.commit(innerFormat: .blocks)
        let store = SlotPageStore(container: container, slot: container.slots[1])
        let paged = try PagedCatalog.create(store: store, mek: SecureBytes(copying: [UInt8](repeating: 9, count: 32)),
                                            headerPrefix: [UInt8](repeating: 0x33, count: 136))
        let catalog = try Catalog.paged(paged)
        try catalog.write { db in
            try db.execute(sql: """
                INSERT INTO item (id, kind, mediaId, name, mimeType, size, importedAt, contentHash)
                VALUES ('a', 'photo', 'm', 'a.jpg', 'image/jpeg', 1, 0, x'00')
                """)
        }
        let rowid = try #require(try catalog.itemRowid(of: "a"))
        try catalog.settle([.init(itemRowid: rowid, mediaId: "m", folderId: nil, readable: true, state: .textRead, text: "zebracake")])
        let sequence = container.state.sequence
        let image = try catalog.image()
        try catalog.fillWordIndex()
        #expect(try catalog.wordIndexState.filled)
        let found = try catalog.listing(.all(excluding: []), filter: .init(text: "zebra"), after: nil, limit: 5)
        #expect(found.items.map(\.id) == ["a"] && found.total == 1)
        #expect(container.state.sequence == sequence, "no container commit")
        #expect(try catalog.image() == image, "no page of the catalog changed")
    }

    /// A catalog reopened after a failed commit has a new connection, without temp
    /// objects: its word index is made again, empty, under a new generation, and the next
    /// search fills it (review round 2, R2-10).
    @Test func aReopenedConnectionGetsItsIndexAgain() throws {
        let (_, container, _) = try ContainerFixtures.make()
        try container.commit(innerFormat: .blocks)
        let mek = SecureBytes(copying: [UInt8](repeating: 9, count: 32))
        let store = SlotPageStore(container: container, slot: container.slots[2])
        let paged = try PagedCatalog.create(store: store, mek: mek, headerPrefix: [UInt8](repeating: 0x33, count: 136))
        let catalog = try Catalog.paged(paged, reopen: {
            try PagedCatalog.open(store: store, mek: mek, headerBlock: try store.readBlock(0))
        })
        try catalog.write { db in
            try db.execute(sql: """
                INSERT INTO item (id, kind, mediaId, name, mimeType, size, importedAt, contentHash)
                VALUES ('a', 'photo', 'm', 'a.jpg', 'image/jpeg', 1, 0, x'00')
                """)
        }
        let rowid = try #require(try catalog.itemRowid(of: "a"))
        try catalog.settle([.init(itemRowid: rowid, mediaId: "m", folderId: nil, readable: true, state: .textRead, text: "quincetart")])
        try catalog.fillWordIndex()
        #expect(catalog.wordIndexState == (0, true))
        try catalog.reload()
        #expect(catalog.wordIndexState == (1, false))
        let found = try catalog.listing(.all(excluding: []), filter: .init(text: "quince"), after: nil, limit: 5)
        #expect(found.items.map(\.id) == ["a"])
        #expect(catalog.wordIndexState == (1, true))
        #expect(try catalog.wordIndexMismatches() == [])
    }
}
