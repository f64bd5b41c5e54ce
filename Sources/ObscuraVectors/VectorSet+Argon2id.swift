import Foundation
import ObscuraCatalog
import ObscuraCrypto
import ObscuraKit
import ObscuraStore

extension VectorSet {
    // MARK: Argon2id, suite 2 (§2): slot files, a folder record, an export

    /// The small cost the Argon2id vectors use, so that they run fast: 64 KiB, 2 passes,
    /// 2 lanes (word `06 02 02 00`); two lanes make a reader get the lanes right.
    static let argon2idCost = KDFParameters.argon2id(Argon2idCost(memoryExponent: 6, passes: 2, lanes: 2)!)

    /// `slot/argon2id_*`, `folder/argon2id_*` and `export/argon2id_*`, from the seed
    /// `obscura argon2id vectors v1`.
    static func argon2idVectors() throws -> [String: [UInt8]] {
        let random = SeededRandom(seed: "obscura argon2id vectors v1")
        let kdf = argon2idCost
        let word = String(format: "%08x", kdf.word)
        var out = [String: [UInt8]]()

        // Slot files (§3.1, §3.5).
        let password = "correct horse"
        let catalog = random.bytes(300)
        let mek = SecureBytes(randomCount: 32, using: random)
        let contents = try SlotCodec.seal(
            password: SecureBytes(copying: Array(password.utf8)), kdf: kdf, key: mek, catalog: catalog, using: random)
        let valid = contents + random.bytes(2048 - contents.count)
        func slot(_ name: String, _ expect: String, _ bytes: [UInt8], password typed: String = password, _ comment: String) {
            var fields = [("expect", expect), ("password", typed), ("suite", "2"), ("cost_word", word)]
            if expect == "success" { fields.append(("catalog_sha256", hex(SHA256Digest.hash(catalog)))) }
            fields.append(("comment", comment))
            out["slot/" + name] = file(fields, bytes)
        }
        slot("argon2id_valid", "success", valid, "suite 2: Argon2id, 64 KiB, 2 passes, 2 lanes")
        slot("argon2id_wrong_password", "wrong password", valid, password: "correct horsf", "another password, another KEK")
        slot("argon2id_passes_changed", "wrong password", valid.with(9, 3).rechecksummed(),
             "3 passes instead of 2, checksum recomputed: another KEK")
        slot("argon2id_memory_above_maximum", "header failure", valid.with(8, 21).rechecksummed(),
             "2^21 KiB (2 GiB) is above the 256 MiB bound: refused before deriving")
        slot("argon2id_reserved_byte_set", "header failure", valid.with(11, 1).rechecksummed(), "the cost word's last byte must be 0")
        slot("argon2id_too_little_memory_for_lanes", "header failure", valid.with(8, 3).with(10, 2).rechecksummed(),
             "8 KiB for 2 lanes: Argon2 needs 8 KiB a lane")
        slot("argon2id_zero_passes", "header failure", valid.with(9, 0).rechecksummed(), "passes 1 ... 10")
        slot("suite_unknown", "unsupported", valid.with(7, 3).rechecksummed(), "suite 3 does not exist")

        // A protected folder's record (§6.4).
        let folderPassword = "folder pw"
        let folderKey = SecureBytes(randomCount: FolderProtection.keySize, using: random)
        var record = FolderRecord(id: "5d4c3b2a-1908-4f7e-8d6c-5b4a39281706", parentId: nil, name: "Secret", createdAt: 1_700_000_000)
        try FolderProtection.protect(&record, key: folderKey, password: SecureBytes(copying: Array(folderPassword.utf8)),
                                     kdf: kdf, using: random)
        func folder(_ name: String, _ expect: String, _ record: FolderRecord, password typed: String = folderPassword, _ comment: String) {
            var fields = [
                ("expect", expect), ("folder_id", record.id), ("password", typed),
                ("kdf_salt", hex(record.kdfSalt ?? Data())), ("kdf_iterations", "\(record.kdfIterations ?? 0)"),
                ("kdf_suite", "\(record.kdfSuite ?? 1)"), ("key_verifier", hex(record.keyVerifier ?? Data())),
            ]
            if expect == "success" { fields.append(("folder_key", hex(folderKey.withUnsafeBytes { Array($0) }))) }
            fields.append(("comment", comment))
            out["folder/" + name] = file(fields, Array(record.wrappedKey ?? Data()))
        }
        folder("argon2id_valid", "success", record, "kdfSuite 2; kdfIterations holds the packed word as an integer")
        folder("argon2id_wrong_password", "wrong password", record, password: "folder px", "the verifier does not match")
        var asPBKDF2 = record
        asPBKDF2.kdfSuite = nil
        folder("argon2id_suite_missing", "corrupt", asPBKDF2, "read as PBKDF2, the word is far above 10,000,000")

        // An export (§7.1) of an Argon2id vault, under an Argon2id export KEK.
        let vaultMEK = SecureBytes(randomCount: 32, using: random)
        let vaultSlot = try SlotCodec.seal(
            password: SecureBytes(copying: Array("vault pw".utf8)), kdf: kdf, key: vaultMEK, catalog: random.bytes(200), using: random)
        let header = try SlotHeader.decode(vaultSlot)
        let mediaId = "7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d"
        let photo = random.bytes(3000)
        let media = try seal(photo, key: vaultMEK, context: Vault.context(mediaId), prefix: random.bytes(4), chunkSize: 4096)
        let manifest = ExportManifest(
            format: ExportFormat.manifestFormat, createdAt: 1_700_000_000, vault: .init(header: header), folders: [],
            items: [.init(id: "1b2c3d4e-5f60-4172-8384-95a6b7c8d9e0", kind: "photo", name: "vector.jpg",
                          mimeType: "image/jpeg", size: Int64(photo.count), takenAt: nil, folderId: nil,
                          mediaId: mediaId, thumbId: nil)])
        let payload = try ExportFormat.payloadPlaintext(
            manifest: manifest, slot: vaultSlot, records: [(.original, Vault.context(mediaId), media)])
        let exportPassword = "export pw"
        let salt = random.bytes(32)
        let kek = try kdf.deriveKey(password: SecureBytes(copying: Array(exportPassword.utf8)), salt: salt)
        let headerPrefix = ExportFormat.headerPrefix(kdf: kdf, salt: salt)
        let prefix = random.bytes(ChunkedFormat.noncePrefixSize)
        let exportHeader = headerPrefix + (try ExportFormat.verificationTag(kek: kek, headerPrefix: headerPrefix)) + prefix
        let export = exportHeader + (try seal(payload, key: kek, context: exportHeader, prefix: prefix, chunkSize: ExportFormat.chunkSize))
        func exported(_ name: String, _ expect: String, _ bytes: [UInt8], password typed: String = exportPassword, _ comment: String) {
            var fields = [("expect", expect), ("password", typed), ("vault_password", "vault pw")]
            if expect == "success" { fields += [("items", "1"), ("photo_sha256", hex(SHA256Digest.hash(photo)))] }
            fields.append(("comment", comment))
            out["export/" + name] = file(fields, bytes)
        }
        exported("argon2id_valid", "success", export, "KDF field 2 and an Argon2id vault: the manifest's vault has suite 2")
        exported("argon2id_wrong_password", "wrong password", export, password: "export px", "another KEK, another tag")
        exported("argon2id_memory_above_maximum", "unsupported", export.with(8, 21), "refused from the header alone")
        exported("kdf_unknown", "unsupported", export.with(7, 1), "KDF 1 is not an export KDF: PBKDF2 is 0 there")
        return out
    }
}
