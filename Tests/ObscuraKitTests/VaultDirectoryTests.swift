import Foundation
import ObscuraCrypto
import Testing
@testable import ObscuraKit
@testable import ObscuraStore

@Suite struct VaultDirectoryTests {
    @Test func initCreatesTenDecoysAndAnEmptyPool() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        #expect(try root.slotNames().count == 10)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.mediaPath).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.vaultPath).sorted() == ["data", "media"])
        #expect(try directory.decoyNames().count == 10)
    }

    @Test func secondInitChangesNothing() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let before = try root.snapshot()
        let times = try root.slotNames().map { root.fileStat($0).st_mtim.tv_nsec }
        #expect(try directory.initialize(iterations: testIterations) == false)
        #expect(try root.snapshot() == before)
        #expect(try root.slotNames().map { root.fileStat($0).st_mtim.tv_nsec } == times)
    }

    @Test func createThenUnlock() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let created = try directory.createVault(password: pw("pw"), iterations: testIterations)
        try created.write("greeting", "hello")
        created.lock()
        let vault = try directory.unlock(password: pw("pw"))
        #expect(try vault.setting("greeting") == "hello")
        #expect(try vault.catalog.counts().items == 0)
        #expect(try directory.decoyNames().count == 9)
        #expect(try root.slotNames().count == 10)
    }

    @Test func wrongPasswordIsOneCleanError() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        _ = try directory.createVault(password: pw("pw"), iterations: testIterations)
        #expect(throws: VaultError.wrongPassword) { try directory.unlock(password: pw("px")) }
        #expect(VaultError.wrongPassword.description == "wrong password")
    }

    @Test func aPasswordOpensOnlyOneVault() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        _ = try directory.createVault(password: pw("pw"), iterations: testIterations)
        #expect(throws: VaultError.passwordInUse) {
            try directory.createVault(password: pw("pw"), iterations: testIterations)
        }
        #expect(try directory.decoyNames().count == 9)
    }

    @Test func decoysAndRealVaultsHaveTheSameStructure() throws {
        let root = try TestRoot(version3: true)
        let directory = try root.initialized()
        for name in ["a", "b", "c"] { _ = try directory.createVault(password: pw(name), iterations: testIterations) }
        let credential = DeviceSecretStore.credential(from: try root.secrets.load())
        var catalogLengths = Set<Int>()
        var sizes = [Int]()
        for name in try root.slotNames() {
            let contents = try directory.store.read(name)
            let header = try SlotHeader.decode(contents)
            #expect(header.iterations == UInt32(testIterations))
            #expect(Array(contents[0..<8]) == Array(header.prefixThroughSalt[0..<8]))
            let key = try ["a", "b", "c"].map(pw).reduce(nil as SecureBytes?) { found, password in
                found ?? (try? SlotCodec.unwrapKey(header: header, password: password))
            } ?? SlotCodec.unwrapKey(header: header, password: credential)
            catalogLengths.insert(try SlotCodec.sealedCatalogLength(contents: contents, header: header, key: key))
            sizes.append(contents.count)
        }
        // Fresh real vaults and decoys seal the same empty catalog: one length for all.
        #expect(catalogLengths.count == 1)
        #expect(Set(sizes.map(SlotSizing.tier(containing:))) == [0])
    }

    @Test func passwordChangeLeavesSealedCatalogBytesIdentical() throws {
        let root = try TestRoot(version3: true)
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("old"), iterations: testIterations)
        try vault.write("k", "v")
        let before = try directory.store.read(vault.slotName)
        let length = try SlotCodec.sealedCatalogLength(contents: before, header: vault.header, key: vault.key)
        try vault.changePassword(to: pw("new"))
        let after = try directory.store.read(vault.slotName)
        let catalog = SlotFormat.headerSize..<(SlotFormat.headerSize + length)
        #expect(Array(after[catalog]) == Array(before[catalog]))
        #expect(Array(after[SlotFormat.saltOffset..<SlotFormat.wrappedKeyOffset])
            != Array(before[SlotFormat.saltOffset..<SlotFormat.wrappedKeyOffset]))
        #expect(after.count == before.count)
        vault.lock()
        #expect(throws: VaultError.wrongPassword) { try directory.unlock(password: pw("old")) }
        #expect(try directory.unlock(password: pw("new")).setting("k") == "v")
    }

    @Test func flippingAnyHeaderByteFailsThatSlotOnly() throws {
        let root = try TestRoot(version3: true)
        let directory = try root.initialized()
        let target = try directory.createVault(password: pw("target"), iterations: testIterations)
        let bystander = try directory.createVault(password: pw("bystander"), iterations: testIterations)
        try bystander.write("k", "still here")
        let path = directory.store.file(target.slotName)
        let original = try directory.store.read(target.slotName)
        for offset in 0..<SlotFormat.headerSize {
            var damaged = original
            damaged[offset] ^= 0x01
            try Data(damaged).write(to: URL(fileURLWithPath: path))
            #expect(throws: VaultError.wrongPassword, "offset \(offset)") {
                try directory.unlock(password: pw("target"))
            }
        }
        try Data(original).write(to: URL(fileURLWithPath: path))
        #expect(try directory.unlock(password: pw("bystander")).setting("k") == "still here")
        #expect(try directory.unlock(password: pw("target")).isLocked == false)
    }

    @Test func lockZeroesTheKeyStorage() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("pw"), iterations: testIterations)
        let key = vault.key
        #expect(!key.isZeroed)
        vault.lock()
        #expect(key.isZeroed)
        #expect(throws: VaultError.locked) { try vault.persist() }
    }

    @Test func destroyErasesTheSlotAndRestoresTen() throws {
        let root = try TestRoot(version3: true)
        let directory = try root.initialized()
        let doomed = try directory.createVault(password: pw("doomed"), iterations: testIterations)
        let keeper = try directory.createVault(password: pw("keeper"), iterations: testIterations)
        try keeper.write("k", "v")
        let doomedName = doomed.slotName
        try directory.destroy(doomed)
        #expect(doomed.isLocked)
        let names = try root.slotNames()
        #expect(names.count == 10)
        #expect(!names.contains(doomedName))
        #expect(try directory.decoyNames().count == 9)
        #expect(throws: VaultError.wrongPassword) { try directory.unlock(password: pw("doomed")) }
        #expect(try directory.unlock(password: pw("keeper")).setting("k") == "v")
    }

    @Test func eleventhVaultNeedsExplicitExtension() throws {
        let root = try TestRoot(version3: true)
        let directory = try root.initialized()
        for i in 0..<10 { _ = try directory.createVault(password: pw("v\(i)"), iterations: testIterations) }
        #expect(try directory.decoyNames().isEmpty)
        #expect(throws: VaultError.noFreeSlot) {
            try directory.createVault(password: pw("v10"), iterations: testIterations)
        }
        #expect(try root.slotNames().count == 10)
        let extra = try directory.createVault(password: pw("v10"), iterations: testIterations, allowExtendedSlots: true)
        #expect(try root.slotNames().count == 11)
        // Destroying a vault of an extended directory leaves ten slots and adds no decoy.
        try directory.destroy(extra)
        #expect(try root.slotNames().count == 10)
        for i in 0..<10 { #expect(try directory.unlock(password: pw("v\(i)")).isLocked == false) }
    }

    /// Issue #13 item 9: every slot of a directory keeps one iteration count, so a vault
    /// made after the default changed (or with another count asked for) is not marked by
    /// its header: it takes the count of the decoy it replaces, and an extended slot the
    /// count the others share.
    @Test func createTakesTheDirectorysIterationCount() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let counts = { try directory.readHeaders().headers.map { $0?.iterations } }
        let asked = try directory.createVault(password: pw("asked"), iterations: testIterations * 3)
        #expect(asked.header.iterations == UInt32(testIterations))
        // The default (600,000 rounds) is not what this directory was made with either.
        let defaulted = try directory.createVault(password: pw("defaulted"))
        #expect(defaulted.header.iterations == UInt32(testIterations))
        for i in 0..<8 { _ = try directory.createVault(password: pw("v\(i)"), iterations: testIterations) }
        let extra = try directory.createVault(password: pw("extra"), iterations: testIterations + 1, allowExtendedSlots: true)
        #expect(extra.header.iterations == UInt32(testIterations))
        #expect(try Set(counts()) == [UInt32(testIterations)], "one count in every slot")
        #expect(try directory.unlock(password: pw("defaulted")).slotName == defaulted.slotName)
    }

    @Test func secondOpenOfADirectoryIsRefused() throws {
        let root = try TestRoot()
        let first = try root.initialized()
        #expect(throws: VaultError.inUse(root.vaultPath)) { try root.open() }
        _ = first
    }

    @Test func createNeedsTheDeviceSecret() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        try FileManager.default.removeItem(atPath: root.secrets.path)
        #expect(throws: VaultError.deviceSecretMissing(root.secrets.path)) {
            try directory.createVault(password: pw("pw"), iterations: testIterations)
        }
    }

    @Test func missingDirectoryIsNotInitialized() throws {
        let root = try TestRoot()
        #expect(throws: VaultError.notInitialized(root.vaultPath)) { try root.open(create: false) }
    }
}
