import Foundation
import GRDB
import ObscuraCrypto

extension Vault {
    /// Writes the whole vault to an `.obscura` export at `path` (docs/FORMAT.md §7): its
    /// slot header and sealed catalog, and every media file as stored, so nothing is
    /// decrypted. The file is written under a temporary name and renamed when complete.
    ///
    /// - Parameters:
    ///   - password: the export password (a generated one in its canonical form).
    ///   - iterations: PBKDF2 rounds for the export KEK; the CLI uses the default.
    public func exportVault(
        to path: String, password: SecureBytes, iterations: Int = PasswordKDF.exportIterations,
        progress: ((UInt64, UInt64) -> Void)? = nil
    ) throws {
        try requireUnlocked()
        guard !FileManager.default.fileExists(atPath: path) else { throw ExportError.outputExists(path) }
        let export = try prepareExport(password: password, iterations: iterations)
        let temporary = path + ".partial-" + UUID().uuidString.prefix(8)
        try FileIO.createDurably(temporary) { fd in
            try export.write(progress: progress) { try FileIO.writeAll(fd, $0, path: temporary) }
        }
        do {
            try FileIO.rename(temporary, path)
            try FileIO.syncDirectory((path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Derives the export KEK and lays out the payload of an export (docs/FORMAT.md §7),
    /// ready to be streamed by ``PreparedExport/write(progress:sink:)``: to a file, or
    /// straight into a download.
    public func prepareExport(password: SecureBytes, iterations: Int = PasswordKDF.exportIterations) throws -> PreparedExport {
        try requireUnlocked()
        let contents = try directory.store.read(slotName)
        let slotLength = SlotFormat.headerSize + (try SlotCodec.sealedCatalogLength(contents: contents, header: header, key: key))
        let (items, folders) = try catalog.read { db in (try ItemRecord.fetchAll(db), try FolderRecord.fetchAll(db)) }
        let manifest = ExportManifest(
            format: Int(ExportFormat.version), createdAt: Date().timeIntervalSince1970,
            vault: .init(iterations: Int(header.iterations), salt: Data(header.salt), wrappedKey: Data(header.wrappedKey)),
            folders: folders.map { .init(id: $0.id, parentId: $0.parentId, name: $0.name, protected: $0.isProtected) },
            items: items.map {
                .init(id: $0.id, kind: $0.kind.rawValue, name: $0.name, mimeType: $0.mimeType, size: $0.size,
                      takenAt: $0.takenAt, folderId: $0.folderId, mediaId: $0.mediaId, thumbId: $0.thumbId)
            })
        let json = try manifest.encoded()

        var segments: [PayloadSource.Segment] = []
        var head = [UInt8]()
        head.appendBigEndian(UInt32(json.count))
        head += json
        head.appendBigEndian(UInt64(slotLength))
        segments += [.bytes(head), .bytes(Array(contents[0..<slotLength]))]
        let pool = directory.pool
        for item in items {
            var files = [(ExportFormat.RecordKind.original, item.mediaId, pool.dataPath(item.mediaId))]
            if let thumb = item.thumbId { files.append((.thumbnail, thumb, pool.thumbPath(thumb))) }
            for (kind, id, file) in files {
                let size = Int64(try FileIO.size(file))
                var record = [kind.rawValue] + Self.context(id)
                record.appendBigEndian(UInt64(size))
                segments += [.bytes(record), .file(path: file, size: size)]
            }
        }
        segments.append(.bytes([ExportFormat.RecordKind.end.rawValue]))
        let source = PayloadSource(segments)

        let salt = directory.random.bytes(PasswordKDF.saltSize)
        let kek = try PasswordKDF.deriveKey(password: ExportFormat.canonicalPassword(password), salt: salt, iterations: iterations)
        var prefix = [UInt8](repeating: 0, count: ChunkedFormat.noncePrefixSize)
        while prefix.allSatisfy({ $0 == 0 }) { prefix = directory.random.bytes(ChunkedFormat.noncePrefixSize) }
        let headerPrefix = ExportFormat.headerPrefix(iterations: iterations, salt: salt)
        let exportHeader = headerPrefix + (try ExportFormat.verificationTag(kek: kek, headerPrefix: headerPrefix)) + prefix
        let cipher = try ChunkCipher(
            header: ChunkedHeader(flags: 0, noncePrefix: prefix, chunkSize: ExportFormat.chunkSize, totalSize: source.totalSize),
            key: kek, outerKey: nil, context: exportHeader)
        return PreparedExport(header: exportHeader, cipher: cipher, source: source)
    }
}

/// An export whose key is derived and whose payload is laid out; made by
/// ``Vault/prepareExport(password:iterations:)``. Write it once.
public struct PreparedExport: @unchecked Sendable {
    // @unchecked: written once, by one thread; the payload source is not shared.
    let header: [UInt8]
    let cipher: ChunkCipher
    let source: PayloadSource

    /// The size in bytes of the `.obscura` file ``write(progress:sink:)`` produces.
    public var fileSize: UInt64 { UInt64(header.count) + cipher.header.fileSize }

    /// Seals the payload and hands the file's bytes to `sink` in order, with bounded
    /// memory. The buffer given to `sink` is reused: consume it before returning.
    /// `progress` gets payload bytes done and the payload's total.
    public func write(progress: ((UInt64, UInt64) -> Void)? = nil, sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        let total = source.totalSize
        var done: UInt64 = 0
        try ChunkedFileWriter.write(prefix: header, cipher: cipher, hashing: false, source: source.read, progress: { n in
            done += UInt64(n)
            progress?(done, total)
        }, sink: sink)
    }
}
