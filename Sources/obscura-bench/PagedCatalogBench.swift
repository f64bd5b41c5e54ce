import Foundation
import GRDB
import ObscuraCrypto
import ObscuraKit
import ObscuraPages
import ObscuraStore

/// `obscura-bench paged-catalog [WORKDIR]`: the paged catalog (docs/FORMAT.md §9) in a
/// ten-slot container of inner format 2 (§8.12) on disk, at 100,000 items
/// (`OBSCURA_BENCH_ITEMS`), beside, in the same run and on the same disk: plain SQLite
/// committing the same change to a file with fsync, and the whole rewrite every commit
/// of inner format 1 makes. Bytes are the process's `wchar` over the operation.
enum PagedCatalogBench {
    static let items = Int(ProcessInfo.processInfo.environment["OBSCURA_BENCH_ITEMS"] ?? "") ?? 100_000
    static let runs = Int(ProcessInfo.processInfo.environment["OBSCURA_BENCH_RUNS"] ?? "") ?? 21

    static func run(workdir: String?) throws {
        let work = workdir ?? FileManager.default.temporaryDirectory.appendingPathComponent("obscura-bench-paged-\(UUID())").path
        defer { if workdir == nil { try? FileManager.default.removeItem(atPath: work) } }
        try? FileManager.default.removeItem(atPath: work + "/vault")
        try FileManager.default.createDirectory(atPath: work + "/vault", withIntermediateDirectories: true)
        let key = SecureBytes(randomCount: 32), mek = SecureBytes(randomCount: 32)

        let harness = try PagedContainerHarness.create(path: work + "/vault", key: key, slots: 10)
        var catalog = try harness.catalog(slot: 0, mek: mek, create: true)
        let fill = try ImportBench.seconds { try catalog.write { try insertItems(into: $0) } }
        let (blocks, logical) = harness.size
        print(String(format: "paged-catalog: %d items, 10 slots of %d blocks (%.0f MiB each, %.1f GiB in all), L = %d; filled in %.1f s",
                     items, blocks, Double(blocks) / 256, Double(blocks) * 10 / 262_144, logical, fill))
        let ids = try catalog.read { try String.fetchAll($0, sql: "SELECT id FROM item ORDER BY random() LIMIT ?", arguments: [runs + 1]) }

        // Unlock: the root, then the gallery's first page.
        try catalog.close()
        var unlock = [Double](), firstPage = [Double]()
        for _ in 0..<runs {
            var reopened: PagedCatalog?
            unlock.append(try ImportBench.seconds {
                reopened = try PagedContainerHarness.open(path: work + "/vault", key: key).catalog(slot: 0, mek: mek, create: false)
            })
            firstPage.append(try ImportBench.seconds {
                _ = try reopened!.read { try Row.fetchAll($0, sql: "SELECT * FROM item ORDER BY COALESCE(takenAt, importedAt) DESC, id LIMIT 100") }
            })
            try reopened!.close()
        }
        let reopenedHarness = try PagedContainerHarness.open(path: work + "/vault", key: key)
        catalog = try reopenedHarness.catalog(slot: 0, mek: mek, create: false)

        print("  operation                      median       p95   written/op  blocks per slot (changed + cover + nodes + filler = bucket)")
        let favourite = try measure { n in
            try catalog.write { try $0.execute(sql: "UPDATE item SET favorite = NOT favorite WHERE id = ?", arguments: [ids[n]]) }
        }
        report("favourite (paged)", favourite, reopenedHarness.lastCommit)
        let move = try measure { n in
            try catalog.write { try $0.execute(sql: "UPDATE item SET takenAt = takenAt + 86400 WHERE id = ?", arguments: [ids[n]]) }
        }
        report("re-date (paged)", move, reopenedHarness.lastCommit)
        let delete = try measure { n in
            try catalog.write { try $0.execute(sql: "DELETE FROM item WHERE id = ?", arguments: [ids[n]]) }
        }
        report("delete (paged)", delete, reopenedHarness.lastCommit)
        report("unlock: root", (unlock, 0), nil)
        report("first page of 100", (firstPage, 0), nil)
        try catalog.close()

        // Reference: plain SQLite, the same schema and rows, in a file with fsync.
        let plainPath = work + "/plain.sqlite"
        try? FileManager.default.removeItem(atPath: plainPath)
        var config = Configuration()
        config.prepareDatabase { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        let plain = try DatabaseQueue(path: plainPath, configuration: config)
        try PagedContainerHarness.applySchema(plain)
        try plain.write { try insertItems(into: $0) }
        let plainIDs = try plain.read { try String.fetchAll($0, sql: "SELECT id FROM item ORDER BY random() LIMIT ?", arguments: [runs + 1]) }
        let plainFavourite = try measure { n in
            try plain.write { try $0.execute(sql: "UPDATE item SET favorite = NOT favorite WHERE id = ?", arguments: [plainIDs[n]]) }
        }
        report("favourite (plain SQLite)", plainFavourite, nil)
        try plain.close()

        // Reference: inner format 1's commit, a whole rewrite of every slot.
        let whole = try measure(runs: 3) { _ in try reopenedHarness.rewriteWhole(slot: 0) }
        report("any change (inner format 1)", whole, nil)
    }

    /// Items shaped like the gallery benchmark's clones: ids, names, capture dates over
    /// ten years, hashes.
    static func insertItems(into db: Database) throws {
        let insert = try db.makeStatement(sql: """
            INSERT INTO item (id, kind, mediaId, thumbId, name, mimeType, size, width, height, orientation,
                takenAt, importedAt, favorite, contentHash)
            VALUES (?, 'photo', ?, ?, ?, 'image/jpeg', 3500000, 4000, 3000, 1, ?, 1767225600, 0, ?)
            """)
        let end = 1_767_225_600.0, step = 10 * 365.25 * 86_400 / Double(items)
        let random = SystemRandom()
        for n in 0..<items {
            try insert.execute(arguments: [
                UUID().uuidString.lowercased(), UUID().uuidString.lowercased(), UUID().uuidString.lowercased(),
                String(format: "IMG_%06d.jpg", n), end - Double(n) * step, Data(random.bytes(32)),
            ])
        }
    }

    static func measure(runs: Int = runs, _ body: (Int) throws -> Void) throws -> ([Double], UInt64) {
        var times = [Double](), written = [UInt64]()
        for n in 0..<runs {
            let before = ContainerBench.writtenBytes()
            times.append(try ImportBench.seconds { try body(n) })
            written.append(ContainerBench.writtenBytes() - before)
        }
        return (times, written.sorted()[written.count / 2])
    }

    static func report(_ name: String, _ result: ([Double], UInt64), _ commit: BlockCommitReport?) {
        let (times, bytes) = result
        let sorted = times.sorted()
        let p95 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.95))]
        var line = "  " + name.padding(toLength: 30, withPad: " ", startingAt: 0)
            + String(format: " %8.1f ms %8.1f ms", ContainerBench.median(times) * 1000, p95 * 1000)
        line += bytes > 0 ? String(format: "  %8.2f MiB", Double(bytes) / 1_048_576) : "             "
        if let commit {
            line += commit.whole
                ? "  whole rewrite"
                : "  \(commit.changed) + \(commit.cover) + \(commit.nodes) + \(commit.written - commit.changed - commit.cover - commit.nodes) = \(commit.written)"
        }
        print(line)
    }
}
