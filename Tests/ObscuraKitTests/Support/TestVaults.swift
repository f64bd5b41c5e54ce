import Foundation
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif
import GRDB
import ObscuraCrypto
import ObscuraTestSupport
import ObscuraStoreTestSupport
@testable import ObscuraKit
@testable import ObscuraCatalog
@testable import ObscuraKeys

/// Small PBKDF2 counts keep tests fast; a few CLI tests run the real 600,000.
let testIterations = 1000

/// A temporary root holding a vault directory and a device-secret location, removed on
/// release. Its directory is what `obscura init` makes, a version 4 container (FORMAT.md
/// §8) with paged catalogs (§9), unless the test is about version 3 (reading, migration).
final class TestRoot {
    let path: String
    let secrets: DeviceSecretStore
    /// The container's outer key; nil for a version 3 root.
    let outerKey: SecureBytes?

    /// A new root under `parent` (the system temporary directory unless a test needs
    /// another file system, such as a small or read-only mount); with `version3`, its
    /// directory is made in the version 3 layout.
    init(parent: String = FileManager.default.temporaryDirectory.path, version3: Bool = false) throws {
        path = parent + "/obscura-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        secrets = DeviceSecretStore(path: path + "/config/obscura/device-secret")
        outerKey = version3 ? nil : ContainerFixtures.outerKey
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    var vaultPath: String { path + "/vault" }
    var dataPath: String { vaultPath + "/data" }

    /// Opens (creating if needed) the vault directory.
    func open(create: Bool = true) throws -> VaultDirectory {
        try VaultDirectory(path: vaultPath, deviceSecrets: secrets, outerKey: outerKey, create: create)
    }

    /// An initialised directory with ten decoys at the test iteration count.
    func initialized() throws -> VaultDirectory {
        let directory = try open()
        try directory.initialize(iterations: testIterations, outerKey: outerKey)
        return directory
    }

    /// Makes this root's directory a version 3 one (``Version3Fixture``) holding a vault
    /// for each of `passwords`, each filled by `fill` in the container it is made in first.
    func makeVersion3(_ passwords: [SecureBytes], fill: (Int, Vault) throws -> Void = { _, _ in }) throws {
        try Version3Fixture.make(path: vaultPath, secrets: secrets, iterations: testIterations, passwords: passwords, fill: fill)
    }

    /// Slot file names in data/.
    func slotNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dataPath).filter { $0.hasSuffix(".db.enc") }.sorted()
    }

    /// Every file in data/ with its bytes.
    func snapshot() throws -> [String: [UInt8]] {
        var out = [String: [UInt8]]()
        for name in try FileManager.default.contentsOfDirectory(atPath: dataPath) {
            out[name] = Array(try Data(contentsOf: URL(fileURLWithPath: dataPath + "/" + name)))
        }
        return out
    }

    /// Names, sizes, inodes and modification times of every file under the vault
    /// directory: equal listings mean nothing was added, removed or rewritten. With
    /// `filesOnly`, data/ and media/ themselves are left out (a failed write that made
    /// and removed a temporary changes their times, but leaves no file).
    func listing(filesOnly: Bool = false) throws -> [String] {
        try directoryListing(vaultPath).filter { !filesOnly || $0.contains("/") }
    }

    /// stat(2) of a slot file.
    func fileStat(_ name: String) -> stat {
        var st = stat()
        _ = stat(dataPath + "/" + name, &st)
        return st
    }
}

/// Names, sizes, inodes and modification times of every file under `path`, sorted.
func directoryListing(_ path: String) throws -> [String] {
    try FileManager.default.subpathsOfDirectory(atPath: path).sorted().map { sub in
        var st = stat()
        _ = stat(path + "/" + sub, &st)
        return "\(sub) \(st.st_size) \(st.st_ino) \(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)"
    }
}

/// A password as the tests type it.
func pw(_ text: String) -> SecureBytes { SecureBytes(copying: Array(text.utf8)) }

extension VaultDirectory {
    /// The names of slots that open with the device credential (the decoys).
    func decoyNames() throws -> Set<String> {
        let credential = DeviceSecretStore.credential(from: try deviceSecrets.load())
        let (names, headers) = try readHeaders()
        return Set(UnlockSweep.run(headers: headers, passwords: [credential])[0].keys.map { names[$0] })
    }
}

extension Vault {
    /// Adds a setting row and persists: the smallest real write.
    func write(_ key: String, _ value: String) throws {
        try catalog.database.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO setting(key, value) VALUES (?, ?)", arguments: [key, value])
        }
    }

    /// ``write(_:_:)`` through the catalog's own write path, as the vault's operations
    /// go: a paged catalog whose commit fails says why, and reopens from its slot.
    func writeThroughCatalog(_ key: String, _ value: String) throws {
        try catalog.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO setting(key, value) VALUES (?, ?)", arguments: [key, value])
        }
    }

    /// The value of a setting row, if any.
    func setting(_ key: String) throws -> String? {
        try catalog.database.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = ?", arguments: [key])
        }
    }
}

extension Vault {
    /// Seals `bytes` as a file item without the importer (no imaging), and persists.
    @discardableResult
    func addRaw(_ bytes: [UInt8], name: String, folder: FolderRecord? = nil, thumbnail: [UInt8]? = nil) throws -> ItemRecord {
        let mediaId = UUID().uuidString.lowercased()
        let hash = try bytes.withUnsafeBytes { raw in
            try sealOriginal(mediaId: mediaId, size: UInt64(bytes.count), folderId: folder?.id,
                             source: ChunkedFileWriter.source(bytes: raw))
        }
        var row = ItemRecord(
            id: UUID().uuidString.lowercased(), kind: .file, mediaId: mediaId, thumbId: nil, name: name,
            mimeType: "application/octet-stream", size: Int64(bytes.count), importedAt: 0, folderId: folder?.id,
            favorite: false, contentHash: try contentHash(sha256: hash, folderId: folder?.id))
        if let thumbnail {
            row.thumbId = UUID().uuidString.lowercased()
            try sealThumbnail(thumbId: row.thumbId!, jpeg: thumbnail, folderId: folder?.id)
        }
        let stored = try folderKey(forFolder: folder?.id).map { try concealed(row, key: $0) } ?? row
        try catalog.database.write { try stored.insert($0) }
        return row
    }
}

extension Vault {
    /// Problems that would make the vault inconsistent: a catalog item whose original or
    /// thumbnail is missing or does not decrypt to its recorded size, and leftover
    /// temporaries in data/ or media/. Empty when the vault is whole.
    func consistencyProblems() throws -> [String] {
        var problems = try verify().problems.map { "\($0.itemId): \($0.message)" }
        // The per-folder tally (docs/FORMAT.md §3.3) must equal counting the rows.
        let (tally, counted) = try catalog.tallyAndCounts()
        if tally != counted { problems.append("item tally \(tally) != \(counted)") }
        // The picture index's invariants I1–I5 (docs/FORMAT.md §3.3, "The picture index").
        problems += try catalog.indexInvariantViolations()
        for sub in ["data", "media"] {
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/" + sub)
            problems += names.filter { $0.hasPrefix(".") }.map { "stray file \(sub)/\($0)" }
        }
        return problems
    }
}

extension TestRoot {
    /// A vault ("pw") in a new directory holding one camera JPEG of `width`×`height`,
    /// imported from `photo.jpg` under the root: the vault, the item and the source path.
    func vaultWithPhoto(width: Int, height: Int, date: String = "2024:01:02 03:04:05") throws -> (Vault, ItemRecord, String) {
        let vault = try initialized().createVault(password: pw("pw"), iterations: testIterations)
        let photo = path + "/photo.jpg"
        try Data(TestImages.cameraJPEG(width: width, height: height, date: date, orientation: 1))
            .write(to: URL(fileURLWithPath: photo))
        return (vault, try vault.importFiles([photo]).imported[0], photo)
    }
}

extension TestRoot {
    /// A new vault ("pw") in this root's directory, at the tests' iteration count.
    func newVault() throws -> Vault {
        try initialized().createVault(password: pw("pw"), iterations: testIterations)
    }

    /// The names in the media pool, sorted.
    func poolFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: vaultPath + "/media").sorted()
    }
}
