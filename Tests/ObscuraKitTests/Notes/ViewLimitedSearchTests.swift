import Foundation
import GRDB
import Testing
@testable import ObscuraCatalog
@testable import ObscuraKit

/// Issue 40 point 4: a note with an end in views reads only through a counted view, but a
/// search for words of its body found it, and prefix searches recovered the text, without
/// spending one. Its body text is now searched by no path: the index (three characters or
/// more), row by row (shorter text, the trash), nor an open protected folder (in Swift).
@Suite struct ViewLimitedSearchTests {
    func found(_ vault: Vault, _ scope: ItemScope, _ text: String) throws -> Set<String> {
        Set(try vault.itemListing(scope: scope, filter: ItemFilter(text: text), limit: 50).items.map(\.record.name))
    }

    @Test func aViewLimitedNotesBodyIsFoundByNoSearch() throws {
        let root = try TestRoot()
        let vault = try root.newVault()
        let limited = try vault.addNote(title: "Plans", body: "meet at the quince orchard, zq\n")
        let open = try vault.addNote(title: "Shopping", body: "quince jam, zq\n")
        #expect(try found(vault, .visible, "quince") == ["Plans", "Shopping"])

        try vault.setEnd([limited.id], ItemEnd(views: 2))
        #expect(try found(vault, .visible, "quince") == ["Shopping"], "through the index")
        #expect(try found(vault, .visible, "orchard").isEmpty)
        #expect(try found(vault, .visible, "zq") == ["Shopping"], "row by row")
        #expect(try found(vault, .visible, "Plans") == ["Plans"], "its title still is")
        #expect(try vault.item(limited.id).viewsLeft == 2, "no view was spent")

        let folder = try vault.createFolder("Private", password: pw("folder"), iterations: testIterations)
        let hidden = try vault.addNote(title: "Hidden", body: "quince kept apart\n", into: folder)
        #expect(try found(vault, .folder(folder), "quince") == ["Hidden"])
        try vault.setEnd([hidden.id], ItemEnd(views: 1))
        #expect(try found(vault, .folder(folder), "quince").isEmpty, "in Swift, in an open protected folder")

        // Its end taken away, it is searched again.
        try vault.setEnd([limited.id], nil)
        #expect(try found(vault, .visible, "quince") == ["Plans", "Shopping"])
        try vault.setEnd([limited.id], ItemEnd(views: 3))
        try vault.trashItems([limited.id, open.id])
        #expect(try found(vault, .trash, "quince") == ["Shopping"], "the trash, row by row")
        #expect(try vault.verify().problems.isEmpty)
    }

    /// A catalog written before (migration v9) indexed a view-limited note's text: its
    /// upgrade takes the text out, and the index stays whole through later changes.
    @Test func anOlderCatalogsIndexForgetsTheTextAtItsUpgrade() throws {
        let queue = try DatabaseQueue()
        try CatalogSchema.migrator.migrate(queue, upTo: "v9")
        try queue.write { db in
            for (n, views) in [(1, 2 as Int?), (2, nil)] {
                try db.execute(sql: """
                    INSERT INTO item (id, kind, mediaId, name, mimeType, size, importedAt, favorite, contentHash, noteText, viewsLeft)
                    VALUES (?, 'note', ?, ?, 'text/markdown', 1, 0, 0, x'01', 'the quince orchard', ?)
                    """, arguments: ["id-\(n)", "m-\(n)", "note \(n)", views])
            }
        }
        func matches(_ db: Database) throws -> [String] {
            try String.fetchAll(db, sql: """
                SELECT item.id FROM item_search JOIN item ON item.rowid = item_search.rowid
                WHERE item_search MATCH '"orchard"' ORDER BY item.id
                """)
        }
        #expect(try queue.read(matches) == ["id-1", "id-2"], "v9 indexed both")
        try CatalogSchema.migrator.migrate(queue)
        try queue.write { db in
            #expect(try matches(db) == ["id-2"])
            try db.execute(sql: "UPDATE item SET viewsLeft = NULL WHERE id = 'id-1'")
            #expect(try matches(db) == ["id-1", "id-2"])
            try db.execute(sql: "UPDATE item SET viewsLeft = 1 WHERE id = 'id-2'")
            #expect(try matches(db) == ["id-1"])
            try db.execute(sql: "DELETE FROM item WHERE id = 'id-2'")
            try db.execute(sql: "UPDATE item SET deletedAt = 5 WHERE id = 'id-1'")
            // The index's own structure is sound (rank 0: not compared with `item`, whose
            // text it leaves out by design).
            try db.execute(sql: "INSERT INTO item_search (item_search, rank) VALUES ('integrity-check', 0)")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item_search WHERE item_search MATCH '\"quince\"'") == 0)
        }
    }
}
