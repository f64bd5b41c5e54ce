import Foundation
import ObscuraCrypto
import Testing
import ObscuraStoreTestSupport
@testable import ObscuraKit
@testable import ObscuraStore

/// A vault directory sealed as a version 4 container (docs/FORMAT.md §8): the vault
/// operations of version 3 work unchanged on top of it, and every one of them leaves the
/// slots changed at the same blocks, with one size.
@Suite struct ContainerDirectoryTests {
    typealias F = ContainerFixtures

    func open(_ root: TestRoot, key: SecureBytes? = F.outerKey) throws -> VaultDirectory {
        try VaultDirectory(path: root.vaultPath, deviceSecrets: root.secrets, outerKey: key, create: true)
    }

    /// Every slot changed at the same blocks between `before` and now, and has one size.
    func expectUniform(_ root: TestRoot, since before: [String: [UInt8]], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let after = try root.snapshot()
        #expect(Set(after.keys) == Set(before.keys), "slot files came or went", sourceLocation: sourceLocation)
        let changes = after.keys.map { F.changedBlocks(before[$0] ?? [], after[$0]!) }
        #expect(Set(changes).count == 1, "slots changed at different blocks", sourceLocation: sourceLocation)
        #expect(!changes[0].isEmpty, sourceLocation: sourceLocation)
        #expect(Set(after.values.map(\.count)).count == 1, sourceLocation: sourceLocation)
        #expect(after.values.allSatisfy { !$0.starts(with: SlotFormat.magic) }, sourceLocation: sourceLocation)
    }

    @Test func vaultsWorkInsideAContainerAndNeedItsKey() throws {
        let root = try TestRoot()
        do {
            let directory = try open(root)
            try directory.initialize(iterations: testIterations)
            let vault = try directory.createVault(password: pw("alpha"), iterations: testIterations)
            try vault.write("note", "kept")
            vault.lock()
        }
        #expect(try root.slotNames().count == 10)
        let reopened = try open(root)
        #expect(try reopened.unlock(password: pw("alpha")).setting("note") == "kept")
        #expect(throws: VaultError.wrongPassword) { try reopened.unlock(password: pw("beta")) }
        #expect(try reopened.decoyNames().count == 9)
    }

    @Test func withoutTheOuterKeyOrWithAnotherItDoesNotOpen() throws {
        let root = try TestRoot()
        try open(root).initialize(iterations: testIterations)
        #expect(throws: VaultError.outerKeyRequired) { try open(root, key: nil) }
        #expect(throws: ContainerError.outerKeyMismatch) {
            try open(root, key: SecureBytes(copying: [UInt8](repeating: 9, count: 32)))
        }
    }

    @Test func everyVaultOperationChangesEverySlotAtTheSameBlocks() throws {
        let root = try TestRoot()
        let directory = try open(root)
        try directory.initialize(iterations: testIterations)
        var before = try root.snapshot()
        let vault = try directory.createVault(password: pw("alpha"), iterations: testIterations)
        try expectUniform(root, since: before)

        before = try root.snapshot()
        try vault.write("a", "1")
        try expectUniform(root, since: before)

        before = try root.snapshot()
        try vault.changePassword(to: pw("gamma"), kdf: .pbkdf2(iterations: testIterations))
        try expectUniform(root, since: before)

        let other = try directory.createVault(password: pw("delta"), iterations: testIterations)
        before = try root.snapshot()
        try directory.destroy(other)
        try expectUniform(root, since: before)
        #expect(throws: VaultError.wrongPassword) { try directory.unlock(password: pw("delta")) }
        #expect(try directory.decoyNames().count == 9)
        #expect(try directory.unlock(password: pw("gamma")).setting("a") == "1")
    }

    @Test func anEleventhSlotIsAddedInsideTheContainer() throws {
        let root = try TestRoot()
        let directory = try open(root)
        try directory.initialize(iterations: testIterations)
        for n in 0..<10 { _ = try directory.createVault(password: pw("vault \(n)"), iterations: testIterations) }
        #expect(throws: VaultError.noFreeSlot) { try directory.createVault(password: pw("eleven"), iterations: testIterations) }
        let before = try root.snapshot()
        _ = try directory.createVault(password: pw("eleven"), iterations: testIterations, allowExtendedSlots: true)
        let after = try root.snapshot()
        #expect(after.count == 11 && Set(after.values.map(\.count)).count == 1)
        for name in before.keys {
            #expect(F.changedBlocks(before[name]!, after[name]!) == F.changedBlocks(before[before.keys.first!]!, after[before.keys.first!]!))
        }
        #expect(try directory.unlock(password: pw("eleven")).setting("x") == nil)
    }
}
