import Foundation
import ObscuraCrypto
import Testing
@testable import ObscuraKit
import ObscuraKeys
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

    @Test func lockZeroesTheKeyStorage() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("pw"), iterations: testIterations)
        let key = vault.key
        #expect(!key.isZeroed)
        vault.lock()
        #expect(key.isZeroed)
        #expect(throws: VaultError.locked) { try vault.retryFailedRenditions() }
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
        #expect(throws: KeyError.deviceSecretMissing(root.secrets.path)) {
            try directory.createVault(password: pw("pw"), iterations: testIterations)
        }
    }

    @Test func missingDirectoryIsNotInitialized() throws {
        let root = try TestRoot()
        #expect(throws: VaultError.notInitialized(root.vaultPath)) { try root.open(create: false) }
    }
}
