import Foundation
import ObscuraCrypto
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
import ObscuraStore
import ObscuraCatalog
#endif

extension Vault {
    /// Writes the whole vault to an `.obscura` export at `path` (docs/FORMAT.md §7): its
    /// slot header and sealed catalog, and every media file as stored, so nothing is
    /// decrypted. The file is written under a temporary name and renamed when complete;
    /// temporaries that killed exports to the same name left behind are removed first
    /// (``ExportPartial``).
    ///
    /// - Parameters:
    ///   - password: the export password (a generated one in its canonical form).
    ///   - kdf: the export KEK's KDF and cost: PBKDF2 by default, or Argon2id (§2, §7.1).
    public func exportVault(
        to path: String, password: SecureBytes, kdf: KDFParameters = .export,
        progress: ((UInt64, UInt64) -> Void)? = nil
    ) throws {
        try operation {
            guard !FileManager.default.fileExists(atPath: path) else { throw ExportError.outputExists(path) }
            let export = try prepareExport(password: password, kdf: kdf)
            ExportPartial.removeStale(for: path)
            let temporary = ExportPartial.path(for: path)
            var lock: Int32 = -1
            defer { if lock >= 0 { close(lock) } }
            try FileIO.createDurably(temporary) { fd in
                lock = try ExportPartial.markLive(fd, path: temporary)
                // Sealing on this thread, writing on another: the write's copy into the page
                // cache is the larger cost (docs/BENCHMARKS.md, "Export and import").
                let writer = BackgroundWriter(fd: fd, path: temporary)
                let sealing = Result { try export.write(progress: progress, emit: writer.write) }
                // A write error (a full disk) is the cause of any sealing-side failure it led to.
                try writer.finish()
                try sealing.get()
            }
            let steps = directory.store.steps
            do {
                try steps.reached(.wroteExport)
                // A file made at `path` since the check above is not replaced either.
                do {
                    try FileIO.renameExclusive(temporary, path)
                } catch StorageError.io(_, EEXIST) {
                    throw ExportError.outputExists(path)
                }
                try FileIO.syncParentDirectory(of: path)
            } catch {
                unlink(temporary)
                throw error
            }
            try steps.reached(.renamedExport)
            directory.logger.debug("exported vault", metadata: ["bytes": "\(export.fileSize)"])
        }
    }

    /// ``exportVault(to:password:kdf:progress:)`` with PBKDF2 at `iterations` (tests pass
    /// small counts).
    public func exportVault(
        to path: String, password: SecureBytes, iterations: Int, progress: ((UInt64, UInt64) -> Void)? = nil
    ) throws {
        try exportVault(to: path, password: password, kdf: .pbkdf2(iterations: iterations), progress: progress)
    }

    /// ``prepareExport(password:kdf:)`` with PBKDF2 at `iterations`.
    public func prepareExport(password: SecureBytes, iterations: Int) throws -> PreparedExport {
        try prepareExport(password: password, kdf: .pbkdf2(iterations: iterations))
    }

    /// Derives the export KEK and lays out the payload of an export (docs/FORMAT.md §7),
    /// ready to be streamed by ``PreparedExport/write(progress:emit:)``: to a file, or
    /// straight into a download.
    public func prepareExport(password: SecureBytes, kdf: KDFParameters = .export) throws -> PreparedExport {
        return try operation {
            // One moment for both: a rendition recorded between them would be named by the
            // manifest and not by the carried catalog.
            let (exported, rows) = try rowsGate.withLock { (try exportedSlot(), try catalog.itemsAndFolders()) }
            let (slot, header) = exported
            let (items, folders) = rows
            var manifest = ExportManifest(
                format: ExportFormat.manifestFormat, createdAt: Date().timeIntervalSince1970,
                vault: .init(header: header),
                folders: folders.map { .init(id: $0.id, parentId: $0.parentId, name: $0.name, protected: $0.isProtected) },
                items: items.map {
                    .init(id: $0.id, kind: $0.kind.rawValue, name: $0.name, mimeType: $0.mimeType, size: $0.size,
                          takenAt: $0.takenAt, folderId: $0.folderId, mediaId: $0.mediaId, thumbId: $0.thumbId,
                          renditionId: $0.renditionId, companionId: $0.companionId)
                })
            manifest.format = ExportFormat.manifestFormat(for: manifest.items)
            let json = try manifest.encoded()

            var segments: [PayloadSource.Segment] = []
            var head = [UInt8]()
            head.appendBigEndian(UInt32(json.count))
            head += json
            head.appendBigEndian(UInt64(slot.count))
            segments += [.bytes(head), .bytes(slot)]
            let pool = directory.pool
            for item in items {
                var files = [(ExportFormat.RecordKind.original, item.mediaId, try pool.dataPath(item.mediaId))]
                if let thumb = item.thumbId { files.append((.thumbnail, thumb, try pool.thumbPath(thumb))) }
                // A rendition is a sealed file like an original, and travels as one (§7.3).
                if let rendition = item.renditionId { files.append((.original, rendition, try pool.dataPath(rendition))) }
                // So is a Live Photo's motion.
                if let companion = item.companionId { files.append((.original, companion, try pool.dataPath(companion))) }
                for (kind, id, file) in files {
                    let size = Int64(try FileIO.size(file))
                    var record = [kind.rawValue] + Self.context(id)
                    record.appendBigEndian(UInt64(size))
                    segments += [.bytes(record), .file(path: file, size: size)]
                }
            }
            segments.append(.bytes([ExportFormat.RecordKind.end.rawValue]))
            let source = PayloadSource(segments)

            let (exportHeader, cipher) = try ExportFormat.prepare(
                password: password, kdf: kdf, totalSize: source.totalSize, using: directory.random)
            return PreparedExport(header: exportHeader, cipher: cipher, source: source)
        }
    }
}

extension Vault {
    /// The version 3 slot an export carries (docs/FORMAT.md §7.3), header ‖ sealed
    /// catalog, with its header: sealed now from the paged catalog's image, under the
    /// version 3 header the catalog keeps for exports (§9.7), so that it opens with the
    /// vault's password.
    func exportedSlot() throws -> (slot: [UInt8], header: SlotHeader) {
        var (header, image) = try catalog.exportSnapshot()
        defer { image.withUnsafeMutableBytes { secureZero($0.baseAddress!, $0.count) } }
        // sqlite3_serialize writes zeros for a page it could not read: check the image
        // as an import will, so a damaged catalog fails here and not in the backup.
        let copy = try Catalog.restore(image: image)
        defer { copy.close() }
        guard let header else { throw VaultError.corrupt("the catalog has no export header") }
        // An export carries every passkey row free (§9.7): a wrap key opens this vault's
        // field in this directory, and a credential id names the owner's authenticator.
        try copy.freePasskeyRows(using: directory.random)
        var exported = try copy.image()
        defer { exported.withUnsafeMutableBytes { secureZero($0.baseAddress!, $0.count) } }
        let slot = try SlotCodec.resealCatalog(header: header, key: key, catalog: exported, using: directory.random)
        return (slot, try SlotHeader.decode(slot))
    }
}

/// An export whose key is derived and whose payload is laid out; made by
/// ``Vault/prepareExport(password:kdf:)``. Write it once.
public struct PreparedExport: @unchecked Sendable {
    // @unchecked: written once, by one thread; the payload source is not shared.
    let header: [UInt8]
    let cipher: ChunkCipher
    let source: PayloadSource

    /// The size in bytes of the `.obscura` file ``write(progress:emit:)`` produces.
    public var fileSize: UInt64 { UInt64(header.count) + cipher.header.fileSize }

    /// Seals the payload and hands the file's pieces to `emit` in order, owned, with
    /// bounded memory: the export header with the chunked header, then each sealed chunk
    /// as CryptoKit returned it. `progress` gets payload bytes done and the payload's total.
    /// Chunks that lie inside one media file are sealed straight from its mapping, so a
    /// byte is read once and copied only by the sealing (docs/FORMAT.md §7).
    public func write(progress: ((UInt64, UInt64) -> Void)? = nil, emit: (SealedBytes) throws -> Void) throws {
        let chunked = cipher.header
        let total = source.totalSize
        var done: UInt64 = 0
        try emit(SealedBytes(header + chunked.encoded()))
        for index in 0..<chunked.chunkCount {
            let length = chunked.plaintextLength(ofChunk: index)
            try emit(try cipher.sealed(try source.next(length), index: index))
            done += UInt64(length)
            progress?(done, total)
        }
    }
}
