import Foundation
import GRDB
import ObscuraCrypto
import ObscuraKit
import ObscuraPages

/// `obscura-bench index-ops [WORKDIR]`: the need of a user's commit for an item with a
/// picture index row and for one without (docs/SEARCH.md §S9 step 1, review round 2
/// R2-8), in the paged catalog of a ten-slot container of inner format 2 (docs/FORMAT.md
/// §8.12) holding `OBSCURA_BENCH_ITEMS` items (default 100,000), every other one indexed
/// as a backfill would have it (rows appended in rowid order, photo-like text and a
/// vector). The need is the logical blocks the commit changed plus the map nodes over
/// them, before cover; the bucket is what every slot wrote (32, or 128 when the need
/// exceeds 32). The statements are the catalog's own, run raw, so the writer's floor
/// (`Catalog.dropFloor(items:)`) is not applied: the figures are what it answers. If an
/// operation's bucket depended on whether the item was indexed, a copy holder would
/// learn it.
enum IndexOpsBench {
    static let items = Int(ProcessInfo.processInfo.environment["OBSCURA_BENCH_ITEMS"] ?? "") ?? 100_000
    static let runs = Int(ProcessInfo.processInfo.environment["OBSCURA_BENCH_RUNS"] ?? "") ?? 25

    static func run(workdir: String?) throws {
        let work = workdir ?? FileManager.default.temporaryDirectory.appendingPathComponent("obscura-bench-index-\(UUID())").path
        defer { if workdir == nil { try? FileManager.default.removeItem(atPath: work) } }
        try? FileManager.default.removeItem(atPath: work + "/vault")
        try FileManager.default.createDirectory(atPath: work + "/vault", withIntermediateDirectories: true)
        let key = SecureBytes(randomCount: 32), mek = SecureBytes(randomCount: 32)
        let harness = try PagedContainerHarness.create(path: work + "/vault", key: key, slots: 10)
        let catalog = try harness.catalog(slot: 0, mek: mek, create: true)
        func pages() throws -> Int { try catalog.read { try Int.fetchOne($0, sql: "PRAGMA page_count") ?? 0 } }
        var itemPages = 0
        let fill = try ImportBench.seconds {
            try catalog.write { db in
                try PagedCatalogBench.insertItems(into: db)
                try db.execute(sql: """
                    INSERT INTO folder (id, name, createdAt, kdfSalt, kdfIterations, wrappedKey, keyVerifier)
                    VALUES ('locked', 'Locked', 0, randomblob(16), 600000, randomblob(60), randomblob(32))
                    """)
            }
            itemPages = try pages()
            try catalog.write { db in try indexHalf(db) }
        }
        let (blocks, logical) = harness.size
        print(String(format: "index-ops: %d items, every other one indexed; 10 slots of %d blocks, L = %d; filled in %.1f s",
                     items, blocks, logical, fill))
        let (indexPages, textBytes) = try catalog.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0,
             try Int.fetchOne(db, sql: "SELECT sum(length(CAST(ocrText AS BLOB))) FROM item_index") ?? 0)
        }
        let indexedCount = items / 2
        print(String(format: "  catalog: %d pages with the items, %d with the index rows: %.0f bytes a page per indexed item (text %.0f bytes on average, vector 516)",
                     itemPages, indexPages, Double((indexPages - itemPages) * 4096) / Double(indexedCount), Double(textBytes) / Double(indexedCount)))
        print("  operation                       item        need min/median/max   buckets seen")
        let picks = try catalog.read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, EXISTS (SELECT 1 FROM item_index WHERE itemRowid = item.rowid) AS indexed
                FROM item ORDER BY random() LIMIT ?
                """, arguments: [runs * 24])
        }
        var indexed = picks.filter { $0["indexed"] as Bool }.map { $0["id"] as String }[...]
        var plain = picks.filter { !($0["indexed"] as Bool) }.map { $0["id"] as String }[...]
        let operations: [(String, String)] = [
            ("delete for good", "DELETE FROM item WHERE id = ?"),
            ("end in views set", "UPDATE item SET viewsLeft = 3 WHERE id = ?"),
            ("move into protected", """
                UPDATE item SET folderId = 'locked', name = '', mimeType = '', takenAt = NULL, width = NULL, height = NULL,
                    mediaId = lower(hex(randomblob(16))), thumbId = lower(hex(randomblob(16))), protectedMeta = randomblob(180)
                WHERE id = ?
                """),
            ("trash", "UPDATE item SET deletedAt = 1767225600 WHERE id = ?"),
            ("favourite", "UPDATE item SET favorite = 1 WHERE id = ?"),
        ]
        for (name, sql) in operations {
            for isIndexed in [true, false] {
                var needs = [Int](), buckets = Set<Int>()
                for _ in 0..<runs {
                    let id = isIndexed ? indexed.popFirst()! : plain.popFirst()!
                    try catalog.write { try $0.execute(sql: sql, arguments: [id]) }
                    let report = harness.lastCommit!
                    needs.append(report.need)
                    buckets.insert(report.whole ? -1 : report.written)
                }
                needs.sort()
                print("  " + name.padding(toLength: 30, withPad: " ", startingAt: 0)
                      + (isIndexed ? "  indexed  " : "  unindexed")
                      + String(format: "  %4d / %4d / %4d", needs[0], needs[needs.count / 2], needs[needs.count - 1])
                      + "        " + buckets.sorted().map { $0 < 0 ? "whole" : String($0) }.joined(separator: ", "))
            }
        }
        try catalog.close()
    }

    /// Index rows for every other item, appended in rowid order as a backfill writes them:
    /// photo-like text (12–40 words, one item in 50 at the 3,840-byte cap) and a vector.
    static func indexHalf(_ db: Database) throws {
        try db.execute(sql: "INSERT INTO index_profile (kind, name) VALUES ('text', 'bench text'), ('vector', 'bench vector')")
        let words = ["total", "receipt", "invoice", "beach", "station", "Dear", "meeting", "2024", "passport", "Straße", "café", "exit"]
        let random = SystemRandom()
        let rowids = try Int64.fetchAll(db, sql: "SELECT rowid FROM item WHERE rowid % 2 = 0 ORDER BY rowid")
        let row = try db.makeStatement(sql: """
            INSERT INTO item_index (itemRowid, state, textProfile, vectorProfile, ocrText) VALUES (?, 3, 1, 2, ?)
            """)
        let vector = try db.makeStatement(sql: "INSERT INTO item_vector (seq, vector) VALUES (?, ?)")
        for (n, rowid) in rowids.enumerated() {
            let count = 12 + Int(random.uniform(in: 0..<29))
            var text = (0..<count).map { _ in words[random.uniform(in: 0..<words.count)] }.joined(separator: " ")
            if n % 50 == 0 { text = String(String(repeating: "receipt total ", count: 275).prefix(3840)) }
            try row.execute(arguments: [rowid, text])
            try vector.execute(arguments: [db.lastInsertedRowID, Data(random.bytes(516))])
        }
    }
}
