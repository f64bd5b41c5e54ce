/// Seals and opens the chunks of one chunked file (docs/FORMAT.md §6.3, §6.4, §6.6).
///
/// Each chunk is independent, so a reader decrypts only the chunks a byte range touches
/// and a writer may seal chunks in any order. Associated data = header ‖ last-chunk mark ‖
/// context in both versions. Version 1 seals under the MEK with nonce prefix ‖
/// UInt64BE(i), and the folder layer under the folder key with prefix ‖
/// UInt64BE(chunkCount + i). Version 2 seals each layer under a key of the file's own,
/// derived from the MEK or the folder key and the header's salt, with nonce
/// `00000000` ‖ UInt64BE(i).
public struct ChunkCipher: Sendable {
    /// The file's header.
    public let header: ChunkedHeader
    private let headerBytes: [UInt8]
    /// The inner layer's key: the MEK (version 1) or the file's key derived from it (2).
    private let key: SecureBytes
    /// The folder layer's key, likewise; nil when the file is not protected.
    private let outerLayerKey: SecureBytes?
    private let context: [UInt8]

    /// - Parameters:
    ///   - key: the MEK (inner layer); a version 2 file's own key is derived from it here.
    ///   - folderKey: the folder key (FK, §6.4); required exactly when the header is folder-protected.
    ///   - context: bytes bound into every chunk's associated data (the media file id).
    public init(header: ChunkedHeader, key: SecureBytes, folderKey: SecureBytes?, context: [UInt8]) throws {
        guard header.isFolderProtected == (folderKey != nil) else {
            throw StreamError.unsupported(header.isFolderProtected ? "folder key required" : "file is not folder-protected")
        }
        self.header = header
        self.headerBytes = header.encoded()
        if header.version == ChunkedFormatV2.version {
            self.key = ChunkedFormatV2.fileKey(root: key, salt: header.salt, label: ChunkedFormatV2.innerKeyLabel)
            outerLayerKey = folderKey.map {
                ChunkedFormatV2.fileKey(root: $0, salt: header.salt, label: ChunkedFormatV2.outerKeyLabel)
            }
        } else {
            self.key = key
            outerLayerKey = folderKey
        }
        self.context = context
    }

    /// Seals chunk `index` into `output`, which must hold exactly the sealed size
    /// (plaintext length + ``ChunkedHeader/chunkOverhead``): ``sealed(_:index:)`` and one
    /// copy out of CryptoKit's buffer.
    public func seal(_ plaintext: UnsafeRawBufferPointer, index: UInt64, into output: UnsafeMutableRawBufferPointer) throws {
        precondition(output.count == plaintext.count + header.chunkOverhead, "sealed chunk size")
        try sealed(plaintext, index: index).withUnsafeBytes { output.copyMemory(from: $0) }
    }

    /// Seals chunk `index` and returns its stored bytes (ciphertext ‖ tag, one tag per
    /// layer) in CryptoKit's own buffer, without copying them: the export path.
    public func sealed(_ plaintext: UnsafeRawBufferPointer, index: UInt64) throws -> SealedBytes {
        precondition(plaintext.count == header.plaintextLength(ofChunk: index), "chunk length mismatch")
        let aad = associatedData(index)
        let inner = try AESGCM.sealDetached(plaintext, key: key, nonce: nonce(index, outer: false), authenticating: aad)
        guard let outerLayerKey else { return inner }
        return try inner.withUnsafeBytes {
            try AESGCM.sealDetached($0, key: outerLayerKey, nonce: nonce(index, outer: true), authenticating: aad)
        }
    }

    /// Seals chunk `index`; `plaintext` must be exactly that chunk's length.
    public func seal(_ plaintext: UnsafeRawBufferPointer, index: UInt64) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: plaintext.count + header.chunkOverhead)
        try out.withUnsafeMutableBytes { try seal(plaintext, index: index, into: $0) }
        return out
    }

    /// Opens chunk `index` from its stored bytes (ciphertext ‖ tag, one tag per layer).
    public func open(_ sealed: some Collection<UInt8>, index: UInt64) throws -> [UInt8] {
        let length = header.plaintextLength(ofChunk: index)
        guard sealed.count == length + header.chunkOverhead else { throw StreamError.truncated }
        let aad = associatedData(index)
        var plain = [UInt8](repeating: 0, count: length)
        do {
            var inner = Array(sealed)
            if let outerLayerKey {
                var unwrapped = [UInt8](repeating: 0, count: inner.count - AESGCM.tagSize)
                try inner.withUnsafeBytes { src in
                    try unwrapped.withUnsafeMutableBytes {
                        try AESGCM.openDetached(src, key: outerLayerKey, nonce: nonce(index, outer: true), authenticating: aad, into: $0)
                    }
                }
                inner = unwrapped
            }
            try inner.withUnsafeBytes { src in
                try plain.withUnsafeMutableBytes {
                    try AESGCM.openDetached(src, key: key, nonce: nonce(index, outer: false), authenticating: aad, into: $0)
                }
            }
        } catch {
            throw StreamError.chunkFailed(index)
        }
        return plain
    }

    /// The nonce of chunk `index` in one layer: version 1, prefix ‖ UInt64BE(index), or
    /// prefix ‖ UInt64BE(chunkCount + index) in the folder layer, both under keys shared
    /// by many files (§6.2, §6.4); version 2, the same counter nonce in both layers, whose
    /// keys are the file's own (§6.6).
    func nonce(_ index: UInt64, outer: Bool) -> [UInt8] {
        if header.version == ChunkedFormatV2.version { return ChunkedFormatV2.nonce(index) }
        var n = header.noncePrefix
        n.appendBigEndian(outer ? header.chunkCount + index : index)
        return n
    }

    /// header ‖ mark ‖ context.
    func associatedData(_ index: UInt64) -> [UInt8] {
        let mark = index == header.chunkCount - 1 ? ChunkedFormat.lastChunkMark : ChunkedFormat.middleChunkMark
        return headerBytes + [mark] + context
    }
}
