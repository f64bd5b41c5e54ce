import Foundation
import ObscuraCrypto
import ObscuraVectors
import Testing
@testable import ObscuraKit

/// The vectors of media format version 2 and the keyed content hash (docs/FORMAT.md §5,
/// §6.6, §6.7). Version 2 files sit in `chunked/` and go through
/// ``VectorTests/chunkedVectors()`` with the rest; here, their derived keys and the
/// `hash/` vectors.
@Suite struct MediaVectorTests {
    @Test func version2VectorsAreThereAndTheirFileKeysMatch() throws {
        let vectors = try VectorTests.load("chunked").filter { $0.name.hasPrefix("v2_") }
        #expect(vectors.count >= 15)
        #expect(vectors.allSatisfy { Array($0.body.prefix(6)) == ChunkedFormat.magic + [0, 2] || $0.name == "v2_version_3" })
        let keyed = vectors.filter { $0.fields["file_key"] != nil }
        #expect(keyed.count == 4)
        for v in keyed {
            let salt = Array(v.body[20..<52])
            let inner = ChunkedFormatV2.fileKey(
                root: SecureBytes(copying: VectorTests.unhex(v.fields["mek"])), salt: salt, label: ChunkedFormatV2.innerKeyLabel)
            #expect(inner.withUnsafeBytes { VectorSet.hex($0) } == v.fields["file_key"], "\(v.name)")
            let outer = v.fields["folder_key"].map {
                ChunkedFormatV2.fileKey(root: SecureBytes(copying: VectorTests.unhex($0)), salt: salt, label: ChunkedFormatV2.outerKeyLabel)
            }
            #expect(outer?.withUnsafeBytes { VectorSet.hex($0) } == v.fields["outer_file_key"], "\(v.name)")
        }
    }

    @Test func contentHashVectors() throws {
        let vectors = try VectorTests.load("hash")
        #expect(vectors.count >= 3)
        for v in vectors {
            let hashKey = ContentHash.key(from: SecureBytes(copying: VectorTests.unhex(v.fields["key"])))
            #expect(hashKey.withUnsafeBytes { VectorSet.hex($0) } == v.fields["hash_key"], "hash/\(v.name)")
            let sha256 = SHA256Digest.hash(v.body)
            #expect(VectorSet.hex(sha256) == v.fields["sha256"], "hash/\(v.name)")
            let outcome = VectorSet.hex(ContentHash.keyed(sha256: sha256, key: hashKey)) == v.fields["content_hash"] ? "success" : "wrong hash"
            #expect(outcome == v.expect, "hash/\(v.name)")
        }
        // The vault's key and a folder key give two values for one plaintext.
        let byName = Dictionary(uniqueKeysWithValues: vectors.map { ($0.name, $0) })
        #expect(byName["vault"]?.body == byName["protected"]?.body)
        #expect(byName["vault"]?.fields["content_hash"] != byName["protected"]?.fields["content_hash"])
    }
}
