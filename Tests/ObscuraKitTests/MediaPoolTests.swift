import Foundation
import GRDB
import ObscuraCrypto
import Testing
@testable import ObscuraCatalog
@testable import ObscuraKit
@testable import ObscuraStore

@Suite struct MediaPoolTests {
    func vault(_ root: TestRoot, _ password: String = "pw") throws -> Vault {
        let directory = try root.initialized()
        return try directory.createVault(password: pw(password), iterations: testIterations)
    }

    func poolFiles(_ root: TestRoot) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: root.vaultPath + "/media"))
    }

    @Test func rangeReadsDecryptAtMostTwoChunks() throws {
        let root = try TestRoot()
        let v = try vault(root)
        let bytes = SeededRandom(seed: "range").bytes(10 * ChunkedFormat.defaultChunkSize + 1234)
        let item = try v.addRaw(bytes, name: "big.bin")
        let reader = try v.originalReader(item)
        let random = SeededRandom(seed: "offsets")
        for _ in 0..<50 {
            let offset = UInt64(random.uniform(in: 0..<(bytes.count - 65536)))
            let before = reader.chunksDecrypted
            let got = try reader.read(offset..<(offset + 65536))
            #expect(got == Array(bytes[Int(offset)..<Int(offset) + 65536]))
            #expect(reader.chunksDecrypted - before <= 2)
        }
        #expect(try reader.read(UInt64(bytes.count - 10)..<UInt64(bytes.count + 100)) == Array(bytes.suffix(10)))
    }

    func damaged(_ root: TestRoot, _ change: (inout [UInt8]) -> Void) throws -> (Vault, ItemRecord) {
        let v = try vault(root)
        let item = try v.addRaw(SeededRandom(seed: "d").bytes(3 * ChunkedFormat.defaultChunkSize + 5), name: "x")
        let path = try v.directory.pool.dataPath(item.mediaId)
        var file = try FileIO.read(path)
        change(&file)
        try Data(file).write(to: URL(fileURLWithPath: path))
        return (v, item)
    }

    @Test func truncatedFileFails() throws {
        let r1 = try TestRoot(); let (v, item) = try damaged(r1) { $0.removeLast() }
        #expect(throws: StreamError.truncated) { try v.read(item, range: 0..<10) }
        let r2 = try TestRoot(); let (v2, item2) = try damaged(r2) { $0.removeLast(ChunkedFormat.defaultChunkSize / 2) }
        #expect(throws: StreamError.truncated) { try v2.export(item2) { _ in } }
        let r3 = try TestRoot(); let (v3, item3) = try damaged(r3) { $0.append(0) }
        #expect(throws: StreamError.trailingData) { try v3.read(item3, range: 0..<10) }
    }

    @Test func swappedChunksFail() throws {
        let size = ChunkedFormat.defaultChunkSize + 16
        let r1 = try TestRoot(); let (v, item) = try damaged(r1) { file in
            let a = ChunkedFormatV2.headerSize + size, b = ChunkedFormatV2.headerSize + 2 * size
            let chunk1 = Array(file[a..<b])
            file.replaceSubrange(a..<b, with: file[b..<(b + size)])
            file.replaceSubrange(b..<(b + size), with: chunk1)
        }
        #expect(throws: StreamError.chunkFailed(1)) { try v.read(item, range: UInt64(ChunkedFormat.defaultChunkSize)..<UInt64(ChunkedFormat.defaultChunkSize + 1)) }
        #expect(try v.read(item, range: 0..<100).count == 100)
    }

    @Test func editedHeaderFails() throws {
        let r1 = try TestRoot(); let (v, item) = try damaged(r1) { $0[30] ^= 1 }  // salt
        #expect(throws: StreamError.chunkFailed(0)) { try v.read(item, range: 0..<10) }
        let r2 = try TestRoot(); let (v2, item2) = try damaged(r2) { $0[19] ^= 1 }  // total size
        #expect(throws: StreamError.self) { try v2.read(item2, range: 0..<10) }
        let r3 = try TestRoot(); let (v3, item3) = try damaged(r3) { $0[7] = 1 }  // claims folder protection
        #expect(throws: StreamError.self) { try v3.read(item3, range: 0..<10) }
    }

    @Test func protectedFolderHidesItemsFromTheMEKAlone() throws {
        let root = try TestRoot()
        let v = try vault(root)
        let secret = try v.createFolder("Secret", password: pw("fpw"), iterations: testIterations)
        let bytes = SeededRandom(seed: "secret").bytes(5000)
        let item = try v.addRaw(bytes, name: "hidden-name.jpg", folder: secret, thumbnail: [0xFF, 0xD8, 1, 2])
        #expect(try v.items().map(\.record.name) == ["hidden-name.jpg"])
        v.lockFolders()
        #expect(try v.items().isEmpty)
        let row = try v.catalog.database.read { try ItemRecord.fetchOne($0, key: item.id) }!
        #expect(row.name.isEmpty && row.protectedMeta != nil)
        #expect(throws: VaultError.folderLocked("Secret")) { try v.read(row, range: 0..<10) }
        #expect(throws: VaultError.folderLocked("Secret")) { try v.thumbnail(row) }
        // The file itself cannot be opened with the MEK alone, whatever the reader is told.
        let forced = try ChunkedFileReader(path: v.directory.pool.dataPath(item.mediaId)) { header in
            #expect(header.isFolderProtected)
            return try ChunkCipher(header: ChunkedHeader(flags: 0, salt: header.salt, chunkSize: header.chunkSize,
                                                         totalSize: header.totalSize),
                                   key: v.key, folderKey: nil, context: Vault.context(item.mediaId))
        }
        #expect(throws: StreamError.self) { try forced.chunk(0) }
        #expect(throws: VaultError.wrongFolderPassword) { try v.unlockFolder(secret, password: pw("nope")) }
        try v.unlockFolder(secret, password: pw("fpw"))
        #expect(try v.read(row, range: 0..<5000) == bytes)
        #expect(try v.thumbnail(row) == [0xFF, 0xD8, 1, 2])
        #expect(try v.items(in: secret).map(\.record.name) == ["hidden-name.jpg"])
    }

    /// §6.4: a protected folder (wrappedKey set) whose salt, count or verifier is missing
    /// is damaged; unlocking it says so instead of returning as if it had worked.
    @Test func incompleteProtectedFolderRecordIsCorrupt() throws {
        let root = try TestRoot()
        let v = try vault(root)
        let secret = try v.createFolder("Secret", password: pw("fpw"), iterations: testIterations)
        v.lockFolders()
        let edits: [(inout FolderRecord) -> Void] = [{ $0.kdfSalt = nil }, { $0.kdfIterations = nil }, { $0.keyVerifier = nil }]
        for edit in edits {
            var damaged = secret
            edit(&damaged)
            #expect(throws: VaultError.self) { try v.unlockFolder(damaged, password: pw("fpw")) }
            #expect(!v.isOpen(damaged))
        }
        try v.unlockFolder(secret, password: pw("fpw"))
        #expect(v.isOpen(secret))
    }

    @Test func moveAcrossProtectionReencrypts() throws {
        let root = try TestRoot()
        let v = try vault(root)
        let secret = try v.createFolder("Secret", password: pw("fpw"), iterations: testIterations)
        let plain = try v.createFolder("Plain")
        let bytes = SeededRandom(seed: "move").bytes(3000)
        let item = try v.addRaw(bytes, name: "a.bin", thumbnail: [1, 2, 3])
        try v.moveItems([item.id], to: secret)
        let moved = try v.item(item.id)
        #expect(moved.mediaId != item.mediaId && moved.folderId == secret.id)
        #expect(try FileIO.read(v.directory.pool.dataPath(moved.mediaId))[7] == 1)
        #expect(try !FileManager.default.fileExists(atPath: v.directory.pool.dataPath(item.mediaId)))
        #expect(try v.read(moved, range: 0..<3000) == bytes)
        try v.moveItems([item.id], to: plain)
        let back = try v.item(item.id)
        #expect(try FileIO.read(v.directory.pool.dataPath(back.mediaId))[7] == 0)
        #expect(try v.read(back, range: 0..<3000) == bytes && back.name == "a.bin")
        #expect(try v.thumbnail(back) == [1, 2, 3])
        #expect(try poolFiles(root).count == 2)
    }

    @Test func deleteRemovesOnlyItsOwnFiles() throws {
        let root = try TestRoot()
        let v = try vault(root)
        let foreign = root.vaultPath + "/media/00000000-0000-0000-0000-000000000000.data.enc"
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: foreign))
        let item = try v.addRaw([9, 9, 9], name: "gone", thumbnail: [1])
        let keep = try v.addRaw([8, 8], name: "kept")
        try v.deleteItems([item.id])
        #expect(try v.items().map(\.record.id) == [keep.id])
        #expect(try poolFiles(root) == [foreign.split(separator: "/").last.map(String.init)!, keep.mediaId + ".data.enc"])
        #expect(throws: VaultError.noSuchItem(item.id)) { try v.item(item.id) }
    }

    @Test func verifyReportsDamageAndIgnoresForeignFiles() throws {
        let root = try TestRoot()
        let v = try vault(root)
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: root.vaultPath + "/media/11111111-1111-1111-1111-111111111111.data.enc"))
        let good = try v.addRaw([1, 2, 3, 4], name: "good")
        let bad = try v.addRaw(SeededRandom(seed: "bad").bytes(100), name: "bad")
        #expect(try v.verify().problems.isEmpty)
        var file = try FileIO.read(v.directory.pool.dataPath(bad.mediaId))
        file[40] ^= 0x10
        try Data(file).write(to: URL(fileURLWithPath: v.directory.pool.dataPath(bad.mediaId)))
        let result = try v.verify()
        #expect(result.checked == 2 && result.problems.map(\.itemId) == [bad.id])
        _ = good
    }

    @Test func destroyDeletesOnlyThatVaultsMedia() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let doomed = try directory.createVault(password: pw("doomed"), iterations: testIterations)
        let keeper = try directory.createVault(password: pw("keeper"), iterations: testIterations)
        try doomed.addRaw([1, 2], name: "a", thumbnail: [3])
        let kept = try keeper.addRaw([4, 5], name: "b")
        try directory.destroy(doomed)
        #expect(try poolFiles(root) == [kept.mediaId + ".data.enc"])
        #expect(try keeper.read(kept, range: 0..<2) == [4, 5])
    }

    /// docs/FORMAT.md §6.6: originals and thumbnails are version 2 files, each with a salt
    /// of its own, and nothing is reserved in the catalog's nonce-prefix registry.
    @Test func filesAreVersion2WithTheirOwnSaltsAndReserveNoPrefix() throws {
        let root = try TestRoot()
        let v = try vault(root)
        let secret = try v.createFolder("Secret", password: pw("fpw"), iterations: testIterations)
        var salts = Set<[UInt8]>()
        for i in 0..<10 {
            let item = try v.addRaw([UInt8(i)], name: "\(i)", folder: i % 2 == 0 ? nil : secret, thumbnail: [UInt8(i)])
            for path in try v.directory.pool.files(of: item) {
                let file = try FileIO.read(path)
                #expect(Array(file[0..<6]) == ChunkedFormat.magic + [0, 2])
                #expect(file[7] == (i % 2 == 0 ? 0 : 1))
                salts.insert(Array(file[20..<52]))
            }
        }
        #expect(salts.count == 20)
        let recorded = try v.catalog.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM noncePrefix") }
        #expect(recorded == 0)
    }

    @Test func emptyFileRoundTrips() throws {
        let root = try TestRoot()
        let v = try vault(root)
        let item = try v.addRaw([], name: "empty")
        var out = [UInt8]()
        try v.export(item) { out += $0 }
        #expect(out.isEmpty)
        #expect(try FileIO.size(v.directory.pool.dataPath(item.mediaId)) == ChunkedFormatV2.headerSize + 16)
    }

    /// Issue #13 item 12: the pool files a vault's catalog does not name are counted, not
    /// touched; the other vaults' files are among them, since a session sees one catalog.
    @Test func unnamedPoolFilesAreCountedNotTouched() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let mine = try directory.createVault(password: pw("mine"), iterations: testIterations)
        let other = try directory.createVault(password: pw("other"), iterations: testIterations)
        try mine.addRaw([1, 2], name: "a", thumbnail: [3])
        try mine.addRaw([4], name: "b")
        try other.addRaw([5], name: "c", thumbnail: [6])
        try Data([7]).write(to: URL(fileURLWithPath: root.vaultPath + "/media/\(UUID().uuidString.lowercased()).data.enc"))
        try Data([8]).write(to: URL(fileURLWithPath: root.vaultPath + "/media/not-a-pool-file"))
        let before = try poolFiles(root)
        #expect(try mine.unnamedPoolFileCount() == 3, "the other vault's two files and the leftover")
        #expect(try other.unnamedPoolFileCount() == 4)
        #expect(try poolFiles(root) == before)
    }
}
