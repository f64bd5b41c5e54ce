import Foundation
import GRDB
import ObscuraCrypto
import ObscuraStoreTestSupport
import ObscuraTestSupport
import Testing
@testable import ObscuraCatalog
@testable import ObscuraKit

/// Keyed content hashes (docs/FORMAT.md §6.7): what imports store, which items duplicate
/// detection sees, and the conversion of the plain hashes older catalogs hold.
@Suite struct ContentHashTests {
    /// A vault ("pw") with an unprotected folder "Plain" and a protected one "Secret"
    /// ("fpw", unlocked), and a directory of source files.
    final class Fixture {
        let root: TestRoot
        let vault: Vault
        let plain: FolderRecord
        let secret: FolderRecord

        init() throws {
            root = try TestRoot()
            vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
            plain = try vault.createFolder("Plain")
            secret = try vault.createFolder("Secret", password: pw("fpw"), iterations: testIterations)
            try FileManager.default.createDirectory(atPath: root.path + "/src", withIntermediateDirectories: true)
        }

        /// Writes `bytes` to a new source file and returns its path.
        func source(_ bytes: [UInt8]) throws -> String {
            let path = root.path + "/src/" + UUID().uuidString + ".bin"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }

        /// Imports `bytes` into `folder`: "imported" or "duplicate".
        func importing(_ bytes: [UInt8], into folder: FolderRecord? = nil) throws -> String {
            let report = try vault.importFiles([try source(bytes)], into: folder)
            #expect(report.failures.isEmpty)
            return report.imported.count == 1 ? "imported" : report.duplicates.count == 1 ? "duplicate" : "neither"
        }

        func folderKey() -> SecureBytes { vault.stateLock.withLock { vault.folderKeys[secret.id]! } }
    }

    static func keyed(_ bytes: [UInt8], under root: SecureBytes) -> Data {
        ContentHash.keyed(sha256: SHA256Digest.hash(bytes), key: ContentHash.key(from: root))
    }

    @Test func importsStoreTheHashKeyedUnderTheirFolders() throws {
        let f = try Fixture()
        let top = SeededRandom(seed: "top").bytes(3000), hidden = SeededRandom(seed: "hidden").bytes(3000)
        let report = try f.vault.importFiles([try f.source(top)])
        let stored = try f.vault.storedContentHash(report.imported[0].id)
        #expect(stored.count == 33 && stored.first == 0x01)
        #expect(stored == Self.keyed(top, under: f.vault.key))
        #expect(stored != Data(SHA256Digest.hash(top)))
        let secretItem = try f.vault.importFiles([try f.source(hidden)], into: f.secret).imported[0]
        let secretHash = try f.vault.storedContentHash(secretItem.id)
        #expect(secretHash == Self.keyed(hidden, under: f.folderKey()))
        #expect(secretHash != Self.keyed(hidden, under: f.vault.key), "the MEK's hash key cannot test a guess against it")
    }

    /// Duplicates are matched against every item the session can open, across folders
    /// and protection, and never against a locked folder's items.
    @Test func duplicatesAreMatchedOnlyAgainstWhatTheSessionCanOpen() throws {
        let f = try Fixture()
        let x = SeededRandom(seed: "x").bytes(2000), y = SeededRandom(seed: "y").bytes(2000)
        #expect(try f.importing(x) == "imported")
        #expect(try f.importing(x) == "duplicate")
        #expect(try f.importing(x, into: f.plain) == "duplicate")
        #expect(try f.importing(x, into: f.secret) == "duplicate", "the top-level item is open")
        #expect(try f.importing(y, into: f.secret) == "imported")
        #expect(try f.importing(y, into: f.secret) == "duplicate")
        #expect(try f.importing(y) == "duplicate", "the unlocked folder's item is open")
        #expect(try f.importing(y, into: f.plain) == "duplicate")
        f.vault.lockFolders()
        #expect(try f.importing(y) == "imported", "a locked folder's items are not compared")
        #expect(throws: VaultError.folderLocked("Secret")) { try f.vault.importFiles([try f.source(x)], into: f.secret) }
        // Within one batch, the second copy is the duplicate.
        let z = SeededRandom(seed: "z").bytes(100)
        let batch = try f.vault.importFiles([try f.source(z), try f.source(z)])
        #expect(batch.imported.count == 1 && batch.duplicates.count == 1)
    }

    @Test func uploadsAreMatchedTheSameWay() throws {
        let f = try Fixture()
        let y = SeededRandom(seed: "upload").bytes(700)
        func upload(into folder: FolderRecord? = nil) throws -> Vault.UploadOutcome {
            let buffer = try UploadBuffer(expectedSize: Int64(y.count))
            try y.withUnsafeBytes { try buffer.append($0) }
            return try f.vault.importUpload(buffer, name: "y.bin", into: folder)
        }
        guard case let .imported(item) = try upload(into: f.secret) else { Issue.record("not imported"); return }
        #expect(try f.vault.storedContentHash(item.id) == Self.keyed(y, under: f.folderKey()))
        #expect(try upload() == .duplicate)
        f.vault.lockFolders()
        guard case .imported = try upload() else { Issue.record("a locked folder's item was matched"); return }
    }

    /// A catalog from before keyed hashes, in a version 3 directory: migrated, its first
    /// unlock converts it to the paged catalog (§9.7) and keys the vault's hashes, a
    /// protected folder's when that is next unlocked; duplicates are found before and after.
    @Test func plainHashesAreConvertedAtUnlockAndAtFolderUnlock() throws {
        let root = try TestRoot(version3: true)
        let a = SeededRandom(seed: "a").bytes(1000), b = SeededRandom(seed: "b").bytes(1000), c = SeededRandom(seed: "c").bytes(1000)
        var itemA: ItemRecord!, itemB: ItemRecord!, itemC: ItemRecord!
        var secret: FolderRecord!, folderKey: SecureBytes!
        try root.makeVersion3([pw("pw")]) { _, vault in
            let plain = try vault.createFolder("Plain")
            secret = try vault.createFolder("Secret", password: pw("fpw"), iterations: testIterations)
            itemA = try vault.addLegacyRaw(a, name: "a")
            itemB = try vault.addLegacyRaw(b, name: "b", folder: plain)
            itemC = try vault.addLegacyRaw(c, name: "c", folder: secret, thumbnail: [1, 2])
            folderKey = vault.stateLock.withLock { vault.folderKeys[secret.id]! }.copy()  // lock() zeroes the session's own
            for (item, bytes) in [(itemA!, a), (itemB!, b), (itemC!, c)] {
                #expect(try vault.storedContentHash(item.id) == Data(SHA256Digest.hash(bytes)))
            }
        }
        func source(_ bytes: [UInt8]) throws -> String {
            try FileManager.default.createDirectory(atPath: root.path + "/src", withIntermediateDirectories: true)
            let path = root.path + "/src/" + UUID().uuidString + ".bin"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }

        let directory = try root.open(create: false)
        try directory.migrateToContainer(outerKey: ContainerFixtures.outerKey)
        let session = try directory.unlock(password: pw("pw"))
        #expect(try session.importFiles([try source(a)]).duplicates.count == 1, "a converted hash is matched")
        #expect(try session.storedContentHash(itemA.id) == Self.keyed(a, under: session.key))
        #expect(try session.storedContentHash(itemB.id) == Self.keyed(b, under: session.key))
        #expect(try session.storedContentHash(itemC.id) == Data(SHA256Digest.hash(c)), "its folder is locked")
        #expect(try session.convertContentHashes() == 0)

        try session.unlockFolder(secret, password: pw("fpw"))
        #expect(try session.storedContentHash(itemC.id) == Self.keyed(c, under: folderKey))
        #expect(try session.importFiles([try source(c)]).duplicates.count == 1)
        #expect(try session.read(try session.item(itemC.id), range: 0..<1000) == c)
        session.lock()

        let again = try directory.unlock(password: pw("pw"))
        #expect(try again.convertContentHashes() == 0, "the conversion was persisted")
        #expect(try again.storedContentHash(itemA.id) == Self.keyed(a, under: again.key))
        #expect(try again.storedContentHash(itemC.id) == Self.keyed(c, under: folderKey))
    }

    /// After its folder is unlocked, a protected item's plain SHA-256 is nowhere in the
    /// catalog image sealed under the MEK: not in a row, an index, or free space.
    @Test func noPlainHashOfAProtectedItemSurvivesConversion() throws {
        let f = try Fixture()
        let secrets = (0..<20).map { SeededRandom(seed: "s\($0)").bytes(500) }
        for (i, bytes) in secrets.enumerated() { try f.vault.addLegacyRaw(bytes, name: "\(i)", folder: f.secret) }
        f.vault.lock()
        let session = try f.vault.directory.unlock(password: pw("pw"))
        let before = try session.catalog.image()
        #expect(secrets.allSatisfy { before.contains(subsequence: SHA256Digest.hash($0)) }, "the check can see them")
        // As an SQLite built without SQLITE_SECURE_DELETE (Debian's has it) would start.
        try session.catalog.database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA secure_delete = OFF") }
        try session.unlockFolder(f.secret, password: pw("fpw"))
        let after = try session.catalog.image()
        #expect(secrets.filter { after.contains(subsequence: SHA256Digest.hash($0)) }.count == 0)
        session.lock()
        let reopened = try f.vault.directory.unlock(password: pw("pw"))
        let persisted = try reopened.catalog.image()
        #expect(secrets.filter { persisted.contains(subsequence: SHA256Digest.hash($0)) }.count == 0)
    }

    /// Moving an item across a protection boundary keys its hash under the target's key,
    /// from the plaintext it re-encrypts (a plain hash included).
    @Test func movesKeyTheHashAnew() throws {
        let f = try Fixture()
        let bytes = SeededRandom(seed: "move").bytes(1500), old = SeededRandom(seed: "old").bytes(1500)
        let item = try f.vault.addRaw(bytes, name: "m")
        let legacy = try f.vault.addLegacyRaw(old, name: "old")
        try f.vault.moveItems([item.id, legacy.id], to: f.secret)
        #expect(try f.vault.storedContentHash(item.id) == Self.keyed(bytes, under: f.folderKey()))
        #expect(try f.vault.storedContentHash(legacy.id) == Self.keyed(old, under: f.folderKey()))
        try f.vault.moveItems([item.id], to: f.plain)
        #expect(try f.vault.storedContentHash(item.id) == Self.keyed(bytes, under: f.vault.key))
        try f.vault.moveItems([item.id], to: nil)
        #expect(try f.vault.storedContentHash(item.id) == Self.keyed(bytes, under: f.vault.key))
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs in this array.
    func contains(subsequence needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
        return (0...(count - needle.count)).contains { self[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
