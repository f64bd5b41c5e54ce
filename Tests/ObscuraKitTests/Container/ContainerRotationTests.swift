import Foundation
import ObscuraCrypto
import Testing
import ObscuraStoreTestSupport
@testable import ObscuraKit
@testable import ObscuraStore

/// Rotating the outer key (docs/FORMAT.md §8.11): a commit under the new key, then a
/// cover commit. A crash anywhere leaves a directory that the new key, or else the old
/// one, opens to the same contents; once the rotation returns, the old key opens nothing.
@Suite struct ContainerRotationTests {
    typealias F = ContainerFixtures
    static let newKey = SecureBytes(copying: [UInt8](repeating: 0xA5, count: 32))

    /// Opens `files` as the CLI does with both keys in the keyring: the new key first,
    /// then the old one when the new one's commit does not hold. Returns which opened.
    static func openEither(_ files: RecordingSlotFiles) throws -> (SlotContainer, usedNew: Bool) {
        do {
            return (try SlotContainer.open(files: files, key: OuterKey(newKey)), true)
        } catch is ContainerError {
            return (try SlotContainer.open(files: files, key: F.key()), false)
        }
    }

    @Test func aCrashAnywhereInARotationOpensWithOneKeyToTheSameContents() throws {
        let (files, container, contents) = try F.make()
        let lengths = contents.mapValues(\.count)
        let random = SeededRandom(seed: "rotation")
        var images = [[String: [UInt8]]]()
        files.beforeSync = { images += CrashImages.crashImages($0, random: random) }
        try container.commit(rekeyingTo: OuterKey(Self.newKey))
        let afterRotation = files.snapshot
        try container.retireOtherSuperblocks()
        // Before the cover commit overwrites anything, the old key opens nothing: it can
        // never meet a commit whose blocks are being overwritten.
        #expect(throws: ContainerError.self) { try SlotContainer.open(files: RecordingSlotFiles(files.snapshot), key: F.key()) }
        try container.commit()
        files.beforeSync = nil
        images += CrashImages.crashImages(files, random: random)
        #expect(images.count > 40)

        var openedWith = (old: 0, new: 0)
        for image in images {
            let recorder = RecordingSlotFiles(image)
            let (opened, usedNew) = try Self.openEither(recorder)
            #expect(try F.contents(opened, lengths: lengths) == contents)
            if usedNew { openedWith.new += 1 } else { openedWith.old += 1 }
            // Review 2, H1: whenever the old key opens an image at all, it is the whole
            // state from before the rotation, never one whose blocks are being overwritten.
            if usedNew, let stale = try? SlotContainer.open(files: RecordingSlotFiles(image), key: F.key()) {
                #expect(try F.contents(stale, lengths: lengths) == contents)
            }
            // Whichever key opened it, a second open with it has nothing to do.
            let again = RecordingSlotFiles(recorder.snapshot)
            _ = try SlotContainer.open(files: again, key: usedNew ? OuterKey(Self.newKey) : F.key())
            #expect(again.writeCount == 0)
        }
        #expect(openedWith.old > 0 && openedWith.new > 0, "\(openedWith)")

        // Between the two commits both keys open it, to the same contents; after the
        // cover commit only the new one does.
        let between = try SlotContainer.open(files: RecordingSlotFiles(afterRotation), key: F.key())
        #expect(try F.contents(between, lengths: lengths) == contents)
        #expect(throws: ContainerError.outerKeyMismatch) { try SlotContainer.open(files: RecordingSlotFiles(files.snapshot), key: F.key()) }
        let rotated = try SlotContainer.open(files: RecordingSlotFiles(files.snapshot), key: OuterKey(Self.newKey))
        #expect(try F.contents(rotated, lengths: lengths) == contents)
    }

    /// Review 3, M1: a rotation cut short after its commit, then any commit by a new
    /// handle. That commit overwrites the old key's superblocks and syncs before it
    /// writes a block, so the old key never meets a half-overwritten commit.
    @Test func theFirstCommitAfterARotationCutShortRetiresTheOldSuperblocksFirst() throws {
        let (files, container, _) = try F.make()
        try container.commit(rekeyingTo: OuterKey(Self.newKey))
        let reopened = RecordingSlotFiles(files.snapshot)
        let handle = try SlotContainer.open(files: reopened, key: OuterKey(Self.newKey))
        #expect(handle.otherPositionForeign)
        var checked = false
        reopened.beforeSync = { files in
            guard !checked, files.unsynced.contains(where: { $0.offset >= 2 * ContainerFormat.blockSize }) else { return }
            checked = true
            // Blocks are about to be made durable: the old key must open nothing already.
            #expect(throws: ContainerError.self) {
                try SlotContainer.open(files: RecordingSlotFiles(files.crashImage(keep: [])), key: F.key())
            }
        }
        try handle.commit(replacing: [handle.slots[0]: SeededRandom(seed: "after").bytes(5000)])
        #expect(checked)
        #expect(!handle.otherPositionForeign)
        #expect(throws: ContainerError.self) { try SlotContainer.open(files: RecordingSlotFiles(reopened.snapshot), key: F.key()) }
    }

    @Test func aRotatedDirectoryOpensOnlyWithTheNewKeyAndKeepsEveryVault() throws {
        let root = try TestRoot()
        do {
            let directory = try VaultDirectory(path: root.vaultPath, deviceSecrets: root.secrets, outerKey: F.outerKey, create: true)
            try directory.initialize(iterations: testIterations)
            try directory.createVault(password: pw("alpha"), iterations: testIterations).write("note", "kept")
            try directory.rotateOuterKey(to: Self.newKey)
            // The handle goes on under the new key.
            let vault = try directory.unlock(password: pw("alpha"))
            try vault.write("after", "rotation")
        }
        #expect(throws: ContainerError.outerKeyMismatch) {
            try VaultDirectory(path: root.vaultPath, deviceSecrets: root.secrets, outerKey: F.outerKey)
        }
        let reopened = try VaultDirectory(path: root.vaultPath, deviceSecrets: root.secrets, outerKey: Self.newKey)
        let vault = try reopened.unlock(password: pw("alpha"))
        #expect(try vault.setting("note") == "kept" && vault.setting("after") == "rotation")
        #expect(try reopened.decoyNames().count == 9)
    }
}
