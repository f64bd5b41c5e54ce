/// A small file sealed or opened whole in memory: a thumbnail (docs/FORMAT.md §6.5).
///
/// Writers write a version 2 chunked file (§6.6), so that a thumbnail, like an original,
/// is sealed under keys of its own. Readers dispatch on the first four bytes: the chunked
/// magic means a chunked file of either version, anything else a version 1 single-shot
/// blob (``SealedBlob``), as thumbnails written before version 2 are.
public enum SealedFile {
    /// Seals `plaintext` as a version 2 chunked file under keys derived from `key` (and
    /// `folderKey`, for a protected item) and a fresh salt from `random`.
    public static func seal(
        _ plaintext: [UInt8], key: SecureBytes, folderKey: SecureBytes? = nil, context: [UInt8],
        chunkSize: Int = ChunkedFormat.defaultChunkSize, using random: RandomSource = SystemRandom()
    ) throws -> [UInt8] {
        let header = ChunkedHeader(
            flags: folderKey == nil ? 0 : ChunkedFormat.flagFolderProtected, salt: random.bytes(ChunkedFormatV2.saltSize),
            chunkSize: chunkSize, totalSize: UInt64(plaintext.count))
        return try seal(plaintext, cipher: try ChunkCipher(header: header, key: key, folderKey: folderKey, context: context))
    }

    /// The whole chunked file of `plaintext` under `cipher`: its header, then each chunk.
    public static func seal(_ plaintext: [UInt8], cipher: ChunkCipher) throws -> [UInt8] {
        let header = cipher.header
        precondition(UInt64(plaintext.count) == header.totalSize, "plaintext length differs from the header's total")
        var file = header.encoded()
        file.reserveCapacity(Int(header.fileSize))
        for index in 0..<header.chunkCount {
            let start = Int(index) * header.chunkSize
            let chunk = plaintext[start..<(start + header.plaintextLength(ofChunk: index))]
            file += try chunk.withUnsafeBytes { try cipher.seal($0, index: index) }
        }
        return file
    }

    /// Opens a sealed file: a chunked file of either version (checked in §6.2's order:
    /// header, keys against the protection flag, size, then every chunk), or a version 1
    /// single-shot blob. `folderKey` must be given exactly when the file was sealed with one.
    public static func open(
        _ file: [UInt8], key: SecureBytes, folderKey: SecureBytes? = nil, context: [UInt8]
    ) throws -> [UInt8] {
        guard SealedBlob.isChunked(file) else {
            return try SealedBlob.open(file, key: key, folderKey: folderKey, context: context)
        }
        return try openChunked(file) { try ChunkCipher(header: $0, key: key, folderKey: folderKey, context: context) }
    }

    /// Opens a whole chunked file held in memory, with the cipher `makeCipher` builds
    /// for its header.
    public static func openChunked(_ file: [UInt8], makeCipher: (ChunkedHeader) throws -> ChunkCipher) throws -> [UInt8] {
        let header = try ChunkedHeader.decode(file)
        let cipher = try makeCipher(header)
        if UInt64(file.count) < header.fileSize { throw StreamError.truncated }
        if UInt64(file.count) > header.fileSize { throw StreamError.trailingData }
        var plaintext = [UInt8]()
        plaintext.reserveCapacity(Int(header.totalSize))
        for index in 0..<header.chunkCount {
            let start = Int(header.fileOffset(ofChunk: index))
            let end = start + header.plaintextLength(ofChunk: index) + header.chunkOverhead
            plaintext += try cipher.open(file[start..<end], index: index)
        }
        return plaintext
    }
}
