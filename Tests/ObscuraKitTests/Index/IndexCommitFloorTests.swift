import Foundation
import GRDB
import ObscuraCatalog
import ObscuraCrypto
import ObscuraPages
import ObscuraStoreTestSupport
import Testing
@testable import ObscuraKit
@testable import ObscuraStore

/// Review round 2, R2-8 (docs/SEARCH.md §S9 step 1): a user's change whose triggers may
/// drop a picture index row needs more blocks when the item has one, and at 100,000 items
/// the two needs fall either side of version 4's first bucket (docs/BENCHMARKS.md,
/// `obscura-bench index-ops`). Such changes take the writer's floor, so their bucket is
/// the same whether the item was indexed or not; other changes keep the first bucket.
@Suite struct IndexCommitFloorTests {
    static let mek = SecureBytes(copying: [UInt8](repeating: 0x41, count: 32))

    /// A catalog of 600 items in slot 3 of a ten-slot container of inner format 2, every
    /// even rowid indexed with text and a vector; its store reports each commit.
    static func catalog() throws -> (Catalog, SlotPageStore) {
        // Large enough that a bucket of 512 is no whole rewrite.
        let (_, container, _) = try ContainerFixtures.make(size: 2_400_000)
        try container.commit(innerFormat: .blocks)
        let store = SlotPageStore(container: container, slot: container.slots[3])
        let paged = try PagedCatalog.create(store: store, mek: mek, headerPrefix: [UInt8](repeating: 0x22, count: 136))
        let catalog = try Catalog.paged(paged)
        try catalog.write { db in
            try db.execute(sql: "INSERT INTO folder (id, name, createdAt, wrappedKey) VALUES ('locked', 'Locked', 0, x'00')")
            for n in 0..<600 {
                try db.execute(sql: """
                    INSERT INTO item (id, kind, mediaId, name, mimeType, size, importedAt, contentHash)
                    VALUES (?, 'photo', ?, ?, 'image/jpeg', 1000, ?, randomblob(33))
                    """, arguments: [Self.id(n), "m\(n)", "IMG_\(n).jpg", n])
            }
        }
        let entries = try (0..<600).filter { $0 % 2 == 0 }.map { n in
            Catalog.IndexEntry(itemRowid: try #require(try catalog.itemRowid(of: Self.id(n))), mediaId: "m\(n)", folderId: nil,
                               readable: true, state: [.textRead, .vectorMade], text: "words of picture \(n) " + String(repeating: "receipt ", count: n % 40),
                               vector: IndexVector(quantising: (0..<512).map { Float(($0 * 7 + n) % 11) - 5 }))
        }
        try catalog.settle(entries)
        return (catalog, store)
    }

    static func id(_ n: Int) -> String { String(format: "%08x-0000-4000-8000-%012x", n, n) }

    @Test func theFloorFollowsTheNumberOfItems() {
        #expect([1, 2, 3, 7, 8, 28, 29].map(Catalog.dropFloor(items:)) == [128, 512, 512, 512, 2048, 2048, 8192])
        #expect(Catalog.dropFloor(items: 0) == 128)
    }

    @Test func aChangeThatMayDropAnIndexRowTakesTheFloorWhetherOrNotItDoes() throws {
        let (catalog, store) = try Self.catalog()
        func bucket(_ change: () throws -> Void) throws -> (written: Int, need: Int) {
            try change()
            let report = try #require(store.lastCommit)
            #expect(!report.whole)
            return (report.written, report.need)
        }
        func row(_ n: Int) throws -> ItemRecord { try #require(try catalog.rows(ids: [Self.id(n)]).first) }
        var needs = [String: [Int]]()
        for (indexed, plain) in [(100, 101), (200, 201), (300, 303)] {
            for n in [indexed, plain] {
                let isIndexed = n == indexed
                #expect((try catalog.indexRow(ofItem: Self.id(n)) != nil) == isIndexed)
                let delete = try bucket { try catalog.delete([try row(n)]) }
                #expect(delete.written == Catalog.dropFloor(items: 1), "delete, indexed \(isIndexed)")
                needs["delete \(isIndexed)", default: []].append(delete.need)
            }
            for n in [indexed + 2, plain + 2] {
                let views = try bucket { try catalog.setEnd([Self.id(n)], endsAt: nil, viewsLeft: 3) }
                #expect(views.written == Catalog.dropFloor(items: 1))
                let counted = try bucket { try catalog.setEnd([Self.id(n)], endsAt: nil, viewsLeft: 2) }
                #expect(counted.written == ContainerFormat.bucket, "a counted view keeps the first bucket")
                #expect(try catalog.indexRow(ofItem: Self.id(n))?.state == .viewLimited)
            }
            for n in [indexed + 4, plain + 4] {
                var moved = try row(n)
                moved.folderId = "locked"
                let move = try bucket { try catalog.update([moved]) }
                #expect(move.written == Catalog.dropFloor(items: 1))
                #expect(try catalog.indexRow(ofItem: Self.id(n)) == nil)
                let trash = try bucket { try catalog.trash([Self.id(n + 2)], at: 1) }
                #expect(trash.written == ContainerFormat.bucket, "the trash keeps the first bucket")
                let favourite = try bucket { try catalog.setFavorite(true, itemId: Self.id(n + 6)) }
                #expect(favourite.written == ContainerFormat.bucket)
                var unprotectedMove = try row(n + 8)
                unprotectedMove.favorite = true
                let plainUpdate = try bucket { try catalog.update([unprotectedMove]) }
                #expect(plainUpdate.written == ContainerFormat.bucket, "a change that moves nothing across protection")
            }
        }
        // A batch: the floor follows the number of items, never how many were indexed.
        for batch in [[400, 402, 404], [401, 403, 405]] {
            let delete = try bucket { try catalog.delete(try batch.map(row)) }
            #expect(delete.written == Catalog.dropFloor(items: 3) && Catalog.dropFloor(items: 3) == 512, "\(batch)")
        }
        // The control: without the floor the two would differ in need, which is what a
        // large enough catalog turns into a different bucket.
        #expect(needs["delete true"]!.min()! > needs["delete false"]!.max()!, "\(needs)")
        #expect(try catalog.indexInvariantViolations() == [])
    }
}
