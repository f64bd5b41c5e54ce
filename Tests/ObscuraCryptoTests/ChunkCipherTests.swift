import Testing
@testable import ObscuraCrypto

@Suite struct ChunkCipherTests {
    let mek = SecureBytes(copying: [UInt8](repeating: 0x11, count: 32))
    let folderKey = SecureBytes(copying: [UInt8](repeating: 0x22, count: 32))
    let context: [UInt8] = Array(repeating: 0x33, count: 16)

    func header(total: UInt64, protected: Bool = false, chunk: Int = 4096) -> ChunkedHeader {
        ChunkedHeader(flags: protected ? ChunkedFormat.flagFolderProtected : 0,
                      noncePrefix: [0xA1, 0xB2, 0xC3, 0xD4], chunkSize: chunk, totalSize: total)
    }

    func sealAll(_ plaintext: [UInt8], _ h: ChunkedHeader, outer: SecureBytes? = nil) throws -> [[UInt8]] {
        let cipher = try ChunkCipher(header: h, key: mek, folderKey: outer, context: context)
        return try (0..<h.chunkCount).map { i in
            let start = Int(i) * h.chunkSize
            let end = start + h.plaintextLength(ofChunk: i)
            return try plaintext[start..<end].withUnsafeBytes { try cipher.seal($0, index: i) }
        }
    }

    @Test func headerRoundTripAndLayout() throws {
        let h = header(total: 10_000, protected: true)
        let bytes = h.encoded()
        #expect(bytes.count == ChunkedFormat.headerSize)
        #expect(bytes == [0x4F, 0x42, 0x53, 0x4B, 0x00, 0x01, 0x00, 0x01, 0xA1, 0xB2, 0xC3, 0xD4,
                          0x00, 0x00, 0x10, 0x00, 0, 0, 0, 0, 0, 0, 0x27, 0x10])
        #expect(try ChunkedHeader.decode(bytes) == h)
        #expect(h.chunkCount == 3)
        #expect(h.plaintextLength(ofChunk: 2) == 10_000 - 8192)
        #expect(h.fileSize == 24 + 10_000 + 3 * 32)
        #expect(header(total: 0).chunkCount == 1)
    }

    @Test func headerRejectsUnknownValues() {
        var bytes = header(total: 1).encoded()
        bytes[0] ^= 1
        #expect(throws: StreamError.notChunked) { try ChunkedHeader.decode(bytes) }
        bytes = header(total: 1).encoded(); bytes[5] = 3
        #expect(throws: StreamError.unsupported("unsupported chunked format version")) { try ChunkedHeader.decode(bytes) }
        bytes = header(total: 1).encoded(); bytes[7] = 2
        #expect(throws: StreamError.unsupported("unknown flags")) { try ChunkedHeader.decode(bytes) }
        bytes = header(total: 1).encoded(); bytes[14] = 0
        #expect(throws: StreamError.unsupported("chunk size out of range")) { try ChunkedHeader.decode(bytes) }
        #expect(throws: StreamError.truncated) { try ChunkedHeader.decode(bytes.prefix(23)) }
    }

    @Test func roundTripPlainAndProtected() throws {
        let plaintext = SeededRandom(seed: "chunks").bytes(10_000)
        for outer in [nil, folderKey] {
            let h = header(total: 10_000, protected: outer != nil)
            let sealed = try sealAll(plaintext, h, outer: outer)
            let cipher = try ChunkCipher(header: h, key: mek, folderKey: outer, context: context)
            let opened = try sealed.enumerated().flatMap { try cipher.open($1, index: UInt64($0)) }
            #expect(opened == plaintext)
        }
    }

    @Test func reorderedChunksFail() throws {
        let h = header(total: 3 * 4096)
        let sealed = try sealAll(SeededRandom(seed: "r").bytes(3 * 4096), h)
        let cipher = try ChunkCipher(header: h, key: mek, folderKey: nil, context: context)
        #expect(throws: StreamError.chunkFailed(0)) { try cipher.open(sealed[1], index: 0) }
    }

    /// Dropping the last chunk and shrinking the header to match still fails: the new
    /// last chunk was sealed with the middle mark and under the old header.
    @Test func truncationFailsEvenWithAFixedHeader() throws {
        let h = header(total: 3 * 4096)
        let sealed = try sealAll(SeededRandom(seed: "t").bytes(3 * 4096), h)
        let shorter = try ChunkCipher(header: header(total: 2 * 4096), key: mek, folderKey: nil, context: context)
        #expect(throws: StreamError.chunkFailed(1)) { try shorter.open(sealed[1], index: 1) }
        #expect(throws: StreamError.chunkFailed(0)) { try shorter.open(sealed[0], index: 0) }
    }

    @Test func wrongContextFails() throws {
        let h = header(total: 100)
        let sealed = try sealAll(Array(repeating: 1, count: 100), h)
        let other = try ChunkCipher(header: h, key: mek, folderKey: nil, context: Array(repeating: 0x44, count: 16))
        #expect(throws: StreamError.chunkFailed(0)) { try other.open(sealed[0], index: 0) }
    }

    /// docs/FORMAT.md §6.4, byte for byte: inner = AES-GCM(MEK, prefix ‖ i, AD) without its
    /// nonce, outer = AES-GCM(folder key, prefix ‖ (n + i), AD) over inner, AD = header ‖
    /// mark ‖ context; the MEK alone opens nothing.
    @Test func folderProtectedLayoutMatchesTheSpec() throws {
        let plaintext = SeededRandom(seed: "layout").bytes(4096 + 100)
        let h = header(total: UInt64(plaintext.count), protected: true)
        let sealed = try sealAll(plaintext, h, outer: folderKey)
        let headerBytes = h.encoded()
        for i in 0..<2 {
            var nonce = [0xA1, 0xB2, 0xC3, 0xD4] as [UInt8]; nonce.appendBigEndian(UInt64(i))
            var outerNonce = [0xA1, 0xB2, 0xC3, 0xD4] as [UInt8]; outerNonce.appendBigEndian(UInt64(2 + i))
            let ad = headerBytes + [i == 1 ? 0x01 : 0x00] + context
            let chunk = Array(plaintext[(i * 4096)..<min(plaintext.count, (i + 1) * 4096)])
            let inner = Array(try AESGCM.seal(chunk, key: mek, nonce: nonce, authenticating: ad).dropFirst(12))
            let outer = Array(try AESGCM.seal(inner, key: folderKey, nonce: outerNonce, authenticating: ad).dropFirst(12))
            #expect(sealed[i] == outer)
            #expect(sealed[i].count == chunk.count + 32)
        }
        // Known answer, so that a change to any of the above is caught even if mirrored here.
        #expect(Array(SHA256Digest.hash(headerBytes + sealed.flatMap { $0 }).prefix(8)) == [22, 23, 84, 248, 106, 2, 157, 75])
        let withoutFolderKey = try ChunkCipher(header: header(total: UInt64(plaintext.count)), key: mek, folderKey: nil, context: context)
        #expect(throws: StreamError.self) { try withoutFolderKey.open(sealed[0], index: 0) }
    }

    @Test func sealedBlobNeverStartsWithTheChunkedMagic() throws {
        /// Yields the chunked magic as its first nonce, then ordinary bytes.
        final class MagicFirst: RandomSource, @unchecked Sendable {
            var calls = 0
            func fill(_ buffer: UnsafeMutableRawBufferPointer) {
                calls += 1
                for i in 0..<buffer.count { buffer[i] = calls == 1 && i < 4 ? ChunkedFormat.magic[i] : UInt8(i) }
            }
        }
        let random = MagicFirst()
        let blob = try SealedBlob.seal([1, 2, 3], key: mek, context: context, using: random)
        #expect(!SealedBlob.isChunked(blob))
        #expect(random.calls == 2)
        #expect(try SealedBlob.open(blob, key: mek, context: context) == [1, 2, 3])
        let double = try SealedBlob.seal([4], key: mek, folderKey: folderKey, context: context)
        #expect(double.count == 1 + 2 * AESGCM.overhead)
        #expect(try SealedBlob.open(double, key: mek, folderKey: folderKey, context: context) == [4])
        #expect(throws: CryptoError.authenticationFailed) { try SealedBlob.open(double, key: mek, context: context) }
    }
}
