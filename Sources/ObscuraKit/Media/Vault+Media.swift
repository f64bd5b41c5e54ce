import Foundation
import ObscuraCatalog
import ObscuraCrypto
import ObscuraImaging
import ObscuraStore

/// Sealed originals and thumbnails in the media pool, and the catalog rows that name them.
extension Vault {
    // MARK: Writing

    /// The associated-data context of a pool file: its 16-byte UUID.
    package static func context(_ id: String) -> [UInt8] {
        guard let uuid = UUID(uuidString: id) else { return Array(id.utf8) }
        return withUnsafeBytes(of: uuid.uuid) { Array($0) }
    }

    /// Seals `size` bytes from `source` into a new original `{mediaId}.data.enc` in chunked
    /// format version 2 (docs/FORMAT.md §6.6): under a key derived from the MEK and a fresh
    /// salt and, for a protected folder, one derived from the folder key. Returns SHA-256
    /// of the plaintext, or nothing when `hashing` is false (the caller already has it).
    @discardableResult
    func sealOriginal(
        mediaId: String, size: UInt64, folderId: String?, hashing: Bool = true,
        source: @escaping ChunkedFileWriter.Source, progress: ((Int) -> Void)? = nil
    ) throws -> [UInt8] {
        let outer = try folderKey(forFolder: folderId)
        let header = ChunkedHeader(
            flags: outer == nil ? 0 : ChunkedFormat.flagFolderProtected,
            salt: directory.random.bytes(ChunkedFormatV2.saltSize), chunkSize: ChunkedFormat.defaultChunkSize,
            totalSize: size)
        let cipher = try ChunkCipher(header: header, key: key, folderKey: outer, context: Self.context(mediaId))
        let pool = directory.pool
        let temporary = pool.temporaryPath()
        let hash = try ChunkedFileWriter.write(to: temporary, cipher: cipher, hashing: hashing, source: source, progress: progress)
        try pool.publish(temporary, as: try pool.dataPath(mediaId))
        return hash
    }

    /// Seals a thumbnail into `{thumbId}.thumb.enc`, a chunked file of version 2 like an
    /// original (docs/FORMAT.md §6.5).
    func sealThumbnail(thumbId: String, jpeg: [UInt8], folderId: String?) throws {
        let sealed = try SealedFile.seal(
            jpeg, key: key, folderKey: try folderKey(forFolder: folderId), context: Self.context(thumbId),
            using: directory.random)
        try directory.pool.writeAtomically(sealed, to: try directory.pool.thumbPath(thumbId))
    }

    // MARK: Reading

    /// A reader over the item's original; only the chunks a read touches are decrypted.
    func originalReader(_ item: ItemRecord) throws -> ChunkedFileReader {
        try requireUnlocked()
        let outer = try folderKey(forFolder: item.folderId)
        return try ChunkedFileReader(path: try directory.pool.dataPath(item.mediaId)) { header in
            try ChunkCipher(header: header, key: key, folderKey: outer,
                            context: Self.context(item.mediaId))
        }
    }

    /// Plaintext bytes `range` of the item's original.
    public func read(_ item: ItemRecord, range: Range<UInt64>) throws -> [UInt8] {
        return try operation {
            return try originalReader(item).read(range)
        }
    }

    /// Writes the item's whole original to `sink`, one chunk at a time.
    public func export(_ item: ItemRecord, to sink: ([UInt8]) throws -> Void) throws {
        try operation {
            try originalReader(item).forEachChunk(sink)
        }
    }

    /// A viewer preview (JPEG, longest side ``Imaging/previewSize``), made on demand and
    /// kept in the session's ``PreviewCache`` (not a view-limited item's: it is shown only
    /// inside a counted view, made anew each time). Videos and other files use their thumbnail.
    public func preview(_ item: ItemRecord) throws -> [UInt8]? {
        return try operation {
            let cached = !item.isViewLimited
            if cached, let hit = previews.get(item.id) { return hit }
            guard item.kind == .photo, item.size <= Self.maximumPhotoFileSize else { return try thumbnail(item) }
            // A camera RAW shows its embedded preview; one without (thumbnailed by libvips at
            // import) takes the ordinary way.
            let preview = try (RawImage.isRaw(item.mimeType) ? rawPicture(item, maxSide: Imaging.previewSize) : nil)
                ?? withOriginal(item) { try Imaging.thumbnail($0, maxSide: Imaging.previewSize) }
            if cached { previews.put(item.id, preview) }
            return preview
        }
    }

    /// A photo at its full size as an upright JPEG, made on demand and never cached: what
    /// the viewer zooms into when the original is in a format browsers cannot show (HEIC,
    /// TIFF; a camera RAW's embedded preview at that preview's own size). nil for videos
    /// and other files. Its cost is the preview's (the whole image is decoded for either),
    /// bounded by the same pixel limit.
    public func fullImage(_ item: ItemRecord) throws -> [UInt8]? {
        return try operation {
            guard item.kind == .photo, item.size <= Self.maximumPhotoFileSize else { return nil }
            // One at a time in the process: a full decode of a large photo holds hundreds of
            // megabytes, and parallel requests would multiply that.
            return try Self.fullImageGate.withLock {
                if RawImage.isRaw(item.mimeType), let picture = try rawPicture(item, maxSide: nil) { return picture }
                return try withOriginal(item) { raw in
                    let info = try Imaging.probe(raw)
                    return try Imaging.thumbnail(raw, maxSide: max(info.width, info.height, 1))
                }
            }
        }
    }

    private static let fullImageGate = NSLock()

    /// Runs `body` over the item's whole original decrypted into memory, zeroed after,
    /// also when the decryption fails halfway.
    private func withOriginal<T>(_ item: ItemRecord, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        var original = [UInt8]()
        // The exact size: appending never moves the bytes to a new buffer left unzeroed.
        original.reserveCapacity(Int(item.size))
        defer { original.withUnsafeMutableBytes { raw in if let base = raw.baseAddress { secureZero(base, raw.count) } } }
        try export(item) { original += $0 }
        return try original.withUnsafeBytes(body)
    }

    /// The item's thumbnail (JPEG), or nil when it has none: a version 2 chunked file, or a
    /// single-shot blob written before version 2 (docs/FORMAT.md §6.5).
    public func thumbnail(_ item: ItemRecord) throws -> [UInt8]? {
        return try operation {
            guard let thumbId = item.thumbId else { return nil }
            let sealed = try FileIO.read(directory.pool.thumbPath(thumbId))
            return try SealedFile.open(
                sealed, key: key, folderKey: try folderKey(forFolder: item.folderId), context: Self.context(thumbId))
        }
    }
}

/// A reader over one item's original for serving byte ranges: only the chunks a read
/// touches are decrypted, and each is authenticated first. Use it from one thread at a
/// time (it reuses one buffer).
public final class OriginalReader: @unchecked Sendable {
    // @unchecked: one user at a time, as documented; nothing is shared between readers.
    private let reader: ChunkedFileReader

    init(_ reader: ChunkedFileReader) { self.reader = reader }

    /// The original's size in bytes.
    public var size: UInt64 { reader.size }

    /// Plaintext bytes `range`, clamped to the original.
    public func read(_ range: Range<UInt64>) throws -> [UInt8] { try reader.read(range) }
}

extension Vault {
    /// Opens the item's original for range reads.
    public func openOriginal(_ item: ItemRecord) throws -> OriginalReader {
        OriginalReader(try originalReader(item))
    }
}
