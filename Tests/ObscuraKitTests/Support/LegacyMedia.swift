import Foundation
import GRDB
import ObscuraCrypto
@testable import ObscuraCatalog
@testable import ObscuraKit

extension Vault {
    /// Adds an item as a vault written before media version 2 holds it (docs/FORMAT.md
    /// §6.1-§6.5, §3.3): its original a version 1 chunked file under the MEK with a
    /// random nonce prefix, its thumbnail a single-shot blob, each with the folder layer
    /// when `folder` is protected, and its `contentHash` the plain SHA-256. Persists.
    @discardableResult
    func addLegacyRaw(_ bytes: [UInt8], name: String, folder: FolderRecord? = nil, thumbnail: [UInt8]? = nil) throws -> ItemRecord {
        let outer = try folderKey(forFolder: folder?.id)
        let mediaId = UUID().uuidString.lowercased()
        let header = ChunkedHeader(
            flags: outer == nil ? 0 : ChunkedFormat.flagFolderProtected, noncePrefix: directory.random.bytes(4),
            chunkSize: ChunkedFormat.defaultChunkSize, totalSize: UInt64(bytes.count))
        let cipher = try ChunkCipher(header: header, key: key, folderKey: outer, context: Self.context(mediaId))
        try directory.pool.writeAtomically(try SealedFile.seal(bytes, cipher: cipher), to: try directory.pool.dataPath(mediaId))
        var row = ItemRecord(
            id: UUID().uuidString.lowercased(), kind: .file, mediaId: mediaId, thumbId: nil, name: name,
            mimeType: "application/octet-stream", size: Int64(bytes.count), importedAt: 0, folderId: folder?.id,
            favorite: false, contentHash: Data(SHA256Digest.hash(bytes)))
        if let thumbnail {
            let thumbId = UUID().uuidString.lowercased()
            let blob = try SealedBlob.seal(thumbnail, key: key, folderKey: outer, context: Self.context(thumbId))
            try directory.pool.writeAtomically(blob, to: try directory.pool.thumbPath(thumbId))
            row.thumbId = thumbId
        }
        let stored = try outer.map { try concealed(row, key: $0) } ?? row
        try catalog.database.write { try stored.insert($0) }
        return row
    }

    /// The `contentHash` column of item `id` as the catalog holds it.
    func storedContentHash(_ id: String) throws -> Data {
        try catalog.database.read { try Data.fetchOne($0, sql: "SELECT contentHash FROM item WHERE id = ?", arguments: [id])! }
    }
}
