import Foundation
import ObscuraCrypto
import Testing
@testable import ObscuraKit

@Suite struct SlotStoreTests {
    /// Runs `write` once to count its commit steps, then once per step in a fresh
    /// directory with a crash injected there, and checks the directory after reopening.
    func crashAtEveryStep(
        setup: (VaultDirectory) throws -> Void,
        write: (VaultDirectory) throws -> Void,
        check: (VaultDirectory, _ crashedAt: Int) throws -> Void
    ) throws {
        var steps = 0
        do {
            let root = try TestRoot()
            let directory = try root.initialized()
            try setup(directory)
            directory.store.faultInjector = { _ in steps += 1 }
            try write(directory)
        }
        #expect(steps >= 12, "a commit of ten slots has at least 12 steps")
        for crashAt in 0..<steps {
            let root = try TestRoot()
            do {
                let directory = try root.initialized()
                try setup(directory)
                var step = 0
                directory.store.faultInjector = { _ in
                    defer { step += 1 }
                    if step == crashAt { throw InjectedCrash() }
                }
                #expect(throws: InjectedCrash.self) { try write(directory) }
            }
            // Reopening is what a restarted process does: temporaries are swept.
            let reopened = try root.open(create: false)
            #expect(try FileManager.default.contentsOfDirectory(atPath: root.dataPath)
                .allSatisfy { $0.hasSuffix(".db.enc") }, "temporaries swept after crash at \(crashAt)")
            try check(reopened, crashAt)
        }
    }

    @Test func persistInterruptedAtEveryStepLeavesOldOrNew() throws {
        var sawOld = false, sawNew = false
        try crashAtEveryStep(
            setup: { directory in
                try directory.createVault(password: pw("pw"), iterations: testIterations).write("state", "old")
                _ = try directory.createVault(password: pw("other"), iterations: testIterations)
            },
            write: { directory in
                try directory.unlock(password: pw("pw")).write("state", "new")
            },
            check: { directory, crashAt in
                #expect(try directory.slotCount() == 10)
                let state = try directory.unlock(password: pw("pw")).setting("state")
                #expect(state == "old" || state == "new", "crash at \(crashAt)")
                if state == "old" { sawOld = true } else { sawNew = true }
                #expect(try directory.unlock(password: pw("other")).isLocked == false)
                #expect(try directory.decoyNames().count == 8)
            })
        #expect(sawOld && sawNew, "crashes before and after the rename of the written slot")
    }

    @Test func growthInterruptedAtEveryStepLeavesOldOrNew() throws {
        let big = String(repeating: "x", count: SlotSizing.base)
        try crashAtEveryStep(
            setup: { directory in
                _ = try directory.createVault(password: pw("pw"), iterations: testIterations)
                _ = try directory.createVault(password: pw("other"), iterations: testIterations)
            },
            write: { directory in
                try directory.unlock(password: pw("pw")).write("blob", big)
            },
            check: { directory, crashAt in
                let blob = try directory.unlock(password: pw("pw")).setting("blob")
                #expect(blob == nil || blob == big, "crash at \(crashAt)")
                #expect(try directory.unlock(password: pw("other")).isLocked == false)
                #expect(try directory.decoyNames().count == 8)
            })
    }

    @Test func destroyInterruptedAtEveryStepLeavesOldOrNew() throws {
        try crashAtEveryStep(
            setup: { directory in
                _ = try directory.createVault(password: pw("doomed"), iterations: testIterations)
                _ = try directory.createVault(password: pw("other"), iterations: testIterations)
            },
            write: { directory in
                try directory.destroy(try directory.unlock(password: pw("doomed")))
            },
            check: { directory, crashAt in
                let count = try directory.slotCount()
                #expect(count == 10 || count == 11, "crash at \(crashAt)")
                #expect(try directory.unlock(password: pw("other")).isLocked == false)
                // Either the vault is still whole, or it no longer opens: never half.
                if let doomed = try? directory.unlock(password: pw("doomed")) {
                    #expect(try doomed.catalog.counts().items == 0)
                }
            })
    }

    @Test func anErrorMidCommitCleansUpAndKeepsOldState() throws {
        let root = try TestRoot()
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
        let root = try TestRoot()
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
        let root = try TestRoot()
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("pw"), iterations: testIterations)
        let before = Dictionary(uniqueKeysWithValues: try root.slotNames().map { ($0, root.fileStat($0).st_size) })
        try vault.write("k", "v")
        try vault.write("k2", "v2")
        let after = Dictionary(uniqueKeysWithValues: try root.slotNames().map { ($0, root.fileStat($0).st_size) })
        #expect(before == after)
    }
}
