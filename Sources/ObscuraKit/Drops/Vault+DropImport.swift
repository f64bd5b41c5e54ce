import Foundation
import ObscuraCatalog
import ObscuraCrypto
import ObscuraImaging
import ObscuraStore

/// Where a drop's intake checks that the vault is still open, and so where a lock stops
/// it (tests lock there through `Vault.intakeProbe`).
package enum DropIntakePoint: Equatable, Sendable {
    /// Before decrypting chunk `n` of the blob, in the hash pass (or a photo's read).
    case hashing(UInt64)
    /// Before decrypting chunk `n`, in the seal pass.
    case sealing(UInt64)
    /// Before decrypting a chunk for ffprobe or ffmpeg.
    case feeding
    /// Between the seal (and a video's tools) and the commit.
    case committing
}

/// The streaming intake (docs/FORMAT.md §10.6 step 4; docs/PHONE.md §W3.2): a drop's
/// content goes from its blob into the pool without being held whole, except a photo's,
/// and without holding the vault open across it.
extension Vault {
    /// Imports the content of one drop opened for this vault at the top level, as an item
    /// that never pairs (§10.6).
    ///
    /// A photo (a camera RAW included, at most ``maximumPhotoFileSize`` bytes) is
    /// decrypted into secret memory where the kernel offers it, else into memory, and
    /// imported as an upload is, in one operation. Any other file is streamed from the
    /// blob, one chunk in memory: a hash pass first, so that a file the vault holds
    /// already is never written to the pool; then the seal pass, whose hash must be the
    /// same (``VaultError/sourceChanged``); a video is then fed to ffprobe and ffmpeg
    /// from the blob, its index first (``MovieLayout``). No shared memory and no
    /// temporary plaintext file is used.
    ///
    /// No operation is held across the stream: what needs the MEK (the duplicate claim,
    /// the pool file's cipher, the thumbnail and the commit) runs in short operations, and
    /// before each chunk an empty one checks the vault is still open. So ``lock()`` waits
    /// for one chunk, one photo's import, one tool's answer or one commit at most, and the
    /// import then throws ``VaultError/locked``, having removed what it wrote; the blob
    /// stays for the next intake.
    ///
    /// - Throws: ``VaultError/locked``; ``DropDamage`` for a blob that is bad in itself; a
    ///   write or a commit that failed. A file the vault refuses is
    ///   ``UploadOutcome/failed(_:)``.
    func importDrop(_ content: DropContent, name: String, pixelLimit: Int = Imaging.defaultPixelLimit) throws -> UploadOutcome {
        guard content.size > 0 else { return .failed(ImportFailure("The file is empty.", detail: "empty file")) }
        var prefix = try content.read(0..<UInt64(ContentSniffer.prefixLength))
        let (kind, mimeType) = ContentSniffer.sniff(prefix)
        DropContent.zero(&prefix)
        guard kind == .photo else { return try importStreamed(content, kind: kind, mimeType: mimeType, name: name) }
        guard content.size <= UInt64(Self.maximumPhotoFileSize) else { return .failed(Self.photoTooLarge(Int64(content.size))) }
        return try withPhoto(content) { bytes in
            try operation {
                let batch = ImportBatch(duplicates: try duplicateIndex(into: nil), total: 1, bytes: 0, progress: nil)
                let outcome = importOne(.memory(bytes), name: name, folderId: nil, pixelLimit: pixelLimit, batch: batch)
                return try commitUpload(outcome, pairing: false)
            }
        }
    }

    /// The check before each chunk: the probe's moment, then an empty operation.
    private func intakeCheck(_ point: DropIntakePoint) throws {
        let probe = stateLock.withLock { intakeProbe }
        probe?(point)
        try operation {}
    }

    /// Runs `body` over a photo's bytes: in secret memory (`memfd_secret`) where the kernel
    /// offers it and the photo fits under ``UploadBuffer/secretMemoryLimit``, else in
    /// ordinary memory, zeroed after; never in shared memory.
    private func withPhoto<R>(_ content: DropContent, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        var chunk: UInt64 = 0
        let check = { [self] in
            try intakeCheck(.hashing(chunk))
            chunk += 1
        }
        if UploadBuffer.secretMemoryAvailable, content.size <= UInt64(UploadBuffer.secretMemoryLimit),
           let buffer = try? UploadBuffer(expectedSize: Int64(content.size)), buffer.backing == .secretMemory {
            try content.forEachPiece(check: check) { try buffer.append($0) }
            // Appending within the announced size never moves it out of secret memory.
            if let result = try buffer.withContents(body) { return result }
            chunk = 0
        }
        var bytes = try content.whole(check: check)
        defer { DropContent.zero(&bytes) }
        return try bytes.withUnsafeBytes(body)
    }

    /// A video or another file, streamed (see ``importDrop(_:name:pixelLimit:)``).
    func importStreamed(_ content: DropContent, kind: ItemKind, mimeType: String, name: String) throws -> UploadOutcome {
        var hashed: UInt64 = 0
        let hash = try content.sha256 { [self] in
            try intakeCheck(.hashing(hashed))
            hashed += 1
        }
        let mediaId = UUID().uuidString.lowercased()
        let claimed = try operation { () -> (contentHash: Data, cipher: ChunkCipher, temporary: String)? in
            guard let contentHash = try duplicateIndex(into: nil).claim(sha256: hash) else { return nil }
            let header = ChunkedHeader(
                flags: 0, salt: directory.random.bytes(ChunkedFormatV2.saltSize), chunkSize: ChunkedFormat.defaultChunkSize,
                totalSize: content.size)
            let cipher = try ChunkCipher(header: header, key: key, folderKey: nil, context: Self.context(mediaId))
            return (contentHash, cipher, directory.pool.temporaryPath())
        }
        guard let claimed else { return .duplicate }
        // From here on, every way out but the commit removes the pool temporary (review
        // S1-R1): a lock may land between any two steps, including before the commit's
        // operation begins.
        var published = false
        do {
            var sealed: UInt64 = 0
            let sealedHash = try ChunkedFileWriter.write(to: claimed.temporary, cipher: claimed.cipher, source: content.source { [self] in
                try intakeCheck(.sealing(sealed))
                sealed += 1
            })
            guard sealedHash == hash else { throw VaultError.sourceChanged }
            var row = ItemRecord(
                id: UUID().uuidString.lowercased(), kind: kind, mediaId: mediaId, name: name, mimeType: mimeType,
                size: Int64(content.size), importedAt: Date().timeIntervalSince1970, favorite: false,
                contentHash: claimed.contentHash)
            var poster: [UInt8]? = nil
            if kind == .video {
                let (info, frame) = try videoFacts(content)
                row.duration = info?.duration
                row.width = info?.width
                row.height = info?.height
                row.takenAt = info?.takenAt?.timeIntervalSince1970
                // Made after the import, in the background (Vault+Renditions).
                row.renditionState = info.map { Rendition.isNeeded($0) ? .pending : nil } ?? nil
                poster = frame
            }
            try intakeCheck(.committing)
            return try operation {
                var created = [String]()
                do {
                    let data = try directory.pool.dataPath(mediaId)
                    // Listed before the rename: a step that fails after it must not leave
                    // an unnamed original behind.
                    created.append(data)
                    try directory.pool.publish(claimed.temporary, as: data)
                    published = true
                    if let poster {
                        let thumbId = UUID().uuidString.lowercased()
                        created.append(try directory.pool.thumbPath(thumbId))
                        try sealThumbnail(thumbId: thumbId, jpeg: poster, folderId: nil)
                        row.thumbId = thumbId
                    }
                } catch {
                    for file in created { unlink(file) }
                    throw error
                }
                return try commitUpload(.imported(row, row, created), pairing: false)
            }
        } catch {
            if !published { unlink(claimed.temporary) }
            throw error
        }
    }

    /// What ffprobe says of the video in `content` and a poster frame, both fed from the
    /// blob (the index first when it comes last); nil for what the tools cannot read, as
    /// an imported video ffmpeg cannot read is stored without them.
    private func videoFacts(_ content: DropContent) throws -> (Video.Info?, [UInt8]?) {
        let pieces: [MovieLayout.Piece]
        do {
            pieces = try MovieLayout.streamingOrder(size: content.size) { [self] range in
                try intakeCheck(.feeding)
                return try content.read(range)
            } ?? [.range(0..<content.size)]
        } catch is ImagingError {
            content.dropCache()
            return (nil, nil)
        }
        content.dropCache()
        defer {
            // The moved index is plaintext of the video: wiped once the tools are done.
            for case let .bytes(bytes) in pieces { DropContent.wipe(bytes) }
        }
        let feed: ExternalTool.Feed = { [self, pieces] write in
            for piece in pieces {
                switch piece {
                case let .bytes(bytes): try bytes.withUnsafeBytes(write)
                case let .range(range): try content.forEachPiece(in: range, check: { try intakeCheck(.feeding) }, write)
                }
            }
        }
        // The feed's own errors (a lock, a damaged chunk) end the import; a tool's end
        // only the facts it would have given.
        func ask<T>(_ tool: () throws -> T) throws -> T? {
            do {
                return try tool()
            } catch is ImagingError {
                return nil
            }
        }
        return (try ask { try Video.probe(feeding: feed) }, try ask { try Video.poster(feeding: feed) })
    }
}
