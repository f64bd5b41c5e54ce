import Foundation
import ObscuraCrypto

extension VectorSet {
    // MARK: Drops (§10)

    /// `drop/`: drop blobs, each opened with the private key its fields give. `expect` is
    /// `success` (then `kind`, `name` and `content_sha256` describe the plaintext),
    /// `no match` (the key is not the blob's recipient: chunk 0 fails to authenticate) or
    /// `malformed` (refused before any key is used).
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
                 content: [UInt8]? = nil, name: String? = nil, kind: String = "file", _ comment: String) {
            var fields = [("expect", expect), ("private_key", key.privateKey.withUnsafeBytes { hex($0) }),
                          ("public_key", hex(key.publicKey)), ("code", code.text)]
            if let content, let name {
                fields += [("kind", kind), ("name", name), ("content_size", "\(content.count)"),
                           ("content_sha256", hex(SHA256Digest.hash(content)))]
            }
            fields.append(("comment", comment))
            out["drop/" + vector] = file(fields, bytes)
        }

        let small = Array("a small drop\n".utf8)
        let valid = try blob(small, name: "hello.txt")
        add("valid", "success", valid, content: small, name: "hello.txt", "one chunk: the envelope and 13 bytes")
        add("other_key", "no match", valid, key: other, "another vault's key: the exported root differs, chunk 0 fails")
        // Two chunks: 300,000 content bytes and a 12-byte envelope.
        let large = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let twoChunks = try blob(large, name: "large.bin")
        add("two_chunks", "success", twoChunks, content: large, name: "large.bin", "300,012 plaintext bytes in two chunks")
        let note = Array("# Note\nfrom the page".utf8)
        add("note", "success", try blob(note, name: "note", kind: .note), content: note, name: "note", kind: "note",
            "a note: kind 02")
        var highBit = valid
        highBit[51] ^= DropFormat.encHighBitMask
        add("enc_high_bit_flipped", "no match", highBit,
            "the salt's random high bit flipped: enc is the same, but K_in's salt and the header in the AD differ")
        add("truncated", "malformed", Array(valid.dropLast()), "one byte short of the header's file size")
        add("trailing", "malformed", valid + [0], "one byte past the header's file size")
        var protected = valid
        protected[7] = 0x01
        add("protected_flag", "malformed", protected, "a drop is never folder-protected")
        var chunk = valid
        chunk.replaceSubrange(8..<12, with: [0x00, 0x01, 0x00, 0x00])
        add("chunk_size_65536", "malformed", chunk, "a drop's chunk size is 262,144")
        return out
    }
}
