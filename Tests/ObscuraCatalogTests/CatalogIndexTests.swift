import Foundation
import GRDB
import ObscuraCrypto
import Testing
@testable import ObscuraCatalog

/// The picture index's schema (migration v12; docs/FORMAT.md §3.3, "The picture index";
/// docs/SEARCH.md §S4.1): the write rules the triggers enforce, the settle's checks, the
/// vector encoding, and the pages the migration and an import write.
@Suite struct CatalogIndexTests {
    /// An in-memory database with the catalog's pragmas, migrated up to `version`.
    static func database(upTo version: String) throws -> DatabaseQueue {
        var config = Configuration()
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA secure_delete = ON")
            try db.execute(sql: "PRAGMA recursive_triggers = OFF")
        }
        let queue = try DatabaseQueue(configuration: config)
        try CatalogSchema.migrator.migrate(queue, upTo: version)
        return queue
    }

    /// Inserts `count` photo-like items with ids and names fixed by `first`.
    static func insertItems(_ db: Database, count: Int, first: Int = 0) throws {
        let insert = try db.makeStatement(sql: """
            INSERT INTO item (id, kind, mediaId, thumbId, name, mimeType, size, width, height, takenAt, importedAt, contentHash)
            VALUES (?, 'photo', ?, ?, ?, 'image/jpeg', 3500000, 4000, 3000, ?, 1767225600, ?)
            """)
        for n in first..<(first + count) {
            let id = String(format: "%08x-0000-4000-8000-%012x", n, n)
            try insert.execute(arguments: [id, "m" + id, "t" + id, String(format: "IMG_%06d.jpg", n),
                                           1_600_000_000 + Double(n) * 3600, Data(SHA256Digest.hash(Array(id.utf8)))])
        }
    }

    /// The pages of `after` that differ from `before` or are new, by number (4,096 bytes).
    static func changedPages(_ before: [UInt8], _ after: [UInt8]) -> [Int] {
        stride(from: 0, to: after.count, by: 4096).compactMap { offset in
            let page = after[offset..<min(offset + 4096, after.count)]
            guard offset < before.count else { return offset / 4096 + 1 }
            return page.elementsEqual(before[offset..<min(offset + 4096, before.count)]) ? nil : offset / 4096 + 1
        }
    }

    static func image(_ queue: DatabaseQueue) throws -> [UInt8] {
        try queue.inDatabase { try Catalog.serialize($0) }
    }

    /// The migration adds the same pages to every vault: three tables, two unique
    /// indexes' roots, the schema and the migrations row, however many items the vault
    /// holds (review round 2, R2-9: a vault with free pages places the roots elsewhere and
    /// writes at most one more page; the bound holds both ways, within version 4's
    /// smallest bucket).
    @Test func theMigrationWritesTheSamePagesInASmallAndALargeVault() throws {
        var counts = [String: Int]()
        for (name, items, freed) in [("10", 10, 0), ("5,000", 5_000, 0), ("5,000 with free pages", 5_000, 700)] {
            let queue = try Self.database(upTo: "v11")
            try queue.write { db in
                try Self.insertItems(db, count: items)
                if freed > 0 { try db.execute(sql: "DELETE FROM item WHERE rowid <= ?", arguments: [freed]) }
            }
            // Filling the search index's segments leaves free pages behind; a test vault
            // (never a writer, §3.3) is compacted for the case without them.
            if freed == 0 { try queue.vacuum() }
            let freelist = try queue.read { try Int.fetchOne($0, sql: "PRAGMA freelist_count") ?? 0 }
            #expect((freelist > 0) == (freed > 0), "\(name): free pages \(freelist)")
            let before = try Self.image(queue)
            try CatalogSchema.migrator.migrate(queue, upTo: "v12")
            counts[name] = Self.changedPages(before, try Self.image(queue)).count
        }
        #expect(counts["10"] == counts["5,000"], "\(counts)")
        #expect(counts.values.allSatisfy { $0 <= 12 }, "\(counts)")
        #expect(counts["5,000 with free pages"]! <= counts["5,000"]! + 2, "\(counts)")
        print("migration v12 pages: \(counts)")
    }

    /// Nothing fires on an insert into `item`: an import writes the pages it wrote before
    /// the migration (S-R25), and the new tables stay empty.
    @Test func anImportWritesThePagesItWroteBeforeTheMigration() throws {
        var written = [String: Int]()
        for version in ["v11", "v12"] {
            let queue = try Self.database(upTo: version)
            try queue.write { try Self.insertItems($0, count: 3_000) }
            let before = try Self.image(queue)
            try queue.write { try Self.insertItems($0, count: 8, first: 50_000) }
            written[version] = Self.changedPages(before, try Self.image(queue)).count
            if version == "v12" {
                #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM item_index") } == 0)
            }
        }
        #expect(written["v11"] == written["v12"], "\(written)")
    }

    /// A row is one leaf whatever its text (at most 3,840 bytes: no overflow page), so a
    /// change that drops it writes as many pages for a short text as for a longer one, up
    /// to a full row, which fills its leaf alone: dropping it empties the leaf, which
    /// SQLite frees (its parent, the free list), 4 pages more. Measured on two catalogs
    /// that differ only in one item's text, changed alike. Version 4's floor for these
    /// changes (128, over needs of 34–50 at 100,000 items) hides the 4 from a copy
    /// holder; a holder of O sees page counts (docs/SECURITY.md).
    @Test func aChangeThatDropsARowWritesAtMostFourPagesMoreForAFullText() throws {
        let changes = [
            "DELETE FROM item WHERE rowid = 600",
            "UPDATE item SET viewsLeft = 3 WHERE rowid = 600",
            "UPDATE item SET folderId = 'locked' WHERE rowid = 600",
        ]
        for change in changes {
            var written = [Int]()
            for text in ["", "receipt", String(repeating: "receipt ", count: 240), String(repeating: "receipt ", count: 480)] {
                let queue = try Self.database(upTo: "v12")
                try queue.write { db in
                    try db.execute(sql: "INSERT INTO folder (id, name, createdAt, wrappedKey) VALUES ('locked', 'L', 0, x'00')")
                    try Self.insertItems(db, count: 1_200)
                    for rowid in 1...1_200 {
                        try db.execute(sql: "INSERT INTO item_index (itemRowid, state, textProfile, ocrText) VALUES (?, 1, 1, ?)",
                                       arguments: [rowid, rowid == 600 ? text : "words of picture \(rowid % 97)"])
                    }
                }
                let before = try Self.image(queue)
                try queue.write { try $0.execute(sql: change) }
                written.append(Self.changedPages(before, try Self.image(queue)).count)
            }
            #expect(Set(written.dropLast()).count == 1, "\(change): \(written)")
            #expect((0...4).contains(written[3] - written[0]), "\(change): \(written)")
        }
    }

    /// I6 (review round 2, R2-1): a row's identity and text never change in place; its
    /// state and vector profile may.
    @Test func anIndexRowsTextAndItemNeverChangeInPlace() throws {
        let catalog = try Catalog.empty()
        try catalog.write { try Self.insertItems($0, count: 2) }
        let rowid = try #require(try catalog.itemRowid(of: String(format: "%08x-0000-4000-8000-%012x", 0, 0)))
        let entry = Catalog.IndexEntry(itemRowid: rowid, mediaId: String(format: "m%08x-0000-4000-8000-%012x", 0, 0),
                                       folderId: nil, readable: true, state: .textRead, text: "first words")
        #expect(try catalog.settle([entry]) == [true])
        try catalog.write { try $0.execute(sql: "INSERT INTO item_vector (seq, vector) SELECT seq, zeroblob(516) FROM item_index") }
        for sql in ["UPDATE item_index SET ocrText = 'other words'", "UPDATE item_index SET itemRowid = itemRowid + 1",
                    "UPDATE item_index SET sealed = x'00'", "UPDATE item_index SET seq = seq + 10",
                    "UPDATE item_vector SET seq = seq + 10", "UPDATE item_vector SET vector = zeroblob(516)"] {
            #expect(throws: DatabaseError.self, "\(sql)") { try catalog.write { try $0.execute(sql: sql) } }
        }
        try catalog.write { try $0.execute(sql: "UPDATE item_index SET state = 1 | 32, ocrText = ocrText") }
        #expect(try catalog.read { try Int.fetchOne($0, sql: "SELECT state FROM item_index") } == 33)
        #expect(try catalog.read { try String.fetchOne($0, sql: "SELECT ocrText FROM item_index") } == "first words")
    }

    /// R2-2: `seq` has no AUTOINCREMENT, so a row appended after the last one's delete
    /// takes its `seq`; the deleted row's vector went with it and is not the new row's.
    @Test func aReusedSeqFindsNoVectorOfTheRowBeforeIt() throws {
        let catalog = try Catalog.empty()
        try catalog.write { try Self.insertItems($0, count: 2) }
        let ids = (0..<2).map { String(format: "%08x-0000-4000-8000-%012x", $0, $0) }
        let rowids = try ids.map { try #require(try catalog.itemRowid(of: $0)) }
        let vector = IndexVector(quantising: (0..<512).map { Float($0 % 7) - 3 })
        #expect(try catalog.settle([.init(itemRowid: rowids[0], mediaId: "m" + ids[0], folderId: nil, readable: true,
                                          state: [.textRead, .vectorMade], text: "a", vector: vector)]) == [true])
        let first = try #require(try catalog.indexRow(ofItem: ids[0]))
        #expect(try catalog.indexVector(seq: first.seq) == vector)
        try catalog.write { try $0.execute(sql: "DELETE FROM item WHERE id = ?", arguments: [ids[0]]) }
        #expect(try catalog.settle([.init(itemRowid: rowids[1], mediaId: "m" + ids[1], folderId: nil, readable: true,
                                          state: .textRead, text: "b")]) == [true])
        let second = try #require(try catalog.indexRow(ofItem: ids[1]))
        #expect(second.seq == first.seq, "the test needs the seq reused")
        #expect(try catalog.indexVector(seq: second.seq) == nil)
        #expect(try catalog.indexInvariantViolations() == [])
    }

    /// A later vector names its row by `seq` and `itemRowid`, which a delete frees for the
    /// next item: it is added only if the item still has the original it was made of
    /// (review of step 1, M1).
    @Test func aLaterVectorIsAddedOnlyToTheItemItWasMadeOf() throws {
        let catalog = try Catalog.empty()
        let id = String(format: "%08x-0000-4000-8000-%012x", 0, 0)
        try catalog.write { try Self.insertItems($0, count: 1) }
        let rowid = try #require(try catalog.itemRowid(of: id))
        try catalog.settle([.init(itemRowid: rowid, mediaId: "m" + id, folderId: nil, readable: true, state: .textRead, text: "old")])
        let stale = try #require(try catalog.indexRow(ofItem: id))
        // The item goes; a new one takes its rowid, and its row the same seq.
        try catalog.write { db in
            try db.execute(sql: "DELETE FROM item WHERE id = ?", arguments: [id])
            try db.execute(sql: """
                INSERT INTO item (rowid, id, kind, mediaId, name, mimeType, size, importedAt, contentHash)
                VALUES (?, 'new', 'photo', 'm-new', 'new.jpg', 'image/jpeg', 1, 0, x'00')
                """, arguments: [rowid])
        }
        try catalog.settle([.init(itemRowid: rowid, mediaId: "m-new", folderId: nil, readable: true, state: .textRead, text: "new")])
        #expect(try catalog.indexRow(ofItem: "new")?.seq == stale.seq, "the test needs both numbers reused")
        let vector = IndexVector(quantising: (0..<512).map { Float($0 % 5) + 1 })
        #expect(try !catalog.addVector(vector, profile: 1, toRow: stale.seq, itemRowid: rowid, mediaId: "m" + id, folderId: nil))
        #expect(try catalog.indexVector(seq: stale.seq) == nil)
        #expect(try catalog.addVector(vector, profile: 1, toRow: stale.seq, itemRowid: rowid, mediaId: "m-new", folderId: nil))
        #expect(try catalog.indexRow(ofItem: "new")?.state == [.textRead, .vectorMade])
        #expect(try catalog.indexInvariantViolations() == [])
    }

    /// A box only for a protected item, plaintext only for an unprotected one, and a box of
    /// the one size (review of step 1, S1, S3): the settle refuses the rest.
    @Test func theSettleKeepsBoxesAndPlaintextToTheirFolders() throws {
        let catalog = try Catalog.empty()
        try catalog.write { db in
            try db.execute(sql: "INSERT INTO folder (id, name, createdAt, wrappedKey) VALUES ('locked', 'L', 0, x'00')")
            try Self.insertItems(db, count: 2)
            try db.execute(sql: "UPDATE item SET folderId = 'locked' WHERE rowid = 2")
        }
        let ids = (0..<2).map { String(format: "%08x-0000-4000-8000-%012x", $0, $0) }
        let rowids = try ids.map { try #require(try catalog.itemRowid(of: $0)) }
        let box = [UInt8](repeating: 7, count: IndexLimits.boxSize)
        func plain(_ n: Int) -> Catalog.IndexEntry {
            .init(itemRowid: rowids[n], mediaId: "m" + ids[n], folderId: n == 1 ? "locked" : nil, readable: true, state: .textRead, text: "t")
        }
        func sealed(_ n: Int, _ bytes: [UInt8] = box) -> Catalog.IndexEntry {
            .init(itemRowid: rowids[n], mediaId: "m" + ids[n], folderId: n == 1 ? "locked" : nil, readable: true, state: .protected, sealed: bytes)
        }
        #expect(try catalog.settle([plain(1), sealed(0)]) == [false, false])
        #expect(throws: CatalogError.self) { try catalog.settle([sealed(1, Array(box.dropLast()))]) }
        #expect(try catalog.settle([plain(0), sealed(1)]) == [true, true])
        #expect(try catalog.indexInvariantViolations() == [])
    }

    /// The settle writes a result only for the item as the job read it, and only once.
    @Test func theSettleWritesOnlyForTheItemAsRead() throws {
        let catalog = try Catalog.empty()
        try catalog.write { try Self.insertItems($0, count: 1) }
        let id = String(format: "%08x-0000-4000-8000-%012x", 0, 0)
        let rowid = try #require(try catalog.itemRowid(of: id))
        func entry(mediaId: String = "m" + id, folderId: String? = nil, readable: Bool = true) -> Catalog.IndexEntry {
            .init(itemRowid: rowid, mediaId: mediaId, folderId: folderId, readable: readable, state: .textRead, text: "t")
        }
        #expect(try catalog.settle([entry(mediaId: "re-encrypted"), entry(folderId: "moved"), entry(rowid: rowid + 1)]) == [false, false, false])
        #expect(try catalog.settle([entry(), entry()]) == [true, false])
        #expect(try catalog.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM item_index") } == 1)
        func entry(rowid other: Int64) -> Catalog.IndexEntry {
            .init(itemRowid: other, mediaId: "m" + id, folderId: nil, readable: true, state: .textRead, text: "t")
        }
    }

    /// §3.3's encoding: the scale and the components round-trip, and the cosine the
    /// stored form gives is the float one's within the quantisation's error.
    @Test func aVectorIsStoredAsScaleAndInt8Components() throws {
        let values = (0..<512).map { Float(sin(Double($0) * 0.37)) }
        let stored = IndexVector(quantising: values)
        #expect(stored.stored.count == 516)
        #expect(IndexVector(stored: stored.stored) == stored)
        #expect(stored.components.map { abs(Int($0)) }.max() == 127)
        let norm = values.reduce(0) { $0 + $1 * $1 }.squareRoot()
        let decoded = stored.components.map { Float($0) * stored.scale }
        let cosine = zip(values, decoded).reduce(Float(0)) { $0 + $1.0 / norm * $1.1 }
        #expect(abs(cosine - 1) < 0.001, "cosine \(cosine)")
        #expect(IndexVector(stored: [UInt8](repeating: 0, count: 516)) == nil, "a zero scale is refused")
        #expect(IndexVector(stored: stored.stored.dropLast()) == nil)
        var negative = stored.stored
        negative[10] = 0x80
        #expect(IndexVector(stored: negative) == nil, "−128 is never written")
        var infinite = stored.stored
        infinite.replaceSubrange(0..<4, with: Float.infinity.bitPattern.littleEndianBytes)
        #expect(IndexVector(stored: infinite) == nil)
    }
}

extension UInt32 {
    var littleEndianBytes: [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: self >> (8 * $0)) } }
}
