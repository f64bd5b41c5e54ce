import Foundation
import Testing
@testable import ObscuraKit

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

    @Test func emptyCatalogsSerializeIdentically() throws {
        #expect(try Catalog.empty().image() == Catalog.empty().image())
    }

    @Test func garbageImageIsRejected() throws {
        #expect(throws: CatalogError.invalidImage) { try Catalog.restore(image: Array(repeating: 7, count: 4096)) }
        #expect(throws: CatalogError.invalidImage) { try Catalog.restore(image: []) }
    }

    @Test func tempStoreIsMemory() throws {
        let catalog = try Catalog.empty()
        let mode = try catalog.database.read { try Int.fetchOne($0, sql: "PRAGMA temp_store") }
        #expect(mode == 2)
    }
}
