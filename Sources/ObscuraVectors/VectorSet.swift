import Foundation
import ObscuraCatalog
import ObscuraCrypto
import ObscuraKit
import ObscuraStore
import ObscuraKeys

/// The test vectors of docs/FORMAT.md §5, generated from seeded random sources so that
/// they are reproducible byte for byte. `obscura-vectors` writes them to `testdata/`;
/// the tests regenerate them and compare with the committed files.
package enum VectorSet {
    /// The PBKDF2 count vectors use, so that they run fast.
    package static let iterations = 1000

    /// Every vector file, by path relative to `testdata/`.
    package static func all() throws -> [String: [UInt8]] {
        try [slotVectors(), chunkedVectors(), chunkedV2Vectors(), exportVectors(), folderVectors(), deviceVectors(),
             containerVectors(), keyVectors(), contentHashVectors(), pagesVectors(), argon2idVectors(), dropVectors(), recoveryVectors()]
            .reduce(into: [:]) { all, set in all.merge(set) { a, _ in a } }
    }

    /// The directories of `testdata/`, one per kind of vector (§5).
    package static let directories = ["slot", "chunked", "export", "folder", "meta", "index", "device", "container", "key", "hash", "pages", "drop", "recovery"]

    /// One vector file: `key: value` lines, a blank line, the raw bytes.
    static func file(_ fields: [(String, String)], _ body: [UInt8]) -> [UInt8] {
        Array(fields.map { "\($0.0): \($0.1)\n" }.joined().utf8) + [0x0A] + body
    }

    package static func hex(_ bytes: some Collection<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    // MARK: Slot files (§3)

    static func slotVectors() throws -> [String: [UInt8]] {
        let random = SeededRandom(seed: "obscura slot vectors v1")
        let password = "correct horse"
        let pw = SecureBytes(copying: Array(password.utf8))
        let catalog = random.bytes(300)
        let key = SecureBytes(randomCount: 32, using: random)
        let contents = try SlotCodec.seal(password: pw, iterations: iterations, key: key, catalog: catalog, using: random)
        let slotSize = 2048
        let valid = contents + random.bytes(slotSize - contents.count)
        let catalogHash = hex(SHA256Digest.hash(catalog))
        var out = [String: [UInt8]]()

        func add(_ name: String, _ expect: String, _ bytes: [UInt8], password: String = password, _ comment: String) {
            var fields = [("expect", expect), ("password", password), ("iterations", "\(iterations)")]
            if expect == "success" { fields.append(("catalog_sha256", catalogHash)) }
            fields.append(("comment", comment))
            out["slot/" + name] = file(fields, bytes)
        }
        /// `valid` with byte `offset` flipped, the checksum optionally recomputed so the
        /// change reaches the cryptographic checks.
        func flipped(_ offset: Int, rechecksum: Bool) -> [UInt8] {
            var b = valid
            b[offset] ^= 0x01
            if rechecksum { b.replaceSubrange(140..<172, with: SHA256Digest.hash(b[0..<140])) }
            return b
        }

        add("valid", "success", valid, "a complete slot: header, sealed catalog, random padding")
        add("wrong_password", "wrong password", valid, password: "correct horsf", "the KEK from another password does not open the wrapped MEK")
        add("magic_flipped", "unsupported", flipped(0, rechecksum: true), "not an Obscura slot")
        add("version_5", "unsupported", valid.with(5, 0x05).rechecksummed(), "format version 5 is unknown (4 is the paged header, §9.5)")
        add("suite_2", "header failure", valid.with(7, 0x02).rechecksummed(),
            "suite 2 is Argon2id (§2): the PBKDF2 count 1000 read as its cost word is out of bounds")
        add("checksum_flipped", "header failure", flipped(150, rechecksum: false), "the header checksum does not match")
        add("iterations_flipped", "header failure", flipped(11, rechecksum: false), "caught by the checksum")
        add("iterations_flipped_rechecksummed", "wrong password", flipped(11, rechecksum: true), "another count derives another KEK")
        add("iterations_zero", "header failure", valid.with(8, 0).with(9, 0).with(10, 0).with(11, 0).rechecksummed(), "counts outside 1...10,000,000 are refused before deriving")
        add("salt_flipped", "header failure", flipped(20, rechecksum: false), "caught by the checksum")
        add("salt_flipped_rechecksummed", "wrong password", flipped(20, rechecksum: true), "another salt derives another KEK")
        add("wrapped_key_flipped", "header failure", flipped(70, rechecksum: false), "caught by the checksum")
        add("wrapped_key_flipped_rechecksummed", "wrong password", flipped(70, rechecksum: true), "the wrapped MEK fails its tag")
        add("envelope_flipped", "header failure", flipped(120, rechecksum: false), "caught by the checksum")
        add("envelope_flipped_rechecksummed", "corrupt", flipped(120, rechecksum: true), "the envelope fails its tag under the right MEK")
        add("catalog_flipped", "corrupt", flipped(172 + 40, rechecksum: false), "the sealed catalog fails its tag")
        add("padding_changed", "success", flipped(slotSize - 1, rechecksum: false), "padding is not authenticated and is ignored")
        add("truncated_header", "truncated", Array(valid.prefix(100)), "shorter than the 172-byte header")
        add("truncated_catalog", "truncated", Array(valid.prefix(172 + 100)), "shorter than the catalog length in the envelope")

        let rewrapped = try SlotCodec.rewrap(
            contents: valid, key: key, newPassword: SecureBytes(copying: Array("battery staple".utf8)),
            kdf: .pbkdf2(iterations: iterations), using: random)
        add("password_changed", "success", rewrapped + random.bytes(slotSize - rewrapped.count), password: "battery staple",
            "after a password change: new salt and wrapped MEK, same sealed catalog bytes as valid")

        // Drawn after every byte above, so that adding it changed no earlier file.
        let deviceSecret = SecureBytes(randomCount: DeviceSecretStore.size, using: random)
        let decoy = try SlotCodec.seal(
            password: DeviceSecretStore.credential(from: deviceSecret), iterations: iterations,
            key: SecureBytes(randomCount: 32, using: random), catalog: catalog, using: random)
        out["slot/decoy"] = file([
            ("expect", "success"), ("device_secret", hex(deviceSecret.withUnsafeBytes { Array($0) })),
            ("iterations", "\(iterations)"), ("catalog_sha256", catalogHash),
            ("comment", "a decoy: its password bytes are the 32 credential bytes of the device secret (§4.1)"),
        ], decoy + random.bytes(slotSize - decoy.count))
        return out
    }

    // MARK: Chunked files and blobs (§6)

    static func chunkedVectors() throws -> [String: [UInt8]] {
        let random = SeededRandom(seed: "obscura chunked vectors v1")
        let mek = SecureBytes(randomCount: 32, using: random)
        let folderKey = SecureBytes(randomCount: 32, using: random)
        let context = random.bytes(16)
        let plaintext = random.bytes(3 * 4096 + 1000)
        var out = [String: [UInt8]]()

        func seal(_ plain: [UInt8], protected: Bool) throws -> [UInt8] {
            try VectorSet.seal(plain, key: mek, folderKey: protected ? folderKey : nil, context: context,
                               prefix: random.bytes(4), chunkSize: 4096)
        }
        func add(_ name: String, _ expect: String, _ bytes: [UInt8], plain: [UInt8] = plaintext, folderKey withFolderKey: Bool = false, _ comment: String) {
            var fields = [("expect", expect), ("mek", hex(mek.withUnsafeBytes { Array($0) })), ("context", hex(context))]
            if withFolderKey { fields.append(("folder_key", hex(folderKey.withUnsafeBytes { Array($0) }))) }
            if expect == "success" { fields.append(("plaintext_sha256", hex(SHA256Digest.hash(plain)))) }
            fields.append(("comment", comment))
            out["chunked/" + name] = file(fields, bytes)
        }

        let plain = try seal(plaintext, protected: false)
        let chunk = 4096 + 16
        add("valid", "success", plain, "4 chunks of 4096 (the last 1000 bytes), no folder protection")
        add("empty", "success", try seal([], protected: false), plain: [], "an empty file is one empty final chunk")
        let protected = try seal(plaintext, protected: true)
        add("protected", "success", protected, folderKey: true, "folder-protected: every chunk sealed under the MEK, then the folder key")
        add("protected_without_folder_key", "failure", protected, "the MEK alone opens nothing")
        add("truncated_last_chunk", "truncated", Array(plain.prefix(plain.count - 1016)), "the final chunk is missing")
        var shortened = Array(plain.prefix(plain.count - 1016))
        shortened.replaceSubrange(16..<24, with: Array([UInt8](repeating: 0, count: 6) + [0x30, 0x00]))
        add("truncated_header_fixed", "chunk failure", shortened, "total size edited to match: the new last chunk was sealed as a middle chunk")
        var swapped = plain
        swapped.replaceSubrange((24 + chunk)..<(24 + 2 * chunk), with: plain[(24 + 2 * chunk)..<(24 + 3 * chunk)])
        swapped.replaceSubrange((24 + 2 * chunk)..<(24 + 3 * chunk), with: plain[(24 + chunk)..<(24 + 2 * chunk)])
        add("chunks_swapped", "chunk failure", swapped, "chunks 1 and 2 exchanged: their nonces no longer match")
        add("prefix_flipped", "chunk failure", plain.with(9, plain[9] ^ 1), "the header is associated data of every chunk")
        add("flag_set", "failure", plain.with(7, 1), "claims folder protection it does not have: no folder key is given, so it is refused before its size or chunks are looked at")
        add("trailing_byte", "trailing data", plain + [0], "a byte after the last chunk")
        add("ciphertext_flipped", "chunk failure", plain.with(24 + chunk + 5, plain[24 + chunk + 5] ^ 0x80), "one bit of chunk 1")

        let thumbnail = random.bytes(500)
        let blob = try SealedBlob.seal(thumbnail, key: mek, context: context, using: random)
        add("blob_valid", "success", blob, plain: thumbnail, "single-shot sealed box, context as associated data")
        add("blob_flipped", "failure", blob.with(30, blob[30] ^ 1), plain: thumbnail, "one bit of the ciphertext")
        let protectedBlob = try SealedBlob.seal(thumbnail, key: mek, folderKey: folderKey, context: context, using: random)
        add("blob_protected", "success", protectedBlob, plain: thumbnail, folderKey: true, "inner sealed box sealed again under the folder key")
        add("truncated_in_header", "truncated", Array(plain.prefix(20)), "starts with OBSK but ends inside the 24-byte header")
        add("blob_short", "failure", Array(blob.prefix(AESGCM.overhead - 1)), plain: thumbnail,
            "a single-shot blob shorter than a nonce and a tag")
        return out
    }
}

extension VectorSet {
    // MARK: Export files (§7)

    static func exportVectors() throws -> [String: [UInt8]] {
        let random = SeededRandom(seed: "obscura export vectors v1")
        let mek = SecureBytes(randomCount: 32, using: random)
        let slot = try SlotCodec.seal(
            password: SecureBytes(copying: Array("vault pw".utf8)), iterations: iterations, key: mek,
            catalog: random.bytes(200), using: random)
        let header = try SlotHeader.decode(slot)
        let mediaId = "6f0d2a3e-8b1c-4d5e-9f60-718293a4b5c6"
        let photo = random.bytes(5000)
        let media = try seal(photo, key: mek, context: Vault.context(mediaId), prefix: random.bytes(4), chunkSize: 4096)
        let manifest = ExportManifest(
            format: ExportFormat.manifestFormat, createdAt: 1_700_000_000,
            vault: .init(iterations: iterations, salt: Data(header.salt), wrappedKey: Data(header.wrappedKey)),
            folders: [],
            items: [.init(id: "0a1b2c3d-4e5f-4061-8273-94a5b6c7d8e9", kind: "photo", name: "vector.jpg",
                          mimeType: "image/jpeg", size: Int64(photo.count), takenAt: nil, folderId: nil,
                          mediaId: mediaId, thumbId: nil)])
        /// The payload plaintext (§7.3) around one manifest.
        func payloadBytes(_ manifest: ExportManifest) throws -> [UInt8] {
            try ExportFormat.payloadPlaintext(
                manifest: manifest, slot: slot, records: [(.original, Vault.context(mediaId), media)])
        }
        let payload = try payloadBytes(manifest)

        let password = "K3Y9Q-7ZTPM-2WX4N-8BCDR"
        let salt = random.bytes(32)
        let kek = try PasswordKDF.deriveKey(
            password: ExportFormat.canonicalPassword(SecureBytes(copying: Array(password.utf8))), salt: salt,
            iterations: iterations)
        let headerPrefix = ExportFormat.headerPrefix(kdf: .pbkdf2(iterations: iterations), salt: salt)
        let prefix: [UInt8] = [0x5A, 0x17, 0xC3, 0x08]
        let tag = try ExportFormat.verificationTag(kek: kek, headerPrefix: headerPrefix)
        let exportHeader = headerPrefix + tag + prefix
        let valid = exportHeader + (try seal(payload, key: kek, context: exportHeader, prefix: prefix, chunkSize: ExportFormat.chunkSize))

        var out = [String: [UInt8]]()
        func add(_ name: String, _ expect: String, _ bytes: [UInt8], password typed: String = password,
                 extra: [(String, String)] = [], _ comment: String) {
            var fields = [("expect", expect), ("password", typed), ("vault_password", "vault pw")]
            if expect == "success" {
                fields += [("items", "1"), ("photo_sha256", hex(SHA256Digest.hash(photo)))] + extra
            }
            fields.append(("comment", comment))
            out["export/" + name] = file(fields, bytes)
        }
        add("valid", "success", valid, "one item; the generated password as printed, with dashes")
        add("valid_lenient_password", "success", valid, password: "k3y9q 7ztpm 2wx4n 8bcdr",
            "the same file: lower case and spaces read as the canonical password")
        add("wrong_password", "wrong password", valid, password: "K3Y9Q-7ZTPM-2WX4N-8BCDS", "one symbol off")
        add("tag_flipped", "wrong password", valid.with(50, valid[50] ^ 1), "the verification tag no longer matches")
        add("salt_flipped", "wrong password", valid.with(20, valid[20] ^ 1), "another salt derives another KEK")
        add("payload_flipped", "damaged", valid.with(200, valid[200] ^ 1), "a payload byte: its chunk fails")
        add("prefix_mismatch", "damaged", valid.with(62, valid[62] ^ 1), "the header's prefix differs from the payload's")
        add("truncated", "damaged", Array(valid.dropLast(10)), "the end of the last chunk is missing")
        // Refused from the 64-byte header alone, before any derivation (§7.1).
        add("magic_flipped", "unsupported", valid.with(0, valid[0] ^ 1), "not OBSX")
        add("short_header", "unsupported", Array(valid.prefix(ExportFormat.headerSize - 1)), "shorter than the 64-byte header")
        add("iterations_zero", "unsupported", valid.with(8, 0).with(9, 0).with(10, 0).with(11, 0),
            "an iteration count of 0 is outside 1...10,000,000")
        var tooMany = valid
        tooMany.replaceSubrange(8..<12, with: [0x00, 0x98, 0x96, 0x81])
        add("iterations_above_maximum", "unsupported", tooMany, "an iteration count of 10,000,001 is outside 1...10,000,000")
        // Complete, correctly sealed files that break one rule of §7.1 or §7.3 only.
        let zero = [UInt8](repeating: 0, count: ChunkedFormat.noncePrefixSize)
        let zeroHeader = headerPrefix + tag + zero
        add("prefix_zero", "unsupported",
            zeroHeader + (try seal(payload, key: kek, context: zeroHeader, prefix: zero, chunkSize: ExportFormat.chunkSize)),
            "nonce prefix 00000000 in the header and the payload: chunk 0 would reuse the verification nonce")
        add("payload_chunk_size", "damaged",
            exportHeader + (try seal(payload, key: kek, context: exportHeader, prefix: prefix, chunkSize: 4096)),
            "the payload sealed with 4,096-byte chunks instead of 1 MiB")
        func resealed(_ edit: (inout ExportManifest) -> Void) throws -> [UInt8] {
            var edited = manifest
            edit(&edited)
            return exportHeader + (try seal(try payloadBytes(edited), key: kek, context: exportHeader, prefix: prefix,
                                            chunkSize: ExportFormat.chunkSize))
        }
        add("manifest_format_4", "damaged", try resealed { $0.format = 4 }, "the manifest's format is 4")
        add("manifest_format_2_without_rendition", "damaged", try resealed { $0.format = 2 },
            "format 2, which says some item carries a rendition, and none does")
        add("manifest_iterations_disagree", "damaged", try resealed { $0.vault.iterations += 1 },
            "the manifest's vault iterations differ from the carried slot header's")

        // Drawn after every byte above, so that adding it changed no earlier file: the same
        // item with its original in chunked format version 2 (§6.6), as exports made since
        // media version 2 carry it, under a fresh export salt.
        let mediaV2 = try sealV2(photo, key: mek, context: Vault.context(mediaId), salt: random.bytes(ChunkedFormatV2.saltSize),
                                 chunkSize: 4096)
        let payloadV2 = try ExportFormat.payloadPlaintext(
            manifest: manifest, slot: slot, records: [(.original, Vault.context(mediaId), mediaV2)])
        /// A new export header and key under a fresh salt (drawn first, then the prefix),
        /// and a function sealing a payload under them.
        func freshExport() throws -> ([UInt8]) throws -> [UInt8] {
            let salt = random.bytes(32)
            let kek = try PasswordKDF.deriveKey(
                password: ExportFormat.canonicalPassword(SecureBytes(copying: Array(password.utf8))), salt: salt,
                iterations: iterations)
            let prefix = random.bytes(ChunkedFormat.noncePrefixSize)
            let headerPrefix = ExportFormat.headerPrefix(kdf: .pbkdf2(iterations: iterations), salt: salt)
            let header = headerPrefix + (try ExportFormat.verificationTag(kek: kek, headerPrefix: headerPrefix)) + prefix
            return { payload in header + (try seal(payload, key: kek, context: header, prefix: prefix, chunkSize: ExportFormat.chunkSize)) }
        }
        add("valid_media_v2", "success", try freshExport()(payloadV2),
            "one item whose original is a version 2 chunked file; the payload itself stays version 1 (§7.3)")

        // Drawn after every byte above likewise: a video whose rendition (§3.3) travels as
        // an original record of its own (§7.3, §7.4 `rendition_id`), under a fresh salt.
        let renditionId = "3c9e1f70-5a2b-4d8c-9e6f-a1b2c3d4e5f6"
        let rendition = random.bytes(3000)
        let renditionFile = try sealV2(rendition, key: mek, context: Vault.context(renditionId),
                                       salt: random.bytes(ChunkedFormatV2.saltSize), chunkSize: 4096)
        var video = manifest
        video.items[0].kind = "video"
        video.items[0].name = "vector.mov"
        video.items[0].mimeType = "video/quicktime"
        video.items[0].renditionId = renditionId
        video.format = ExportFormat.manifestFormatWithRenditions
        let sealR = try freshExport()
        func videoExport(_ records: [(ExportFormat.RecordKind, [UInt8], [UInt8])]) throws -> [UInt8] {
            try sealR(try ExportFormat.payloadPlaintext(manifest: video, slot: slot, records: records))
        }
        let original = (ExportFormat.RecordKind.original, Vault.context(mediaId), mediaV2)
        add("valid_rendition", "success",
            try videoExport([original, (.original, Vault.context(renditionId), renditionFile)]),
            extra: [("rendition_sha256", hex(SHA256Digest.hash(rendition)))],
            "a video and its rendition: the manifest's rendition_id names a second original record (§7.3, §7.4)")
        add("rendition_missing", "damaged", try videoExport([original]),
            "the manifest names a rendition_id the records do not carry")
        video.format = ExportFormat.manifestFormat
        add("rendition_in_format_1", "damaged",
            try videoExport([original, (.original, Vault.context(renditionId), renditionFile)]),
            "a rendition_id in a manifest of format 1, which a reader of format 1 alone would refuse as an unexpected file")

        // Drawn after every byte above likewise: a Live Photo, a still whose motion (§3.3
        // `companionId`) travels as an original record of its own (§7.3, §7.4
        // `companion_id`, format 3), under a fresh salt.
        let companionId = "8d7c6b5a-4f3e-4a2b-9c1d-0e9f8a7b6c5d"
        let motion = random.bytes(5000)
        let motionFile = try sealV2(motion, key: mek, context: Vault.context(companionId),
                                    salt: random.bytes(ChunkedFormatV2.saltSize), chunkSize: 4096)
        var live = manifest
        live.items[0].companionId = companionId
        live.format = ExportFormat.manifestFormatWithCompanions
        let sealL = try freshExport()
        func liveExport(_ records: [(ExportFormat.RecordKind, [UInt8], [UInt8])]) throws -> [UInt8] {
            try sealL(try ExportFormat.payloadPlaintext(manifest: live, slot: slot, records: records))
        }
        let motionRecord = (ExportFormat.RecordKind.original, Vault.context(companionId), motionFile)
        add("valid_live_photo", "success", try liveExport([original, motionRecord]),
            extra: [("companion_sha256", hex(SHA256Digest.hash(motion)))],
            "a Live Photo: the manifest's companion_id names a second original record, the motion (§7.3, §7.4)")
        add("companion_missing", "damaged", try liveExport([original]),
            "the manifest names a companion_id the records do not carry")
        live.format = ExportFormat.manifestFormatWithRenditions
        add("companion_in_format_2", "damaged", try liveExport([original, motionRecord]),
            "a companion_id in a manifest of format 2, which a reader of formats 1 and 2 would refuse as an unexpected file")

        // Drawn after every byte above likewise: a manifest whose second item names the
        // first one's original, with that file's one record (§7.3 "exactly once").
        var twice = manifest
        twice.items.append(twice.items[0])
        twice.items[1].id = "5e4d3c2b-1a09-4f8e-8d7c-6b5a49382716"
        twice.items[1].name = "copy.jpg"
        add("manifest_names_a_file_twice", "damaged",
            try freshExport()(try ExportFormat.payloadPlaintext(manifest: twice, slot: slot, records: [original])),
            "two items name one media_id: they would share one pool file, and deleting either would lose the other's")
        return out
    }

    // MARK: Folder keys and protected metadata (§6.4)

    static func folderVectors() throws -> [String: [UInt8]] {
        let random = SeededRandom(seed: "obscura folder vectors v1")
        let password = "folder pw"
        let folderKey = SecureBytes(randomCount: FolderProtection.keySize, using: random)
        var valid = FolderRecord(id: "3c2b1a09-8f7e-4d6c-8b5a-49382716a5f4", parentId: nil, name: "Secret", createdAt: 1_700_000_000)
        try FolderProtection.protect(&valid, key: folderKey, password: SecureBytes(copying: Array(password.utf8)),
                                     kdf: .pbkdf2(iterations: iterations), using: random)
        let folderKeyHex = hex(folderKey.withUnsafeBytes { Array($0) })
        var out = [String: [UInt8]]()

        func add(_ name: String, _ expect: String, _ record: FolderRecord, password typed: String = password, _ comment: String) {
            var fields = [
                ("expect", expect), ("folder_id", record.id), ("password", typed),
                ("kdf_salt", hex(record.kdfSalt ?? Data())), ("kdf_iterations", "\(record.kdfIterations ?? 0)"),
                ("key_verifier", hex(record.keyVerifier ?? Data())),
            ]
            if expect == "success" { fields.append(("folder_key", folderKeyHex)) }
            fields.append(("comment", comment))
            out["folder/" + name] = file(fields, Array(record.wrappedKey ?? Data()))
        }
        func changed(_ edit: (inout FolderRecord) -> Void) -> FolderRecord {
            var copy = valid
            edit(&copy)
            return copy
        }
        func flipped(_ data: Data?, at offset: Int) -> Data {
            var bytes = Array(data ?? Data())
            bytes[offset] ^= 0x01
            return Data(bytes)
        }
        add("valid", "success", valid, "the folder record's key columns; the body is wrappedKey")
        add("wrong_password", "wrong password", valid, password: "folder pv", "the verifier does not match")
        add("verifier_flipped", "wrong password", changed { $0.keyVerifier = flipped($0.keyVerifier, at: 3) },
            "a damaged verifier reads as a wrong password: the verifier is checked before the unwrap")
        add("wrapped_key_flipped", "corrupt", changed { $0.wrappedKey = flipped($0.wrappedKey, at: 30) },
            "the right password, but the wrapped key fails its tag")
        add("other_folder", "corrupt", changed { $0.id = "3c2b1a09-8f7e-4d6c-8b5a-49382716a5f5" },
            "the record's key columns under another folder id: the id is associated data of the wrapped key")
        add("iterations_zero", "corrupt", changed { $0.kdfIterations = 0 }, "refused before deriving (§2)")
        add("iterations_above_maximum", "corrupt", changed { $0.kdfIterations = PasswordKDF.maximumIterations + 1 },
            "refused before deriving (§2)")
        let kek = try PasswordKDF.deriveKey(password: SecureBytes(copying: Array(password.utf8)),
                                            salt: Array(valid.kdfSalt!), iterations: iterations)
        let shortKey = SecureBytes(randomCount: 16, using: random)
        add("key_16_bytes", "corrupt", changed {
            $0.wrappedKey = Data(try! AESGCM.sealSecret(
                shortKey, key: kek, authenticating: FolderProtection.associatedData(folderId: valid.id), using: random))
        }, "an authentic wrapped key of 16 bytes: a folder key is 32 bytes")

        // protectedMeta (§6.4) under the folder key above.
        func addMeta(_ name: String, _ expect: String, _ sealed: [UInt8], _ meta: ProtectedMeta?, itemId: String, _ comment: String) {
            var fields = [("expect", expect), ("folder_key", folderKeyHex), ("item_id", itemId)]
            if let meta {
                // Each expected field as JSON text: a string, a number or null.
                func json(_ value: (some Encodable)?) -> String {
                    guard let value else { return "null" }
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = .withoutEscapingSlashes
                    return String(decoding: try! encoder.encode(value), as: UTF8.self)
                }
                fields += [("name", json(meta.name)), ("mimeType", json(meta.mimeType)), ("takenAt", json(meta.takenAt)),
                           ("width", json(meta.width)), ("height", json(meta.height)), ("latitude", json(meta.latitude)),
                           ("longitude", json(meta.longitude)), ("place", json(meta.place))]
            }
            fields.append(("comment", comment))
            out["meta/" + name] = file(fields, sealed)
        }
        let itemId = "9e8d7c6b-5a49-4382-a716-0f1e2d3c4b5a"
        let full = ProtectedMeta(name: "IMG_0042.jpg", mimeType: "image/jpeg", takenAt: 1_700_000_000.25, width: 4032, height: 3024)
        let fullSealed = try full.sealed(folderKey: folderKey, itemId: itemId, using: random)
        addMeta("full", "success", fullSealed, full, itemId: itemId, "every field, a fractional takenAt")
        let sparse = ProtectedMeta(name: "scan.pdf", mimeType: "application/pdf", takenAt: nil, width: nil, height: nil)
        addMeta("nulls_omitted", "success", try sparse.sealed(folderKey: folderKey, itemId: itemId, using: random), sparse,
                itemId: itemId, "takenAt, width and height are nil: the JSON has no such keys")
        let explicit = Array(#"{"height":null,"mimeType":"text/plain","name":"notes.txt","takenAt":null,"width":null}"#.utf8)
        addMeta("explicit_nulls", "success",
                try SealedBlob.seal(explicit, key: folderKey, context: Vault.context(itemId), using: random),
                ProtectedMeta(name: "notes.txt", mimeType: "text/plain", takenAt: nil, width: nil, height: nil),
                itemId: itemId, "null values written out read the same as absent keys")
        addMeta("ciphertext_flipped", "failure", fullSealed.with(20, fullSealed[20] ^ 1), nil, itemId: itemId,
                "one bit of the ciphertext")
        addMeta("other_item", "failure", fullSealed, nil, itemId: "9e8d7c6b-5a49-4382-a716-0f1e2d3c4b5b",
                "the item id is the associated data: another item's row cannot borrow it")
        // Last, so that the vectors above keep their bytes: each one draws from `random`.
        var placed = full
        (placed.latitude, placed.longitude, placed.place) = (48.858222, 2.2945, "Paris, Île-de-France, France")
        addMeta("with_place", "success", try placed.sealed(folderKey: folderKey, itemId: itemId, using: random), placed,
                itemId: itemId, "migration v4's position and place, sealed with the rest")

        // The index box (§6.4, "The index box", migration v12) under the same folder key.
        // Last again: the vectors above keep their bytes.
        func addIndex(_ name: String, _ expect: String, _ sealed: [UInt8], _ box: IndexBox?, itemId: String, _ comment: String) {
            var fields = [("expect", expect), ("folder_key", folderKeyHex), ("item_id", itemId)]
            if let box {
                fields += [("flags", "\(box.state.rawValue)"), ("text", box.text), ("text_profile", "\(box.textProfile)"),
                           ("vector_profile", "\(box.vectorProfile)"), ("vector", hex(box.vector?.stored ?? []))]
            }
            fields.append(("comment", comment))
            out["index/" + name] = file(fields, sealed)
        }
        let read = IndexBox(state: [.textRead, .vectorMade], text: "Kassenbon Bäckerei München 12,50 EUR", textProfile: 1,
                            vectorProfile: 2, vector: IndexVector(quantising: (0..<512).map { Float(sin(Double($0) * 0.37)) }))
        let readSealed = try read.sealed(folderKey: folderKey, itemId: itemId, using: random)
        addIndex("text_and_vector", "success", readSealed, read, itemId: itemId, "flags 1 and 2: text, and the int8 vector (§3.3)")
        let unread = IndexBox(state: .notIndexable)
        addIndex("not_indexable", "success", try unread.sealed(folderKey: folderKey, itemId: itemId, using: random), unread,
                 itemId: itemId, "flag 4 alone: no text, no vector, every other byte zero; the same 4,636 bytes")
        addIndex("ciphertext_flipped", "failure", readSealed.with(40, readSealed[40] ^ 1), nil, itemId: itemId, "one bit of the ciphertext")
        addIndex("other_item", "failure", readSealed, nil, itemId: "9e8d7c6b-5a49-4382-a716-0f1e2d3c4b5b",
                 "the item id is associated data")
        addIndex("meta_context", "failure",
                 try SealedBlob.seal(read.plaintext, key: folderKey, context: Vault.context(itemId), using: random), nil,
                 itemId: itemId, "a valid plaintext sealed with protectedMeta's associated data (no label): it must not open")
        var padded = read.plaintext
        padded[padded.count - 1] = 1
        addIndex("padding_not_zero", "failure",
                 try SealedBlob.seal(padded, key: folderKey, context: IndexBox.context(itemId), using: random), nil,
                 itemId: itemId, "authentic, but the last padding byte is 1")
        var flag64 = read.plaintext
        flag64[1] |= 64
        addIndex("flag_64", "failure",
                 try SealedBlob.seal(flag64, key: folderKey, context: IndexBox.context(itemId), using: random), nil,
                 itemId: itemId, "authentic, but the flags carry 64 (the placeholder, which has no box)")
        return out
    }

    // MARK: Device secret and decoy credential (§4.1)

    static func deviceVectors() throws -> [String: [UInt8]] {
        let random = SeededRandom(seed: "obscura device vectors v1")
        let secret = SecureBytes(randomCount: DeviceSecretStore.size, using: random)
        let bytes = secret.withUnsafeBytes { Array($0) }
        var out = [String: [UInt8]]()
        out["device/valid"] = file([
            ("expect", "success"),
            ("credential", hex(DeviceSecretStore.credential(from: secret).withUnsafeBytes { Array($0) })),
            ("crockford", String(decoding: Crockford32.encode(secret).withUnsafeBytes { Array($0) }, as: UTF8.self)),
            ("comment", "a device-secret file; credential = HKDF-SHA256 of it, crockford = its base32 form (§4.2)"),
        ], bytes)
        out["device/short"] = file([("expect", "failure"), ("comment", "31 bytes: the file must be exactly 32")],
                                   Array(bytes.prefix(31)))
        out["device/long"] = file([("expect", "failure"), ("comment", "33 bytes: the file must be exactly 32")],
                                  bytes + [0x0A])
        return out
    }

    /// A version 1 chunked file (§6.1) of `plaintext`, folder-protected when `folderKey` is
    /// given.
    static func seal(
        _ plaintext: [UInt8], key: SecureBytes, folderKey: SecureBytes? = nil, context: [UInt8], prefix: [UInt8],
        chunkSize: Int
    ) throws -> [UInt8] {
        try seal(plaintext, key: key, folderKey: folderKey, context: context, header: ChunkedHeader(
            flags: folderKey == nil ? 0 : ChunkedFormat.flagFolderProtected, noncePrefix: prefix, chunkSize: chunkSize,
            totalSize: UInt64(plaintext.count)))
    }

    /// A version 2 chunked file (§6.6) of `plaintext` with `salt`, folder-protected when
    /// `folderKey` is given.
    static func sealV2(
        _ plaintext: [UInt8], key: SecureBytes, folderKey: SecureBytes? = nil, context: [UInt8], salt: [UInt8],
        chunkSize: Int
    ) throws -> [UInt8] {
        try seal(plaintext, key: key, folderKey: folderKey, context: context, header: ChunkedHeader(
            flags: folderKey == nil ? 0 : ChunkedFormat.flagFolderProtected, salt: salt, chunkSize: chunkSize,
            totalSize: UInt64(plaintext.count)))
    }

    private static func seal(
        _ plaintext: [UInt8], key: SecureBytes, folderKey: SecureBytes?, context: [UInt8], header: ChunkedHeader
    ) throws -> [UInt8] {
        try SealedFile.seal(plaintext, cipher: try ChunkCipher(header: header, key: key, folderKey: folderKey, context: context))
    }
}

extension Array where Element == UInt8 {
    /// A copy with byte `offset` set to `value`.
    func with(_ offset: Int, _ value: UInt8) -> [UInt8] {
        var copy = self
        copy[offset] = value
        return copy
    }

    /// A copy with the slot header checksum recomputed.
    func rechecksummed() -> [UInt8] {
        var copy = self
        copy.replaceSubrange(140..<172, with: SHA256Digest.hash(copy[0..<140]))
        return copy
    }
}
