// Targets for the vault's own binary formats: slot files, catalog images, chunked media
// and single-shot blobs (docs/FORMAT.md §3, §6).
import Foundation
import ObscuraCatalog
import ObscuraCrypto
import ObscuraStore
@testable import ObscuraKit

/// The key the chunked and blob targets open with; fuzzed bytes never authenticate under
/// it, but every check before authentication runs on them.
let fuzzKey = SecureBytes(copying: [UInt8](repeating: 0x42, count: 32))
/// The password of the slot vectors (testdata/slot, docs/FORMAT.md §5), so that seeds
/// derived from them reach past the key unwrap.
let slotVectorPassword = SecureBytes(copying: Array("correct horse".utf8))

/// A slot file: header parse, then (for the vectors' small iteration counts) key unwrap,
/// envelope and catalog, exactly as an unlock reads it (§3.5).
let slotTarget = FuzzTarget("slot") { bytes in
    guard let header = try? SlotHeader.decode(bytes) else { return }
    // A damaged count up to 10,000,000 is legal and only slow; the fuzzer wants speed.
    guard header.iterations <= 2000 else { return }
    guard let key = try? SlotCodec.unwrapKey(header: header, password: slotVectorPassword) else { return }
    _ = try? SlotCodec.openCatalog(contents: bytes, header: header, key: key)
}

/// A catalog image: what `sqlite3_deserialize` and the schema check make of it (§3.3).
/// An imported export's catalog is written by whoever made the export.
let catalogTarget = FuzzTarget("catalog", seeds: catalogSeeds) { bytes in
    guard let catalog = try? Catalog.restore(image: bytes) else { return }
    _ = try? catalog.counts()
    _ = try? catalog.image()
}

/// An empty catalog image, and one holding a protected folder and an item in it.
func catalogSeeds() throws -> [[UInt8]] {
    let empty = try Catalog.empty()
    let full = try Catalog.empty()
    let folder = FolderRecord(id: "f", parentId: nil, name: "Trips", createdAt: 1, kdfSalt: Data([1]), kdfIterations: 1,
                              wrappedKey: Data([2]), keyVerifier: Data([3]))
    try full.changeFolders { _ in .insert(folder) }
    try full.insert([ItemRecord(id: "i", kind: .photo, mediaId: "m", thumbId: "t", name: "beach.jpg", mimeType: "image/jpeg",
                                size: 10, importedAt: 2, folderId: "f", favorite: true, contentHash: Data([4]))])
    try full.recordNoncePrefixes([[1, 2, 3, 4]])
    return [try empty.image(), try full.image()]
}

/// A chunked file's header and the sizes derived from it, then every chunk it claims,
/// within the bytes given (§6.1-6.3).
let chunkedTarget = FuzzTarget("chunked") { bytes in
    guard let header = try? ChunkedHeader.decode(bytes) else { return }
    _ = header.isFolderProtected
    guard header.fileSize == UInt64(bytes.count) else { return }
    guard let cipher = try? ChunkCipher(header: header, key: fuzzKey, folderKey: header.isFolderProtected ? fuzzKey : nil, context: [])
    else { return }
    for index in 0..<header.chunkCount {
        let start = Int(header.fileOffset(ofChunk: index))
        let end = start + header.plaintextLength(ofChunk: index) + header.chunkOverhead
        guard (try? cipher.open(bytes[start..<end], index: index)) != nil else { return }
    }
}

/// A thumbnail blob: dispatch on the magic, then one or two sealed boxes (§6.5).
let blobTarget = FuzzTarget("blob") { bytes in
    _ = try? SealedBlob.open(bytes, key: fuzzKey, context: [])
    _ = try? SealedBlob.open(bytes, key: fuzzKey, folderKey: fuzzKey, context: [])
}
