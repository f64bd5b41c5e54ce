import Foundation
import GRDB
import ObscuraCrypto
import Testing
@testable import ObscuraCatalog

@Suite struct CatalogTests {
    @Test func imageRoundTrip() throws {
        let catalog = try Catalog.empty()
        try catalog.database.write { db in
            try db.execute(sql: "INSERT INTO folder(id, name, createdAt) VALUES ('f1', 'Trips', 0)")
            try db.execute(sql: """
                INSERT INTO item(id, kind, mediaId, name, mimeType, size, importedAt, folderId, contentHash)
                VALUES ('i1', 'photo', 'm1', 'beach.jpg', 'image/jpeg', 42, 0, 'f1', x'00')
                """)
        }
        let restored = try Catalog.restore(image: try catalog.image())
        #expect(try restored.counts() == (items: 1, folders: 1))
        let name = try restored.database.read { try String.fetchOne($0, sql: "SELECT name FROM item") }
        #expect(name == "beach.jpg")
    }

    /// Two empty catalogs differ only in their free passkey records, which are random
    /// (§3.3, migration v11): with those rows blanked, their images are the same bytes.
    @Test func emptyCatalogsSerializeIdenticallyButForTheirFreePasskeyRecords() throws {
        let (a, b) = (try Catalog.empty(), try Catalog.empty())
        #expect(try a.image() != b.image())
        for catalog in [a, b] {
            try catalog.write { db in try db.execute(sql: "UPDATE passkey SET rec = zeroblob(448)") }
        }
        #expect(try a.image() == b.image())
    }

    @Test func garbageImageIsRejected() throws {
        #expect(throws: CatalogError.invalidImage) { try Catalog.restore(image: Array(repeating: 7, count: 4096)) }
        #expect(throws: CatalogError.invalidImage) { try Catalog.restore(image: []) }
    }

    /// Migration v3's tally (docs/FORMAT.md §3.3, counting outside the trash since v4)
    /// stays equal to counting the rows through inserts, deletes, moves, favourites, trips
    /// to the trash and back, renames and a folder deleted under its items (the foreign key
    /// sets their folder to null), and every page total is read from it. The search index
    /// (v4) holds exactly the rows outside the trash throughout.
    @Test func theItemTallyFollowsEveryChangeAndGivesThePageTotals() throws {
        let catalog = try Catalog.empty()
        let random = SeededRandom(seed: "tally")
        func pick<T>(_ values: [T]) -> T { values[Int(random.bytes(2).reduce(0) { $0 * 256 + Int($1) }) % values.count] }
        var folders = ["f1", "f2", "f3"]
        try catalog.database.write { db in
            for id in folders { try db.execute(sql: "INSERT INTO folder(id, name, createdAt) VALUES (?, ?, 0)", arguments: [id, id]) }
        }
        func check(_ step: Int) throws {
            let (tally, counted) = try catalog.tallyAndCounts()
            #expect(!counted.isEmpty || step == 0, "step \(step)")
            #expect(tally == counted, "step \(step)")
            try catalog.database.write { db in try db.execute(sql: "INSERT INTO item_search(item_search) VALUES ('integrity-check')") }
            for term in ["jpg", "lyon", "n10"] {
                // The index holds exactly the rows outside the trash (FTS5's own check against
                // the content table would count the trashed rows it leaves out).
                let (indexed, live) = try catalog.database.read { db in
                    (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item_search WHERE item_search MATCH ?", arguments: ["\"\(term)\""]),
                     try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item WHERE deletedAt IS NULL AND (name LIKE ? OR place LIKE ?)",
                                      arguments: ["%\(term)%", "%\(term)%"]))
                }
                #expect(indexed == live, "step \(step): \(term)")
            }
            let live = try catalog.database.read { try String.fetchAll($0, sql: "SELECT id FROM folder") }
            let scopes: [(Catalog.ListingScope, String)] = [
                (.all(excluding: []), "1"), (.all(excluding: Array(live.prefix(1))), live.first.map { "ifnull(folderId, '') != '\($0)'" } ?? "1"),
                (.topLevel, "folderId IS NULL"),
            ] + live.map { (.folder($0), "folderId = '\($0)'") }
            for (scope, condition) in scopes {
                for favoritesOnly in [false, true] {
                    let expected = try catalog.database.read {
                        try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM item WHERE deletedAt IS NULL AND \(condition)" + (favoritesOnly ? " AND favorite" : ""))
                    }
                    let filter = Catalog.ListingFilter(favoritesOnly: favoritesOnly)
                    #expect(try catalog.listing(scope, filter: filter, after: nil, limit: 1).total == expected, "step \(step): \(scope)")
                }
            }
            let trashed = try catalog.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM item WHERE deletedAt IS NOT NULL") }
            #expect(try catalog.listing(.trash(excluding: []), filter: .init(), after: nil, limit: 1).total == trashed, "step \(step)")
            #expect(try catalog.trashedItems().count == trashed, "step \(step)")
        }
        var ids = [String]()
        for step in 0..<300 {
            try catalog.database.write { db in
                switch (ids.isEmpty ? 0 : pick([0, 0, 1, 2, 3, 4, 5])) {
                case 0:
                    let id = "i\(step)"
                    try db.execute(sql: """
                        INSERT INTO item(id, kind, mediaId, name, mimeType, size, importedAt, folderId, favorite, contentHash)
                        VALUES (?, 'photo', ?, 'x.jpg', 'image/jpeg', 1, ?, ?, ?, x'00')
                        """, arguments: [id, id, Double(step), pick([nil] + folders), pick([false, true])])
                    ids.append(id)
                case 1:
                    let id = pick(ids)
                    try db.execute(sql: "DELETE FROM item WHERE id = ?", arguments: [id])
                    ids.removeAll { $0 == id }
                case 2:
                    try db.execute(sql: "UPDATE item SET folderId = ? WHERE id = ?", arguments: [pick([nil] + folders), pick(ids)])
                case 3:
                    try db.execute(sql: "UPDATE item SET favorite = NOT favorite WHERE id = ?", arguments: [pick(ids)])
                case 4:
                    try db.execute(sql: "UPDATE item SET deletedAt = CASE WHEN deletedAt IS NULL THEN ? END WHERE id = ?",
                                   arguments: [Double(step), pick(ids)])
                default:
                    try db.execute(sql: "UPDATE item SET name = ?, place = ? WHERE id = ?",
                                   arguments: ["n\(step).jpg", pick([nil, "Lyon"]), pick(ids)])
                }
                if step == 200 {
                    try db.execute(sql: "DELETE FROM folder WHERE id = 'f2'")
                    folders.removeAll { $0 == "f2" }
                }
            }
            if step % 25 == 0 || step == 200 { try check(step) }
        }
        try check(300)
    }

    @Test func tempStoreIsMemory() throws {
        let catalog = try Catalog.empty()
        let mode = try catalog.database.read { try Int.fetchOne($0, sql: "PRAGMA temp_store") }
        #expect(mode == 2)
    }
}
