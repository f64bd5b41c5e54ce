import Foundation
import ObscuraCrypto
import ObscuraVectors
import Testing
@testable import ObscuraKit

/// testdata/drop (docs/FORMAT.md §5, §10) through the intake's own reader: the trial of
/// §10.6 step 3, then every chunk and the envelope.
@Suite struct DropVectorTests {
    static func outcome(_ v: VectorTests.Vector, in directory: String) -> String {
        let path = directory + "/" + v.name
        do {
            try Data(v.body).write(to: URL(fileURLWithPath: path))
            _ = try DropBlob.checkedHeader(v.body.prefix(ChunkedFormatV2.headerSize), size: UInt64(v.body.count))
            let pair = try HPKEExporter.KeyPair(privateKey: SecureBytes(copying: VectorTests.unhex(v.fields["private_key"])))
            guard VectorSet.hex(pair.publicKey) == v.fields["public_key"] else { return "public key differs" }
            guard let reader = Vault.trial(path, keyPair: pair) else { return "no match" }
            var plain = [UInt8]()
            do {
                for index in 0..<reader.header.chunkCount { plain += try reader.chunk(index) }
            } catch is CryptoError {
                return "damaged"
            } catch is StreamError {
                return "damaged"
            }
            guard !DropBlob.isNewer(plain) else { return "newer envelope" }
            guard let envelope = DropBlob.envelope(plain) else { return "bad envelope" }
            let content = Array(plain[envelope.contentOffset...])
            let kind = envelope.kind == .note ? "note" : "file"
            return kind == v.fields["kind"] && envelope.name == v.fields["name"]
                && VectorSet.hex(SHA256Digest.hash(content)) == v.fields["content_sha256"] ? "success" : "wrong content"
        } catch is DropError {
            return "malformed"
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test func everyDropVectorHasItsOutcome() throws {
        let vectors = try VectorTests.load("drop")
        #expect(vectors.count >= 12)
        let directory = FileManager.default.temporaryDirectory.path + "/drop-vectors-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for v in vectors {
            #expect(Self.outcome(v, in: directory) == v.expect, "drop/\(v.name)")
            #expect(try DropCode(text: v.fields["code"] ?? "").publicKey == VectorTests.unhex(v.fields["public_key"]) || v.expect != "success")
        }
    }
}
