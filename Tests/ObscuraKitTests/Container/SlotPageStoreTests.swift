import Foundation
import GRDB
import ObscuraCrypto
import ObscuraPages
import Testing
import ObscuraStoreTestSupport
@testable import ObscuraKit
@testable import ObscuraStore

/// The paged catalog (docs/FORMAT.md §9) over a slot of a container of inner format 2
/// (§8.12): each SQLite transaction is one container commit of one bucket in every slot,
/// the other slots' contents stay as they were, and a crash anywhere leaves the rows of
/// the commit before or after.
@Suite struct SlotPageStoreTests {
    typealias F = ContainerFixtures
    static let mek = SecureBytes(copying: [UInt8](repeating: 0x37, count: 32))
    static let prefix = [UInt8](repeating: 0x11, count: 136)

    /// A ten-slot container of inner format 2 whose slot 3 holds a catalog of `rows`
    /// rows in table `t`; the files, the container, the slot and every slot's stream
    /// before the catalog was made.
    static func make(rows: Int) throws -> (RecordingSlotFiles, SlotContainer, SlotID, [SlotID: [UInt8]]) {
        let (files, container, _) = try F.make()
        try container.commit(innerFormat: .blocks)
        var before = [SlotID: [UInt8]]()
        for slot in container.slots { before[slot] = try container.readStream(slot) }
        let slot = container.slots[3]
        let catalog = try PagedCatalog.create(
            store: SlotPageStore(container: container, slot: slot), mek: mek, headerPrefix: prefix)
        try catalog.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, favorite INTEGER NOT NULL, name TEXT NOT NULL)")
            for id in 0..<rows {
                try db.execute(sql: "INSERT INTO t VALUES (?, 0, ?)", arguments: [id, "row \(id) " + String(repeating: "x", count: 200)])
            }
        }
        try catalog.close()
        return (files, container, slot, before)
    }

    /// Opens the catalog of `slot` in the container on `image`.
    static func open(_ image: [String: [UInt8]], slot: SlotID) throws -> (SlotContainer, PagedCatalog) {
        let container = try SlotContainer.open(files: RecordingSlotFiles(image), key: F.key())
        let store = SlotPageStore(container: container, slot: slot)
        return (container, try PagedCatalog.open(store: store, mek: mek, headerBlock: try store.readBlock(0)))
    }

    @Test func aOneRowChangeIsOneBucketAndLeavesTheOtherSlotsAsTheyWere() throws {
        let (files, container, slot, before) = try Self.make(rows: 3000)
        let store = SlotPageStore(container: container, slot: slot)
        let catalog = try PagedCatalog.open(store: store, mek: Self.mek, headerBlock: try store.readBlock(0))
        let snapshot = files.snapshot
        try catalog.write { db in try db.execute(sql: "UPDATE t SET favorite = 1 WHERE id = 1234") }
        let report = try #require(store.lastCommit)
        #expect(!report.whole)
        #expect(report.written == ContainerFormat.bucket)
        #expect(report.changed <= 6, "a one-row change touched \(report.changed) logical blocks")
        let changed = Set(container.slots.map { F.changedBlocks(snapshot[$0.fileName]!, files.snapshot[$0.fileName]!) })
        #expect(changed.count == 1 && changed.first!.count == ContainerFormat.bucket + 1)
        try catalog.close()

        let (reopened, again) = try Self.open(files.snapshot, slot: slot)
        #expect(try again.read { try Int.fetchOne($0, sql: "SELECT favorite FROM t WHERE id = 1234") } == 1)
        #expect(try again.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 3000)
        for other in reopened.slots where other != slot {
            #expect(try reopened.readStream(other, count: before[other]!.count) == before[other]!)
        }
        try again.close()
    }

    @Test func aCrashAnywhereInACatalogCommitLeavesTheRowsBeforeOrAfter() throws {
        let (files, container, slot, _) = try Self.make(rows: 600)
        var old = [SlotID: [UInt8]]()
        for s in container.slots { old[s] = try container.readStream(s) }
        // Cover and nonces are random, so the streams after the commit cannot be known
        // in advance: the check below reads the rows, and the streams of every other slot.
        let random = SeededRandom(seed: "catalog crash")
        let recorder = RecordingSlotFiles(files.snapshot)
        let (_, images) = try CrashImages.imagesAtEverySync(recorder, random: random) { files in
            let container = try SlotContainer.open(files: files, key: F.key())
            let store = SlotPageStore(container: container, slot: slot)
            let catalog = try PagedCatalog.open(store: store, mek: Self.mek, headerBlock: try store.readBlock(0))
            try catalog.write { db in try db.execute(sql: "UPDATE t SET favorite = 1 WHERE id = 321") }
            try catalog.close()
        }
        #expect(images.count > 20)
        var seen = Set<Int>()
        for image in images + [recorder.snapshot] {
            let (reopened, again) = try Self.open(image, slot: slot)
            let favorite = try again.read { try Int.fetchOne($0, sql: "SELECT favorite FROM t WHERE id = 321") }
            let count = try again.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") }
            #expect(count == 600)
            seen.insert(try #require(favorite))
            for other in reopened.slots where other != slot {
                #expect(try reopened.readStream(other) == old[other]!)
            }
            try again.close()
        }
        // Both outcomes occur among the images, so the check above can tell them apart.
        #expect(seen == [0, 1])
    }
}
