import Foundation
import GRDB
import ObscuraCrypto
import ObscuraPages
import Testing
@testable import ObscuraCatalog

/// A version 3 catalog image copied into a paged catalog (docs/FORMAT.md §9.7) keeps every
/// item's rowid, gaps included: rows elsewhere name items by rowid (docs/SEARCH.md §S4.1,
/// review round 2 R2-5), and a copy that closed the gaps would give one item's words to
/// another while every table's row count still matched.
@Suite struct CatalogConversionTests {
    static func catalogWithGaps() throws -> Catalog {
        let catalog = try Catalog.empty()
        try catalog.database.write { db in
            for n in 1...12 {
                try db.execute(sql: """
                    INSERT INTO item(id, kind, mediaId, name, mimeType, size, importedAt, contentHash)
                    VALUES (?, 'photo', ?, ?, 'image/jpeg', 42, ?, x'00')
                    """, arguments: ["i\(n)", "m\(n)", "photo \(n) word\(n).jpg", n])
            }
            // Gaps, the highest rowid among them: a plain copy renumbers 5 … 11.
            try db.execute(sql: "DELETE FROM item WHERE id IN ('i3', 'i4', 'i12')")
        }
        // Index rows of items after the gaps, named by rowid (docs/FORMAT.md §3.3, "The
        // picture index"): a renumbering would pair each text with another item.
        for n in [5, 7, 11] {
            let rowid = try #require(try catalog.itemRowid(of: "i\(n)"))
            try catalog.settle([.init(itemRowid: rowid, mediaId: "m\(n)", folderId: nil, readable: true, state: .textRead,
                                      text: "text of picture \(n)")])
        }
        return catalog
    }

    @Test func theCopyKeepsEveryItemsRowidAndItsSearchWords() throws {
        let source = try Self.catalogWithGaps()
        let before = try source.itemKeys()
        #expect(before.contains("5 i5") && !before.contains { $0.hasPrefix("3 ") })
        let paged = try PagedCatalog.create(store: MemoryPageStore(), mek: SecureBytes(copying: [UInt8](repeating: 7, count: 32)),
                                            headerPrefix: [UInt8](repeating: 0xA5, count: 136), random: SeededRandom(seed: "copy"))
        let (rows, items) = try Catalog.copy(image: try source.image(), into: paged)
        #expect(items == before)
        let copy = try Catalog.paged(paged)
        defer { copy.close() }
        #expect(try copy.itemKeys() == before)
        #expect(try copy.rowCounts() == rows)
        // The search index was rebuilt over the kept rowids: each word finds its own item.
        let found = try copy.database.read { db in
            try String.fetchAll(db, sql: """
                SELECT item.id FROM item_search JOIN item ON item.rowid = item_search.rowid
                WHERE item_search MATCH '"word7"' ORDER BY item.rowid
                """)
        }
        #expect(found == ["i7"])
        let pairs = try copy.database.read { db in
            try String.fetchAll(db, sql: "SELECT item.id || ': ' || ocrText FROM item_index JOIN item ON item.rowid = itemRowid ORDER BY seq")
        }
        #expect(pairs == ["i5: text of picture 5", "i7: text of picture 7", "i11: text of picture 11"])
        #expect(try copy.indexInvariantViolations() == [])
        #expect(try copy.isIntact())
    }
}
