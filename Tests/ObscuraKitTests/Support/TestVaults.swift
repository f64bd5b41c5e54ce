import Foundation
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif
import ObscuraCrypto
@testable import ObscuraKit

/// Small PBKDF2 counts keep tests fast; a few CLI tests run the real 600,000.
let testIterations = 1000

/// A temporary root holding a vault directory and a device-secret location, removed on
/// release.
final class TestRoot {
    let path: String
    let secrets: DeviceSecretStore

    /// - Parameter base: where to make the root; the system's temporary directory by default.
    init(base: String? = nil) throws {
        path = (base.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory)
            .appendingPathComponent("obscura-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        secrets = DeviceSecretStore(path: path + "/config/obscura/device-secret")
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    var vaultPath: String { path + "/vault" }
    var dataPath: String { vaultPath + "/data" }

    /// Opens (creating if needed) the vault directory.
    func open(create: Bool = true) throws -> VaultDirectory {
        try VaultDirectory(path: vaultPath, deviceSecrets: secrets, create: create)
    }

    /// An initialised directory with ten decoys at the test iteration count.
    func initialized() throws -> VaultDirectory {
        let directory = try open()
        try directory.initialize(iterations: testIterations)
        return directory
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

    /// stat(2) of a slot file.
    func fileStat(_ name: String) -> stat {
        var st = stat()
        _ = stat(dataPath + "/" + name, &st)
        return st
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
        try persist()
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
            favorite: false, contentHash: Data(hash))
        if let thumbnail {
            row.thumbId = UUID().uuidString.lowercased()
            try sealThumbnail(thumbId: row.thumbId!, jpeg: thumbnail, folderId: folder?.id)
        }
        let stored = try outerKey(forFolder: folder?.id).map { try concealed(row, key: $0) } ?? row
        try catalog.database.write { try stored.insert($0) }
        try persist()
        return row
    }
}
