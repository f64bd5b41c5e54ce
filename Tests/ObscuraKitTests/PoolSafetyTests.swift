import Foundation
import ObscuraCrypto
import Testing
@testable import ObscuraCatalog
@testable import ObscuraKit
@testable import ObscuraStore

/// Issue #13 item 8: a media or thumbnail id becomes a pool path only when it is a
/// canonical lower-case UUID, and no pool write replaces a file that exists, so neither a
/// crafted catalog nor a crafted export can reach another vault's files.
@Suite struct PoolSafetyTests {
    /// Ids that must never become a path: case, separators, dot segments, length, form.
    static let badIds = [
        "6F0D2A3E-8B1C-4D5E-9F60-718293A4B5C6", "6f0d2a3e-8b1c-4d5e-9f60-718293a4b5C6",
        "../6f0d2a3e-8b1c-4d5e-9f60-718293a4b5c6", "6f0d2a3e-8b1c-4d5e-9f60/718293a4b5c6",
        "..", ".", "", "/", "a/b", "6f0d2a3e-8b1c-4d5e-9f60-718293a4b5c", "6f0d2a3e-8b1c-4d5e-9f60-718293a4b5c6a",
        "6f0d2a3e8b1c4d5e9f60718293a4b5c6", "{6f0d2a3e-8b1c-4d5e-9f60-718293a4b5c6}",
        "6f0d2a3e-8b1c-4d5e-9f60-718293a4b5g6", "6f0d2a3e_8b1c-4d5e-9f60-718293a4b5c6",
        " 6f0d2a3e-8b1c-4d5e-9f60-718293a4b5c", "6f0d2a3e-8b1c-4d5e-9f60-718293a4b5c\n",
        "６f0d2a3e-8b1c-4d5e-9f60-718293a4b5c6",
    ]

    @Test func poolPathsAcceptOnlyCanonicalLowerCaseUUIDs() throws {
        let pool = MediaPool(path: "/nonexistent/media")
        let good = "6f0d2a3e-8b1c-4d5e-9f60-718293a4b5c6"
        #expect(try pool.dataPath(good) == "/nonexistent/media/" + good + ".data.enc")
        #expect(try pool.thumbPath(good) == "/nonexistent/media/" + good + ".thumb.enc")
        for id in Self.badIds {
            #expect(throws: VaultError.self, "\(id.debugDescription)") { try pool.dataPath(id) }
            #expect(throws: VaultError.self, "\(id.debugDescription)") { try pool.thumbPath(id) }
        }
    }

    @Test func poolWritesNeverReplaceAnExistingFile() throws {
        let root = try TestRoot()
        let pool = try root.initialized().pool
        let target = try pool.thumbPath(UUID().uuidString.lowercased())
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: target))
        #expect(throws: StorageError.self) { try pool.writeAtomically([9, 9], to: target) }
        let temporary = pool.temporaryPath()
        try FileIO.createDurably(temporary, parts: [[7, 7]])
        #expect(throws: StorageError.self) { try pool.publish(temporary, as: target) }
        #expect(try FileIO.read(target) == [1, 2, 3])
        #expect(!FileManager.default.fileExists(atPath: temporary), "the refused temporary is removed")
    }

    /// A catalog row whose ids point outside the pool (here at a file beside media/) is
    /// refused by every path-making operation, and that file is left alone.
    @Test func catalogIdsThatAreNotCanonicalNeverBecomePaths() throws {
        let root = try TestRoot()
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        let outside = root.vaultPath + "/victim.data.enc"
        try Data([5, 5, 5]).write(to: URL(fileURLWithPath: outside))
        let itemId = UUID().uuidString.lowercased()
        try vault.catalog.database.write { db in
            try ItemRecord(
                id: itemId, kind: .file, mediaId: "../victim", thumbId: nil, name: "crafted",
                mimeType: "application/octet-stream", size: 3, importedAt: 0, folderId: nil, favorite: false,
                contentHash: Data(count: 32)
            ).insert(db)
        }
        let item = try vault.item(itemId)
        #expect(throws: VaultError.self) { try vault.deleteItems([itemId]) }
        #expect(throws: VaultError.self) { try vault.read(item, range: 0..<3) }
        #expect(throws: VaultError.self) { try vault.prepareExport(password: pw("e"), iterations: 1) }
        #expect(throws: VaultError.self) { try vault.directory.destroy(vault) }
        #expect(try FileIO.read(outside) == [5, 5, 5])
    }

    // MARK: Crafted exports

    /// An export of a new vault (its own salt and MEK) whose manifest lists `items` and
    /// whose payload carries `records` (kind, the record's 16-byte UUID, the file's bytes),
    /// sealed under `password` in the layout of docs/FORMAT.md §7.3.
    func craftedExport(
        at path: String, items: [ExportManifest.Item], records: [(ExportFormat.RecordKind, UUID, [UInt8])],
        password: SecureBytes
    ) throws {
        let slot = try SlotCodec.seal(
            password: pw("crafted vault"), iterations: testIterations, key: SecureBytes(randomCount: 32),
            catalog: SystemRandom().bytes(200), using: SystemRandom())
        let header = try SlotHeader.decode(slot)
        let manifest = ExportManifest(
            format: Int(ExportFormat.version), createdAt: 1_700_000_000,
            vault: .init(iterations: testIterations, salt: Data(header.salt), wrappedKey: Data(header.wrappedKey)),
            folders: [], items: items)
        let payload = try ExportFormat.payloadPlaintext(
            manifest: manifest, slot: slot,
            records: records.map { (kind, id, bytes) in (kind, withUnsafeBytes(of: id.uuid) { Array($0) }, bytes) })
        try payload.withUnsafeBytes { raw in
            try ExportFormat.write(
                to: path, password: password, kdf: .pbkdf2(iterations: 1), totalSize: UInt64(payload.count),
                source: ChunkedFileWriter.source(bytes: raw), using: SystemRandom())
        }
    }

    func item(media: String, thumb: String?) -> ExportManifest.Item {
        .init(id: UUID().uuidString.lowercased(), kind: "file", name: "x", mimeType: "application/octet-stream",
              size: 4, takenAt: nil, folderId: nil, mediaId: media, thumbId: thumb)
    }

    /// The attack from the issue: an export whose manifest names a pool file of another
    /// vault in the target directory (its thumbnail, and its original). The import fails
    /// with a clear error and that vault's files stay byte for byte as they were.
    @Test func importRefusesAnExportNamingAnotherVaultsPoolFile() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let victim = try directory.createVault(password: pw("victim"), iterations: testIterations)
        let kept = try victim.addRaw([1, 2, 3, 4], name: "kept", thumbnail: [4, 3, 2, 1])
        let thumbId = try #require(kept.thumbId)
        let pool = directory.pool
        let before = try (FileIO.read(pool.dataPath(kept.mediaId)), FileIO.read(pool.thumbPath(thumbId)))
        let listing = try root.listing(filesOnly: true)

        let fresh = UUID()
        let cases: [(String, ExportManifest.Item, [(ExportFormat.RecordKind, UUID, [UInt8])])] = [
            ("thumbnail", item(media: fresh.uuidString.lowercased(), thumb: thumbId),
             [(.original, fresh, [0xEE]), (.thumbnail, UUID(uuidString: thumbId)!, [0xEE, 0xEE])]),
            ("original", item(media: kept.mediaId, thumb: nil), [(.original, UUID(uuidString: kept.mediaId)!, [0xEE])]),
        ]
        for (name, entry, records) in cases {
            let file = root.path + "/\(name).obscura"
            try craftedExport(at: file, items: [entry], records: records, password: pw("e"))
            #expect(throws: ExportError.alreadyPresent, "\(name)") { try directory.importVault(from: file, password: pw("e")) }
            #expect(try FileIO.read(pool.dataPath(kept.mediaId)) == before.0, "\(name)")
            #expect(try FileIO.read(pool.thumbPath(thumbId)) == before.1, "\(name)")
            #expect(try root.listing(filesOnly: true) == listing, "\(name): nothing in the directory changed")
        }
        #expect(try victim.thumbnail(kept) == [4, 3, 2, 1])
        #expect(try directory.decoyNames().count == 9)
    }

    /// Manifest ids in any other form than the pool's are refused by name, before any
    /// file is written (the record's id, 16 raw bytes, is always canonical once printed).
    @Test func importRefusesManifestIdsThatAreNotCanonical() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let listing = try root.listing(filesOnly: true)
        let id = UUID()
        let upper = id.uuidString.uppercased(), lower = id.uuidString.lowercased()
        let cases: [(String, ExportManifest.Item)] = [
            ("upper-case media id", item(media: upper, thumb: nil)),
            ("media id with a path", item(media: "../" + lower, thumb: nil)),
            ("thumbnail id with a path", item(media: lower, thumb: "../../x")),
            ("short thumbnail id", item(media: lower, thumb: String(lower.dropLast()))),
        ]
        for (name, entry) in cases {
            let file = root.path + "/\(UUID().uuidString).obscura"
            try craftedExport(at: file, items: [entry], records: [(.original, id, [0xEE])], password: pw("e"))
            do {
                try directory.importVault(from: file, password: pw("e"))
                Issue.record("\(name): imported")
            } catch let ExportError.damaged(why) {
                #expect(why.contains("not a canonical"), "\(name): \(why)")
            }
            #expect(try root.listing(filesOnly: true) == listing, "\(name)")
        }
        #expect(try directory.decoyNames().count == 10)
    }
}
