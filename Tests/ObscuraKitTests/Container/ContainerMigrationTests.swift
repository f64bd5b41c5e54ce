import Foundation
import ObscuraCrypto
import Testing
import ObscuraStoreTestSupport
@testable import ObscuraKit
@testable import ObscuraStore

/// Migration of a version 3 directory into the container (docs/FORMAT.md §8.10).
@Suite struct ContainerMigrationTests {
    typealias F = ContainerFixtures

    /// A version 3 directory with two vaults; returns its root.
    func version3Directory() throws -> TestRoot {
        let root = try TestRoot(version3: true)
        try root.makeVersion3([pw("alpha"), pw("beta")]) { n, vault in try vault.write("note", ["alpha's", "beta's"][n]) }
        return root
    }

    /// The slot files of `root`'s version 3 directory, and the crash images of their
    /// migration at every sync point.
    func migrationImages(_ root: TestRoot, seed: String) throws -> ([String: [UInt8]], [[String: [UInt8]]]) {
        let original = try root.snapshot().filter { SlotID(fileName: $0.key) != nil }
        let (_, images) = try CrashImages.imagesAtEverySync(RecordingSlotFiles(original), random: SeededRandom(seed: seed)) {
            try SlotContainer.migrate(files: $0, key: F.key())
        }
        return (original, images)
    }

    @Test func migrationKeepsEveryVaultAndLeavesNoVersion3Slot() throws {
        let root = try version3Directory()
        let before = try root.snapshot()
        do {
            let directory = try VaultDirectory(path: root.vaultPath, deviceSecrets: root.secrets, outerKey: F.outerKey)
            #expect(try directory.store.layout() == .version3)
            try directory.migrateToContainer()
            #expect(try directory.unlock(password: pw("alpha")).setting("note") == "alpha's")
        }
        let after = try root.snapshot()
        #expect(Set(after.keys) == Set(before.keys), "same slot names, nothing left beside them")
        #expect(after.values.allSatisfy { !$0.starts(with: SlotFormat.magic) })
        #expect(Set(after.values.map(\.count)).count == 1)
        for name in before.keys {
            var st = stat()
            #expect(stat(root.dataPath + "/" + name, &st) == 0)
        }
        let directory = try VaultDirectory(path: root.vaultPath, deviceSecrets: root.secrets, outerKey: F.outerKey)
        let beta = try directory.unlock(password: pw("beta"))
        #expect(try beta.setting("note") == "beta's")
        try beta.write("after", "migration")
        #expect(try directory.decoyNames().count == 8)
        #expect(throws: VaultError.outerKeyRequired) {
            try VaultDirectory(path: root.vaultPath + "-missing", deviceSecrets: root.secrets, create: true).migrateToContainer()
        }
    }

    @Test func aMigrationInPlaceKeepsEachSlotsInode() throws {
        let root = try version3Directory()
        let inodes = try root.slotNames().map { root.fileStat($0).st_ino }
        try VaultDirectory(path: root.vaultPath, deviceSecrets: root.secrets, outerKey: F.outerKey).migrateToContainer()
        #expect(try root.slotNames().map { root.fileStat($0).st_ino } == inodes)
    }

    @Test func aCrashAnywhereInAMigrationIsFinishedByTheNextOpen() throws {
        let root = try version3Directory()
        let (original, images) = try migrationImages(root, seed: "migration")
        #expect(images.count > 20)
        for image in images {
            let recovered = RecordingSlotFiles(image)
            let container = try SlotContainer.migrate(files: recovered, key: F.key())
            #expect(container.slots.count == original.count)
            for (name, bytes) in original {
                #expect(try container.readStream(SlotID(fileName: name)!, count: bytes.count) == bytes)
            }
            #expect(try recovered.names().allSatisfy { SlotID(fileName: $0) != nil })
        }
    }

    /// Review finding 1.1: every crash image of a migration that left a temporary beside
    /// the slots — the last slot's overwrite torn after its first bytes included — opens
    /// through the vault directory with the outer key, and every vault is whole.
    @Test func everyCrashImageWithATemporaryOpensThroughTheVaultDirectory() throws {
        let root = try version3Directory()
        let (_, images) = try migrationImages(root, seed: "migration-directory")
        let withTemporary = images.filter { $0.keys.contains { $0.hasPrefix(SlotContainer.migratingPrefix) } }
        #expect(withTemporary.count >= 10)
        // The worst case first: all but one slot wrapped, the last one torn.
        for image in withTemporary.suffix(12) {
            try FileManager.default.removeItem(atPath: root.dataPath)
            try FileManager.default.createDirectory(atPath: root.dataPath, withIntermediateDirectories: true)
            for (name, bytes) in image {
                try Data(bytes).write(to: URL(fileURLWithPath: root.dataPath + "/" + name))
            }
            let directory = try VaultDirectory(path: root.vaultPath, deviceSecrets: root.secrets, outerKey: F.outerKey)
            #expect(try directory.store.layout() == .container)
            #expect(try directory.unlock(password: pw("alpha")).setting("note") == "alpha's")
            #expect(try directory.unlock(password: pw("beta")).setting("note") == "beta's")
        }
    }

    /// A migration under way belongs to one key. An opener that tries its keyring's keys
    /// in turn must not let a wrong one remove a temporary (the only whole copy of a
    /// torn slot) or wrap the rest under itself: every crash image that is a migration
    /// under way refuses another key and stays byte for byte, then finishes under its own.
    @Test func aMigrationUnderWayRefusesAnotherKeyAndTouchesNothing() throws {
        let root = try version3Directory()
        let (original, images) = try migrationImages(root, seed: "migration-wrong-key")
        let other = try OuterKey(SecureBytes(copying: [UInt8](repeating: 0xA5, count: 32)))
        var underWay = 0
        for image in images {
            let started = image.contains { name, bytes in
                name.hasPrefix(SlotContainer.migratingPrefix)
                    || (SlotID(fileName: name) != nil && !bytes.starts(with: SlotFormat.magic))
            }
            guard started else { continue }
            underWay += 1
            let files = RecordingSlotFiles(image)
            #expect(throws: ContainerError.outerKeyMismatch) { try SlotContainer.migrate(files: files, key: other) }
            #expect(files.snapshot == image)
            let container = try SlotContainer.migrate(files: files, key: F.key())
            for (name, bytes) in original {
                #expect(try container.readStream(SlotID(fileName: name)!, count: bytes.count) == bytes)
            }
        }
        #expect(underWay >= 10)
    }

    /// Review finding 1.1(b): a temporary left after a finished migration is never copied
    /// over a slot that has had commits since.
    @Test func aStaleTemporaryNeverOverwritesALaterCommit() throws {
        let root = try version3Directory()
        let migrated: [String: [UInt8]]
        do {
            let directory = try VaultDirectory(path: root.vaultPath, deviceSecrets: root.secrets, outerKey: F.outerKey)
            try directory.migrateToContainer()
            migrated = try root.snapshot()
            let vault = try directory.unlock(password: pw("alpha"))
            try vault.write("later", "kept")
            vault.lock()
        }
        // Put one slot's first image back beside it as a temporary, as a crash before its
        // unlink would have left it.
        let name = migrated.keys.first { SlotID(fileName: $0) != nil }!
        try Data(migrated[name]!).write(to: URL(fileURLWithPath: root.dataPath + "/" + SlotContainer.migratingPrefix + name))
        let reopened = try VaultDirectory(path: root.vaultPath, deviceSecrets: root.secrets, outerKey: F.outerKey)
        #expect(try reopened.unlock(password: pw("alpha")).setting("later") == "kept")
        #expect(try !FileManager.default.contentsOfDirectory(atPath: root.dataPath).contains { $0.hasPrefix(SlotContainer.migratingPrefix) })
    }

    /// Security review M2: version 3 reads a sync conflict copy as a slot, the container
    /// would not take it; migration refuses by name and writes nothing.
    @Test func aSlotFileTheContainerCannotNameIsRefusedBeforeAnythingIsWritten() throws {
        let root = try version3Directory()
        let first = try root.slotNames()[0]
        let copy = first.replacingOccurrences(of: ".db.enc", with: " (conflicted copy).db.enc")
        try FileManager.default.copyItem(atPath: root.dataPath + "/" + first, toPath: root.dataPath + "/" + copy)
        let before = try root.snapshot()
        let directory = try root.open(create: false)
        #expect(throws: ContainerError.unmigratableSlots([copy])) { try directory.migrateToContainer(outerKey: F.outerKey) }
        #expect(try root.snapshot() == before)
    }

    /// Security review L1: a container slot that happens to begin with the version 3
    /// magic (its first bytes are random) is still read as a container, not a migration.
    @Test func aContainerSlotBeginningWithTheMagicIsStillAContainer() throws {
        let root = try TestRoot(version3: true)
        try VaultDirectory(path: root.vaultPath, deviceSecrets: root.secrets, outerKey: F.outerKey, create: true)
            .initialize(iterations: testIterations)
        let path = root.dataPath + "/" + (try root.slotNames()[3])
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.write(contentsOf: Data(SlotFormat.magic))
        try handle.close()
        let directory = try VaultDirectory(path: root.vaultPath, deviceSecrets: root.secrets, outerKey: F.outerKey)
        #expect(directory.isContainer)
        #expect(try directory.decoyNames().count == 10)
    }
}
