import Foundation
import ObscuraCrypto
import ObscuraKit

/// The vectors of media format version 2 (docs/FORMAT.md §6.6), beside version 1's in
/// `chunked/`, and of the keyed content hash (§6.7) in `hash/`.
extension VectorSet {
    // MARK: Chunked files, version 2 (§6.6)

    static func chunkedV2Vectors() throws -> [String: [UInt8]] {
        let random = SeededRandom(seed: "obscura chunked vectors v2")
        let mek = SecureBytes(randomCount: 32, using: random)
        let folderKey = SecureBytes(randomCount: 32, using: random)
        let context = random.bytes(16)
        let plaintext = random.bytes(3 * 4096 + 1000)
        let header = ChunkedFormatV2.headerSize
        var out = [String: [UInt8]]()

        func add(_ name: String, _ expect: String, _ bytes: [UInt8], plain: [UInt8] = plaintext,
                 folderKey withFolderKey: Bool = false, keys: Bool = false, _ comment: String) {
            var fields = [("expect", expect), ("mek", hex(mek.withUnsafeBytes { Array($0) })), ("context", hex(context))]
            if withFolderKey { fields.append(("folder_key", hex(folderKey.withUnsafeBytes { Array($0) }))) }
            if expect == "success" { fields.append(("plaintext_sha256", hex(SHA256Digest.hash(plain)))) }
            if keys {
                // The derived keys, for a second implementation to check its HKDF against.
                let salt = Array(bytes[20..<52])
                let inner = ChunkedFormatV2.fileKey(root: mek, salt: salt, label: ChunkedFormatV2.innerKeyLabel)
                fields.append(("file_key", hex(inner.withUnsafeBytes { Array($0) })))
                if withFolderKey {
                    let outer = ChunkedFormatV2.fileKey(root: folderKey, salt: salt, label: ChunkedFormatV2.outerKeyLabel)
                    fields.append(("outer_file_key", hex(outer.withUnsafeBytes { Array($0) })))
                }
            }
            fields.append(("comment", comment))
            out["chunked/v2_" + name] = file(fields, bytes)
        }
        func seal(_ plain: [UInt8], protected: Bool) throws -> [UInt8] {
            try sealV2(plain, key: mek, folderKey: protected ? folderKey : nil, context: context,
                       salt: random.bytes(ChunkedFormatV2.saltSize), chunkSize: 4096)
        }

        let valid = try seal(plaintext, protected: false)
        let chunk = 4096 + 16
        add("valid", "success", valid, keys: true, "version 2: 4 chunks of 4096 (the last 1000 bytes) under the file's own key")
        add("empty", "success", try seal([], protected: false), plain: [], "an empty file is one empty final chunk")
        let protected = try seal(plaintext, protected: true)
        add("protected", "success", protected, folderKey: true, keys: true,
            "folder-protected: every chunk sealed under the file key from the MEK, then under the one from the folder key")
        add("protected_without_folder_key", "failure", protected, "the MEK alone opens nothing")
        add("truncated_last_chunk", "truncated", Array(valid.prefix(valid.count - 1016)), "the final chunk is missing")
        var shortened = Array(valid.prefix(valid.count - 1016))
        shortened.replaceSubrange(12..<20, with: [0, 0, 0, 0, 0, 0, 0x30, 0x00])
        add("truncated_header_fixed", "chunk failure", shortened,
            "total size edited to match: the new last chunk was sealed as a middle chunk")
        var swapped = valid
        swapped.replaceSubrange((header + chunk)..<(header + 2 * chunk), with: valid[(header + 2 * chunk)..<(header + 3 * chunk)])
        swapped.replaceSubrange((header + 2 * chunk)..<(header + 3 * chunk), with: valid[(header + chunk)..<(header + 2 * chunk)])
        add("chunks_swapped", "chunk failure", swapped, "chunks 1 and 2 exchanged: their nonces no longer match")
        add("salt_flipped", "chunk failure", valid.with(30, valid[30] ^ 1),
            "another salt derives another file key, and the header is associated data of every chunk")
        add("chunk_size_flipped", "failure", valid.with(8, valid[8] ^ 1), "a chunk size above 16 MiB is refused from the header")
        add("flag_set", "failure", valid.with(7, 1),
            "claims folder protection it does not have: no folder key is given, so it is refused before its size or chunks are looked at")
        add("version_3", "failure", valid.with(5, 3), "chunked format version 3 is unknown")
        add("trailing_byte", "trailing data", valid + [0], "a byte after the last chunk")
        add("ciphertext_flipped", "chunk failure", valid.with(header + chunk + 5, valid[header + chunk + 5] ^ 0x80), "one bit of chunk 1")
        add("tag_flipped", "chunk failure", valid.with(valid.count - 1, valid[valid.count - 1] ^ 1), "one bit of the last chunk's tag")
        add("truncated_in_header", "truncated", Array(valid.prefix(40)), "version 2 but ends inside the 52-byte header")

        // Thumbnails are written as version 2 chunked files too, with the media chunk size (§6.5).
        let thumbnail = random.bytes(500)
        let thumb = try SealedFile.seal(thumbnail, key: mek, context: context, using: random)
        add("thumbnail", "success", thumb, plain: thumbnail, keys: true, "a thumbnail: one chunk of 500 bytes, chunk size 262,144")
        let protectedThumb = try SealedFile.seal(thumbnail, key: mek, folderKey: folderKey, context: context, using: random)
        add("thumbnail_protected", "success", protectedThumb, plain: thumbnail, folderKey: true, keys: true,
            "a protected item's thumbnail: both layers")
        return out
    }

    // MARK: Keyed content hashes (§6.7)

    static func contentHashVectors() throws -> [String: [UInt8]] {
        let random = SeededRandom(seed: "obscura hash vectors v1")
        let mek = SecureBytes(randomCount: 32, using: random)
        let folderKey = SecureBytes(randomCount: 32, using: random)
        let photo = random.bytes(1000)
        var out = [String: [UInt8]]()

        func add(_ name: String, root: SecureBytes, kind: String, _ body: [UInt8], _ comment: String) {
            let sha256 = SHA256Digest.hash(body)
            let hashKey = ContentHash.key(from: root)
            out["hash/" + name] = file([
                ("expect", "success"), ("key", hex(root.withUnsafeBytes { Array($0) })), ("key_kind", kind),
                ("hash_key", hex(hashKey.withUnsafeBytes { Array($0) })), ("sha256", hex(sha256)),
                ("content_hash", hex(ContentHash.keyed(sha256: sha256, key: hashKey))), ("comment", comment),
            ], body)
        }
        add("vault", root: mek, kind: "mek", photo, "an item outside protected folders: K_hash from the MEK")
        add("protected", root: folderKey, kind: "folder_key", photo,
            "the same plaintext in a protected folder: K_hash from the folder key, another value")
        add("empty", root: mek, kind: "mek", [], "an empty plaintext")
        return out
    }
}
