import Testing
@testable import ObscuraCrypto

/// Chunked format version 2 (docs/FORMAT.md §6.6): its header, its per-file keys, and that
/// every alteration of a file fails.
@Suite struct ChunkedFormatV2Tests {
    let mek = SecureBytes(copying: [UInt8](repeating: 0x11, count: 32))
    let folderKey = SecureBytes(copying: [UInt8](repeating: 0x22, count: 32))
    let context: [UInt8] = Array(repeating: 0x33, count: 16)
    let salt: [UInt8] = Array(0..<32)

    func header(total: UInt64, protected: Bool = false, salt: [UInt8]? = nil) -> ChunkedHeader {
        ChunkedHeader(flags: protected ? ChunkedFormat.flagFolderProtected : 0, salt: salt ?? self.salt,
                      chunkSize: 4096, totalSize: total)
    }

    func seal(_ plaintext: [UInt8], protected: Bool = false, salt: [UInt8]? = nil) throws -> [UInt8] {
        let h = header(total: UInt64(plaintext.count), protected: protected, salt: salt)
        return try SealedFile.seal(plaintext, cipher: try ChunkCipher(header: h, key: mek, folderKey: protected ? folderKey : nil, context: context))
    }

    func open(_ file: [UInt8], protected: Bool = false) throws -> [UInt8] {
        try SealedFile.open(file, key: mek, folderKey: protected ? folderKey : nil, context: context)
    }

    @Test func headerLayout() throws {
        let h = header(total: 10_000, protected: true)
        let bytes = h.encoded()
        #expect(bytes.count == ChunkedFormatV2.headerSize && h.headerSize == 52)
        #expect(Array(bytes[0..<20]) == [0x4F, 0x42, 0x53, 0x4B, 0x00, 0x02, 0x00, 0x01, 0x00, 0x00, 0x10, 0x00,
                                         0, 0, 0, 0, 0, 0, 0x27, 0x10])
        #expect(Array(bytes[20..<52]) == salt)
        #expect(try ChunkedHeader.decode(bytes) == h)
        #expect(try ChunkedHeader.decode(bytes + [1, 2, 3]) == h, "bytes after the header are the chunks'")
        #expect(h.fileSize == 52 + 10_000 + 3 * 32)
        #expect(h.fileOffset(ofChunk: 1) == 52 + 4096 + 32)
    }

    @Test func headerRejectsWhatItDoesNotKnow() {
        let bytes = header(total: 1).encoded()
        #expect(throws: StreamError.unsupported("unsupported chunked format version")) { try ChunkedHeader.decode(bytes.with(5, 3)) }
        #expect(throws: StreamError.unsupported("unknown flags")) { try ChunkedHeader.decode(bytes.with(7, 2)) }
        #expect(throws: StreamError.unsupported("chunk size out of range")) { try ChunkedHeader.decode(bytes.with(10, 0)) }
        #expect(throws: StreamError.truncated) { try ChunkedHeader.decode(bytes.prefix(51)) }
        #expect(throws: StreamError.truncated) { try ChunkedHeader.decode(bytes.prefix(5)) }
        #expect(throws: StreamError.notChunked) { try ChunkedHeader.decode(bytes.with(0, 0)) }
    }

    @Test func nonceIsACounter() {
        #expect(ChunkedFormatV2.nonce(0) == [UInt8](repeating: 0, count: 12))
        #expect(ChunkedFormatV2.nonce(0x0102) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2])
    }

    @Test func roundTripsPlainProtectedAndEmpty() throws {
        let plaintext = SeededRandom(seed: "v2").bytes(3 * 4096 + 5)
        #expect(try open(try seal(plaintext)) == plaintext)
        #expect(try open(try seal(plaintext, protected: true), protected: true) == plaintext)
        #expect(try open(try seal([])) == [])
        #expect(throws: StreamError.self) { try open(try seal(plaintext, protected: true)) }
        #expect(throws: StreamError.self) { try open(try seal(plaintext), protected: true) }
    }

    /// Two files never share a key: another salt derives another key in each layer, so
    /// the same plaintext under the same MEK, context and nonces seals to other bytes.
    @Test func eachSaltDerivesItsOwnKeys() throws {
        let other = Array(salt.reversed())
        for label in [ChunkedFormatV2.innerKeyLabel, ChunkedFormatV2.outerKeyLabel] {
            #expect(ChunkedFormatV2.fileKey(root: mek, salt: salt, label: label) != ChunkedFormatV2.fileKey(root: mek, salt: other, label: label))
        }
        #expect(ChunkedFormatV2.fileKey(root: mek, salt: salt, label: ChunkedFormatV2.innerKeyLabel)
                != ChunkedFormatV2.fileKey(root: mek, salt: salt, label: ChunkedFormatV2.outerKeyLabel))
        #expect(ChunkedFormatV2.fileKey(root: mek, salt: salt, label: ChunkedFormatV2.innerKeyLabel) != mek)
        let plaintext = [UInt8](repeating: 7, count: 100)
        let a = try seal(plaintext), b = try seal(plaintext, salt: other)
        #expect(a[52...] != b[52...])
        // A salt copied from one file into another does not open it: the key changes.
        var swapped = b
        swapped.replaceSubrange(20..<52, with: a[20..<52])
        #expect(throws: StreamError.chunkFailed(0)) { try open(swapped) }
        // Fresh salts from the system source: two thumbnails of the same bytes differ.
        let first = try SealedFile.seal(plaintext, key: mek, context: context)
        let second = try SealedFile.seal(plaintext, key: mek, context: context)
        #expect(first[20..<52] != second[20..<52])
    }

    /// Every bit position of a two-chunk file, header included, flipped one at a time:
    /// nothing opens. Plain and protected.
    @Test func everyAlteredByteFails() throws {
        let plaintext = SeededRandom(seed: "flip").bytes(4096 + 100)
        for protected in [false, true] {
            let file = try seal(plaintext, protected: protected)
            #expect(try open(file, protected: protected) == plaintext)
            for offset in file.indices {
                let bit = UInt8(1) << UInt8(offset % 8)
                let altered = file.with(offset, file[offset] ^ bit)
                if offset < 4 {
                    // No longer the chunked magic: read as a version 1 blob, which fails its tag.
                    #expect(throws: CryptoError.authenticationFailed, "byte \(offset)") { try open(altered, protected: protected) }
                } else {
                    #expect(throws: StreamError.self, "byte \(offset)") { try open(altered, protected: protected) }
                }
            }
        }
    }

    /// Every shorter length and a longer file fail; so does a file cut at a chunk boundary
    /// whose total size is edited to match, and chunks in another order.
    @Test func truncationAndReorderingFail() throws {
        let plaintext = SeededRandom(seed: "cut").bytes(3 * 4096 + 10)
        let file = try seal(plaintext)
        for length in 0..<4 {
            #expect(throws: CryptoError.truncated, "length \(length)") { try open(Array(file.prefix(length))) }
        }
        for length in 4..<file.count {
            #expect(throws: StreamError.truncated, "length \(length)") { try open(Array(file.prefix(length))) }
        }
        #expect(throws: StreamError.trailingData) { try open(file + [0]) }
        let chunk = 4096 + 16
        var cut = Array(file.prefix(52 + 3 * chunk))
        cut.replaceSubrange(12..<20, with: [0, 0, 0, 0, 0, 0, 0x30, 0x00])
        // The edited header is associated data of every chunk: chunk 0 fails first.
        #expect(throws: StreamError.chunkFailed(0)) { try open(cut) }
        var swapped = file
        swapped.replaceSubrange((52 + chunk)..<(52 + 2 * chunk), with: file[(52 + 2 * chunk)..<(52 + 3 * chunk)])
        swapped.replaceSubrange((52 + 2 * chunk)..<(52 + 3 * chunk), with: file[(52 + chunk)..<(52 + 2 * chunk)])
        #expect(throws: StreamError.chunkFailed(1)) { try open(swapped) }
        #expect(throws: StreamError.chunkFailed(0)) { try SealedFile.open(file, key: mek, context: Array(repeating: 0x44, count: 16)) }
    }

    /// Version 1 files, chunked and single-shot, still open through the same entry point.
    @Test func version1StillOpens() throws {
        let plaintext = SeededRandom(seed: "v1").bytes(5000)
        let v1 = ChunkedHeader(flags: 0, noncePrefix: [1, 2, 3, 4], chunkSize: 4096, totalSize: 5000)
        let chunked = try SealedFile.seal(plaintext, cipher: try ChunkCipher(header: v1, key: mek, folderKey: nil, context: context))
        #expect(Array(chunked[4..<6]) == [0, 1] && chunked.count == 24 + 5000 + 32)
        #expect(try open(chunked) == plaintext)
        let blob = try SealedBlob.seal(plaintext, key: mek, folderKey: folderKey, context: context)
        #expect(try open(blob, protected: true) == plaintext)
    }
}

extension Array where Element == UInt8 {
    /// A copy with byte `offset` set to `value`.
    func with(_ offset: Int, _ value: UInt8) -> [UInt8] {
        var copy = self
        copy[offset] = value
        return copy
    }
}
