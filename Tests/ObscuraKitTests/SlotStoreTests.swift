import Foundation
import ObscuraCrypto
import Testing
@testable import ObscuraKit

@Suite struct SlotStoreTests {
    @Test func anErrorMidCommitCleansUpAndKeepsOldState() throws {
        let root = try TestRoot(version3: true)
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("pw"), iterations: testIterations)
        try vault.write("state", "old")
        let before = try root.snapshot()
        struct DiskFull: Error {}
        directory.store.faultInjector = { if case .wroteTemporary(5) = $0 { throw DiskFull() } }
        #expect(throws: DiskFull.self) { try vault.write("state", "new") }
        #expect(try root.snapshot() == before)
    }

    @Test func threeRealAndSevenDecoysLookAlikeAfterWrites() throws {
        let root = try TestRoot(version3: true)
        let directory = try root.initialized()
        let busy = try directory.createVault(password: pw("busy"), iterations: testIterations)
        _ = try directory.createVault(password: pw("quiet"), iterations: testIterations)
        let changed = try directory.createVault(password: pw("changed"), iterations: testIterations)
        try changed.changePassword(to: pw("changed again"))
        for i in 0..<5 { try busy.write("k\(i)", String(repeating: "y", count: 1000 * i)) }
        let inodesBefore = Set(try root.slotNames().map { root.fileStat($0).st_ino })
        // Past the first size range: every slot must follow.
        try busy.write("big", String(repeating: "z", count: SlotSizing.base * 2))

        let names = try root.slotNames()
        let stats = names.map(root.fileStat)
        let decoys = try directory.decoyNames()
        #expect(names.count == 10 && decoys.count == 7)
        // Reads (the sweep above) leave access times alone.
        #expect(names.map(root.fileStat).map(\.st_atim.tv_nsec) == stats.map(\.st_atim.tv_nsec))
        let sizes = stats.map { Int($0.st_size) }
        let tiers = Set(sizes.map(SlotSizing.tier(containing:)))
        #expect(tiers.count == 1 && tiers.first! >= 2, "all slots share one size range: \(sizes)")
        #expect(Set(sizes).count == 10, "sizes are drawn, not copied")
        // Same timestamps, to the nanosecond.
        #expect(Set(stats.map { "\($0.st_mtim.tv_sec).\($0.st_mtim.tv_nsec)" }).count == 1)
        #expect(Set(stats.map { "\($0.st_atim.tv_sec).\($0.st_atim.tv_nsec)" }).count == 1)
        // Every file was replaced by the last write: no slot kept its inode.
        #expect(inodesBefore.isDisjoint(with: stats.map(\.st_ino)))
        // Fully allocated, no holes: blocks follow from size alone, for every slot.
        for st in stats {
            #expect(Int(st.st_blocks) * 512 >= Int(st.st_size), "no sparse holes")
        }
        let blocksPerByte = stats.map { Double($0.st_blocks) * 512 / Double($0.st_size) }
        #expect(blocksPerByte.max()! - blocksPerByte.min()! < 0.05)
        // The locked real vaults grew by padding and still open.
        #expect(try directory.unlock(password: pw("quiet")).isLocked == false)
        #expect(try directory.unlock(password: pw("changed again")).isLocked == false)
    }

    @Test func sizesStayPinnedWithoutGrowth() throws {
        let root = try TestRoot(version3: true)
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("pw"), iterations: testIterations)
        let before = Dictionary(uniqueKeysWithValues: try root.slotNames().map { ($0, root.fileStat($0).st_size) })
        try vault.write("k", "v")
        try vault.write("k2", "v2")
        let after = Dictionary(uniqueKeysWithValues: try root.slotNames().map { ($0, root.fileStat($0).st_size) })
        #expect(before == after)
    }
}
