import Foundation
import ObscuraCrypto
import ObscuraKit

extension VectorSet {
    // MARK: Drops (§10)

    /// `drop/`: drop blobs, each opened with the private key its fields give. `expect` is
    /// `success` (then `kind`, `name` and `content_sha256` describe the plaintext, and
    /// `enc` … `k_in` the values on the way to it), `no match` (no root of this key opens
    /// chunk 0: another vault's drop, or a refused DH), `damaged` (chunk 0 opens, a later
    /// one fails), `newer envelope` (every chunk opens; the envelope's version or kind is
    /// one this reader does not know, §10.4), `bad envelope` (every chunk opens, §10.4
    /// refuses the envelope) or `malformed` (refused before any key is used).
    static func dropVectors() throws -> [String: [UInt8]] {
        let random = SeededRandom(seed: "obscura drop vectors v1")
        let recipient = try HPKEExporter.KeyPair.generate(using: random)
        let other = try HPKEExporter.KeyPair.generate(using: random)
        let code = DropCode(publicKey: recipient.publicKey)
        var out = [String: [UInt8]]()

        func blob(_ content: [UInt8], name: String, kind: DropFormat.Kind = .file) throws -> [UInt8] {
            var bytes = [UInt8]()
            try content.withUnsafeBytes { plain in
                try DropBlob.seal(to: code, kind: kind, name: name, contentSize: UInt64(plain.count),
                                  source: ChunkedFileWriter.source(bytes: plain), using: random) { bytes += Array($0) }
            }
            return bytes
        }
        func add(_ vector: String, _ expect: String, _ bytes: [UInt8], key: HPKEExporter.KeyPair = recipient,
                 content: [UInt8]? = nil, name: String? = nil, kind: String = "file", _ comment: String) throws {
            var fields = [("expect", expect), ("private_key", key.privateKey.withUnsafeBytes { hex($0) }),
                          ("public_key", hex(key.publicKey)), ("code", code.text)]
            if let content, let name {
                fields += [("kind", kind), ("name", name), ("content_size", "\(content.count)"),
                           ("content_sha256", hex(SHA256Digest.hash(content)))]
                fields += try steps(bytes, key)
            }
            fields.append(("comment", comment))
            out["drop/" + vector] = file(fields, bytes)
        }

        // §10.2's and §10.3's intermediate values of a blob that opens, so that a reader
        // that disagrees learns at which step: enc (the salt with its high bit cleared),
        // the X25519 output, the KEM's shared secret, the exported root, K_in.
        func steps(_ bytes: [UInt8], _ key: HPKEExporter.KeyPair) throws -> [(String, String)] {
            let salt = Array(bytes[20..<52])
            var enc = salt
            enc[31] &= ~DropFormat.encHighBitMask
            let (dh, shared, root) = try HPKEExporter.intermediates(
                enc: enc, keyPair: key, info: DropFormat.info, context: DropFormat.exportContext, length: AESGCM.keySize)
            let inner = ChunkedFormatV2.fileKey(root: root, salt: salt, label: ChunkedFormatV2.innerKeyLabel)
            return [("enc", hex(enc)), ("dh", dh.withUnsafeBytes { hex($0) }), ("shared_secret", shared.withUnsafeBytes { hex($0) }),
                    ("root", root.withUnsafeBytes { hex($0) }), ("k_in", inner.withUnsafeBytes { hex($0) })]
        }

        let small = Array("a small drop\n".utf8)
        let valid = try blob(small, name: "hello.txt")
        try add("valid", "success", valid, content: small, name: "hello.txt", "one chunk: the envelope and 13 bytes")
        try add("other_key", "no match", valid, key: other, "another vault's key: the exported root differs, chunk 0 fails")
        // Two chunks: 300,000 content bytes and a 12-byte envelope.
        let large = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let twoChunks = try blob(large, name: "large.bin")
        try add("two_chunks", "success", twoChunks, content: large, name: "large.bin", "300,012 plaintext bytes in two chunks")
        let note = Array("# Note\nfrom the page".utf8)
        try add("note", "success", try blob(note, name: "note", kind: .note), content: note, name: "note", kind: "note",
            "a note: kind 02")
        var highBit = valid
        highBit[51] ^= DropFormat.encHighBitMask
        try add("enc_high_bit_flipped", "no match", highBit,
            "the salt's random high bit flipped: enc is the same, but K_in's salt and the header in the AD differ")
        try add("truncated", "malformed", Array(valid.dropLast()), "one byte short of the header's file size")
        try add("trailing", "malformed", valid + [0], "one byte past the header's file size")
        var protected = valid
        protected[7] = 0x01
        try add("protected_flag", "malformed", protected, "a drop is never folder-protected")
        var chunk = valid
        chunk.replaceSubrange(8..<12, with: [0x00, 0x01, 0x00, 0x00])
        try add("chunk_size_65536", "malformed", chunk, "a drop's chunk size is 262,144")

        // What an intake does with a blob past its header (§10.6): named by outcome.
        var laterChunk = twoChunks
        laterChunk[ChunkedFormatV2.headerSize + Int(DropFormat.chunkSize) + AESGCM.tagSize + 100] ^= 0x01
        try add("later_chunk_flipped", "damaged", laterChunk,
                "chunk 0 opens (the blob is this key's), chunk 1 fails its tag: the intake removes the blob and says so")
        var badEnvelope = [UInt8]()
        let wrongVersion: [UInt8] = [0x02, 0x01, 0x00, 0x01, UInt8(ascii: "x")] + small
        try wrongVersion.withUnsafeBytes { plain in
            try DropBlob.seal(to: code, envelope: [], contentSize: UInt64(plain.count),
                              source: ChunkedFileWriter.source(bytes: plain), using: random) { badEnvelope += Array($0) }
        }
        try add("bad_envelope", "newer envelope", badEnvelope,
                "every chunk opens, but the envelope's version is 02: a reader of version 01 leaves the blob in the inbox for a newer reader and says so")
        // u = 0 is a point of small order: X25519 with it gives the all-zero value,
        // which RFC 9180 §7.1.4 refuses, so no key opens the blob.
        var lowOrder = valid
        lowOrder.replaceSubrange(20..<52, with: [UInt8](repeating: 0, count: 32))
        try add("low_order_enc", "no match", lowOrder,
                "enc is 32 zero bytes, a point of small order: the DH output is all zero and refused, so no key opens it; it stays for other vaults")
        // Appended last, so that the random draws of the vectors above stay as they were.
        var badName = [UInt8]()
        let notUTF8: [UInt8] = [0x01, 0x01, 0x00, 0x02, 0xC3, 0x28] + small
        try notUTF8.withUnsafeBytes { plain in
            try DropBlob.seal(to: code, envelope: [], contentSize: UInt64(plain.count),
                              source: ChunkedFileWriter.source(bytes: plain), using: random) { badName += Array($0) }
        }
        try add("bad_envelope_name", "bad envelope", badName,
                "every chunk opens, the envelope is version 01, but its name is not UTF-8: the intake refuses it, removes the blob and says so")
        return out
    }
}
