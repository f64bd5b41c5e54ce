import Foundation
import ObscuraCatalog
import ObscuraCrypto
import ObscuraImaging
import ObscuraStore

/// The streaming intake (docs/FORMAT.md §10.6 step 4; docs/PHONE.md §W3.2): a drop's
/// content goes from its blob into the pool without being held whole, except a photo's,
/// and without holding the vault open across it.
extension Vault {
    /// Imports the content of one drop opened for this vault at the top level, as an item
    /// that never pairs (§10.6).
    ///
    /// A photo (a camera RAW included, at most ``maximumPhotoFileSize`` bytes) is
    /// decrypted into memory and imported as an upload is, in one operation. Any other
    /// file is streamed from the blob, one chunk in memory: a hash pass first, so that a
    /// file the vault holds already is never written to the pool; then the seal pass,
    /// whose hash must be the same (``VaultError/sourceChanged``); a video is then fed to
    /// ffprobe and ffmpeg from the blob, its index first (``MovieLayout``). No shared
    /// memory and no temporary plaintext file is used.
    ///
    /// No operation is held across the stream: what needs the MEK (the duplicate claim,
    /// the pool file's cipher, the thumbnail and the commit) runs in short operations, and
    /// before each chunk an empty one checks the vault is still open. So ``lock()`` waits
    /// for one chunk, one photo or one commit at most, and the import then throws
    /// ``VaultError/locked``, having removed what it wrote; the blob stays for the next
    /// intake.
    ///
    /// - Throws: ``VaultError/locked``; the blob's own errors (a chunk that fails its tag,
    ///   a short blob), which the intake reads as damage; a write that failed. A file the
    ///   vault refuses is ``UploadOutcome/failed(_:)``.
    func importDrop(_ content: DropContent, name: String, pixelLimit: Int = Imaging.defaultPixelLimit) throws -> UploadOutcome {
        let checkOpen = { try self.operation {} }
        guard content.size > 0 else { return .failed(ImportFailure("The file is empty.", detail: "empty file")) }
        let (kind, mimeType) = ContentSniffer.sniff(try content.read(0..<UInt64(ContentSniffer.prefixLength)))
        guard kind == .photo else { return try importStreamed(content, kind: kind, mimeType: mimeType, name: name, check: checkOpen) }
        guard content.size <= UInt64(Self.maximumPhotoFileSize) else { return .failed(Self.photoTooLarge(Int64(content.size))) }
        var bytes = try content.whole(check: checkOpen)
        defer { bytes.withUnsafeMutableBytes { if let base = $0.baseAddress { secureZero(base, $0.count) } } }
        return try operation {
            let batch = ImportBatch(duplicates: try duplicateIndex(into: nil), total: 1, bytes: 0, progress: nil)
            let outcome = bytes.withUnsafeBytes {
                importOne(.memory($0), name: name, folderId: nil, pixelLimit: pixelLimit, batch: batch)
            }
            return try commitUpload(outcome, pairing: false)
        }
    }

    /// A video or another file, streamed (see ``importDrop(_:name:pixelLimit:)``).
    private func importStreamed(
        _ content: DropContent, kind: ItemKind, mimeType: String, name: String, check: @escaping () throws -> Void
    ) throws -> UploadOutcome {
        let hash = try content.sha256(check: check)
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
        // Removed by the writer itself when the seal fails; by this import from then on.
        let sealedHash = try ChunkedFileWriter.write(
            to: claimed.temporary, cipher: claimed.cipher, source: content.source(check: check))
        var row = ItemRecord(
            id: UUID().uuidString.lowercased(), kind: kind, mediaId: mediaId, name: name, mimeType: mimeType,
            size: Int64(content.size), importedAt: Date().timeIntervalSince1970, favorite: false, contentHash: claimed.contentHash)
        let poster: [UInt8]?
        do {
            guard sealedHash == hash else { throw VaultError.sourceChanged }
            if kind == .video {
                let (info, frame) = try videoFacts(content, check: check)
                row.duration = info?.duration
                row.width = info?.width
                row.height = info?.height
                row.takenAt = info?.takenAt?.timeIntervalSince1970
                // Made after the import, in the background (Vault+Renditions).
                row.renditionState = info.map { Rendition.isNeeded($0) ? .pending : nil } ?? nil
                poster = frame
            } else {
                poster = nil
            }
        } catch {
            unlink(claimed.temporary)
            throw error
        }
        return try operation {
            var created = [String]()
            do {
                let data = try directory.pool.dataPath(mediaId)
                try directory.pool.publish(claimed.temporary, as: data)
                created.append(data)
                if let poster {
                    let thumbId = UUID().uuidString.lowercased()
                    created.append(try directory.pool.thumbPath(thumbId))
                    try sealThumbnail(thumbId: thumbId, jpeg: poster, folderId: nil)
                    row.thumbId = thumbId
                }
            } catch {
                unlink(claimed.temporary)
                for file in created { unlink(file) }
                throw error
            }
            return try commitUpload(.imported(row, row, created), pairing: false)
        }
    }

    /// What ffprobe says of the video in `content` and a poster frame, both fed from the
    /// blob (the index first when it comes last); nil for what the tools cannot read, as
    /// an imported video ffmpeg cannot read is stored without them.
    private func videoFacts(_ content: DropContent, check: @escaping () throws -> Void) throws -> (Video.Info?, [UInt8]?) {
        let pieces: [MovieLayout.Piece]
        do {
            pieces = try MovieLayout.streamingOrder(size: content.size) { range in
                try check()
                return try content.read(range)
            } ?? [.range(0..<content.size)]
        } catch is ImagingError {
            return (nil, nil)
        }
        let feed: ExternalTool.Feed = { write in
            for piece in pieces {
                switch piece {
                case let .bytes(bytes): try bytes.withUnsafeBytes(write)
                case let .range(range): try content.forEachPiece(in: range, check: check, write)
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
