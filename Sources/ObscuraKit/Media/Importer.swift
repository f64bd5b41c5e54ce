import Dispatch
import Foundation
import ObscuraCatalog
import ObscuraCrypto
import ObscuraImaging
import ObscuraStore

/// What an import did, file by file.
public struct ImportReport: Sendable {
    /// A file that was not imported, and why.
    public struct Failure: Sendable, Equatable {
        /// The source path.
        public var path: String
        /// A message fit to show.
        public var message: String
    }
    /// Items added, as the session sees them.
    public var imported: [ItemRecord] = []
    /// Source paths skipped because the vault already holds the same content.
    public var duplicates: [String] = []
    /// A file that joined a still as its second original.
    public struct Joined: Sendable, Equatable {
        /// The source path.
        public var path: String
        /// What it is to the still: a Live Photo's motion, or the RAW taken with it.
        public var role: CompanionRole
        /// The still's name.
        public var still: String
    }
    /// Files that joined a still as its second original (a Live Photo's movie, a RAW
    /// taken with a JPEG): a still of this import (in ``imported``) or one already in the
    /// vault.
    public var joined: [Joined] = []
    /// Files that failed; the rest of the batch went on.
    public var failures: [Failure] = []
    /// Files added: the new items' and those that joined a still.
    public var filesAdded: Int { imported.count + joined.count }
    /// Plaintext bytes added, the files that joined a still included.
    public var bytes: Int64 = 0
}

/// Progress of an import, for a progress bar.
public struct ImportProgress: Sendable {
    /// Files finished (imported, skipped or failed).
    public var filesDone: Int
    /// Files in the batch.
    public var filesTotal: Int
    /// Bytes sealed so far.
    public var bytesDone: Int64
    /// Bytes in the batch.
    public var bytesTotal: Int64
}

extension Vault {
    /// The largest photo read into memory whole for thumbnailing; larger images are
    /// refused as too large rather than risking memory exhaustion.
    public static let maximumPhotoFileSize = 256 << 20

    /// Imports files and directories (recursively, hidden entries skipped) into `folder`,
    /// in parallel across cores, with one catalog commit for the whole batch.
    ///
    /// Each file is hashed, checked for duplicates against the items this session can open
    /// (a locked folder's are not compared, docs/FORMAT.md §6.7), probed and
    /// thumbnailed (photos with libvips, videos with ffmpeg), sealed into the pool and
    /// recorded. A file that fails is reported and its partial output removed; the others
    /// go on. If the final commit fails, every file this batch wrote is removed (unless
    /// the failure came after the catalog naming them was already on disk) and the
    /// session's catalog is what its slot holds.
    public func importFiles(
        _ paths: [String], into folder: FolderRecord? = nil, pixelLimit: Int = Imaging.defaultPixelLimit,
        progress: ((ImportProgress) -> Void)? = nil
    ) throws -> ImportReport {
        return try operation {
            if let folder { _ = try folderKey(forFolder: folder.id) }
            var report = ImportReport()
            var files = [(path: String, size: Int64)]()
            for path in paths { Self.expand(path, into: &files, failures: &report.failures) }

            let batch = ImportBatch(duplicates: try duplicateIndex(into: folder?.id), total: files.count,
                                    bytes: files.reduce(0) { $0 + $1.size }, progress: progress)
            let results = ConcurrentResults<FileOutcome>(count: files.count)
            let sources = files.map(\.path)
            let folderId = folder?.id
            DispatchQueue.concurrentPerform(iterations: sources.count) { i in
                results.set(i, .success(importOne(sources[i], folderId: folderId, pixelLimit: pixelLimit, batch: batch)))
                batch.fileDone()
            }

            var rows = [ImportedRow]()
            var importedPaths = [String]()
            for (file, outcome) in zip(files, try results.values()) {
                switch outcome {
                case let .imported(row, plain, paths):
                    rows.append(ImportedRow(stored: row, plain: plain, written: paths))
                    importedPaths.append(file.path)
                case .duplicate: report.duplicates.append(file.path)
                case let .failed(failure): report.failures.append(.init(path: file.path, message: failure.detail))
                }
            }
            directory.logger.debug("import batch sealed", metadata: [
                "files": "\(files.count)", "imported": "\(rows.count)", "failed": "\(report.failures.count)"])
            guard !rows.isEmpty else { return report }
            // The pool's new names are made durable before the catalog that names them.
            do {
                try directory.pool.sync()
            } catch {
                cleanUp(created: rows.flatMap(\.written))
                throw error
            }
            report.bytes = rows.reduce(0) { $0 + $1.plain.size }
            for (source, committed) in zip(importedPaths, try commitImports(rows)) {
                switch committed {
                case let .item(row): report.imported.append(row)
                case let .joined(still):
                    report.joined.append(.init(path: source, role: still.companionRole ?? .motion, still: still.name))
                }
            }
            return report
        }
    }

    enum FileOutcome {
        case imported(ItemRecord, ItemRecord, [String])
        case duplicate
        case failed(ImportFailure)
    }

    /// Imports one file; never throws, so that one bad file cannot stop the batch.
    private func importOne(_ path: String, folderId: String?, pixelLimit: Int, batch: ImportBatch) -> FileOutcome {
        let fd: Int32
        do {
            fd = try FileIO.openForReading(path)
        } catch {
            return .failed(ImportFailure(error))
        }
        defer { close(fd) }
        return importOne(.file(fd: fd, path: path), name: (path as NSString).lastPathComponent, folderId: folderId,
                         pixelLimit: pixelLimit, batch: batch)
    }

    /// Where one file's plaintext is read from.
    enum ImportInput {
        /// An open descriptor, read from its start; `path` is where the video tools can
        /// open the same file (``Video/standardInputPath``: they get `fd` as their
        /// standard input).
        case file(fd: Int32, path: String)
        /// Bytes in memory (an upload held in secret memory): photos and plain files
        /// only, since the video tools run in other processes and need a path.
        case memory(UnsafeRawBufferPointer)
    }

    /// Imports one file from `input`, named `name`. Never throws.
    func importOne(
        _ input: ImportInput, name: String, folderId: String?, pixelLimit: Int, batch: ImportBatch
    ) -> FileOutcome {
        var created = [String]()
        do {
            let size: Int64
            let prefix: [UInt8]
            switch input {
            case let .file(fd, path):
                var st = stat()
                guard fstat(fd, &st) == 0 else { throw StorageError.io(path, errno) }
                size = Int64(st.st_size)
                // Everything is read through the one descriptor: the path is opened once.
                prefix = try FileIO.read(fd: fd, limit: ContentSniffer.prefixLength, path: path)
            case let .memory(bytes):
                size = Int64(bytes.count)
                prefix = Array(bytes.prefix(ContentSniffer.prefixLength))
            }
            guard size > 0 else { return .failed(ImportFailure("The file is empty.", detail: "empty file")) }
            let (kind, mimeType) = ContentSniffer.sniff(prefix)
            let isRaw = RawImage.isRaw(mimeType)

            // Photos from a file are read once into memory; other files, camera RAWs
            // included (exiftool reads them from the descriptor), are streamed twice (hash,
            // seal). Bytes already in memory are used where they are.
            var photo: [UInt8]? = nil
            let hash: [UInt8]
            if kind == .photo && size > Self.maximumPhotoFileSize { return .failed(Self.photoTooLarge(size)) }
            switch input {
            case let .file(fd, path) where kind == .photo && !isRaw:
                let bytes = try FileIO.read(fd: fd, limit: Int.max, path: path)
                hash = SHA256Digest.hash(bytes)
                photo = bytes
            case let .file(fd, path):
                hash = try Self.hashFile(fd: fd, path: path)
            case let .memory(bytes):
                hash = SHA256Digest.hash(bytes)
            }
            // Keyed under the target folder's hash key (docs/FORMAT.md §6.7).
            guard let contentHash = try batch.claim(sha256: hash) else { return .duplicate }
            // The whole plaintext, when it is in memory.
            func inMemory<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R? {
                if let photo { return try photo.withUnsafeBytes(body) }
                if case let .memory(bytes) = input { return try body(bytes) }
                return nil
            }

            let mediaId = UUID().uuidString.lowercased()
            var row = ItemRecord(
                id: UUID().uuidString.lowercased(), kind: kind, mediaId: mediaId, thumbId: nil,
                name: name, mimeType: mimeType, size: size,
                importedAt: Date().timeIntervalSince1970, folderId: folderId, favorite: false, contentHash: contentHash)
            var thumbnail: [UInt8]? = nil
            switch (kind, input) {
            case (.photo, _) where isRaw:
                let info = try Self.inspectRaw(input, pixelLimit: pixelLimit)
                row.width = info?.width
                row.height = info?.height
                row.orientation = info?.orientation
                row.takenAt = info?.takenAt?.timeIntervalSince1970
                row.locate(latitude: info?.latitude, longitude: info?.longitude)
                row.pairKey = try rawPairKey(name: name, takenAt: row.takenAt, folderId: folderId)
                thumbnail = try info.flatMap { try RawImage.picture($0, maxSide: Imaging.thumbnailSize, pixelLimit: pixelLimit) }
                if thumbnail == nil, info?.firstImageIsPicture == true {
                    // No preview, but libvips may read the first image (some DNGs): the
                    // whole file in memory, as for any photo.
                    thumbnail = try? Self.withWholeFile(input) {
                        try Imaging.thumbnail($0, maxSide: Imaging.thumbnailSize, pixelLimit: pixelLimit)
                    }
                }
                if thumbnail == nil {
                    // Nothing shows it as a picture: kept whole, as a file, under its RAW type.
                    row.kind = .file
                    directory.logger.debug("camera RAW without a usable preview stored as a file")
                }
            case (.photo, _):
                try inMemory { raw in
                    let info = try Imaging.probe(raw, pixelLimit: pixelLimit, readingContentIdentifier: true)
                    row.width = info.width
                    row.height = info.height
                    row.orientation = info.orientation
                    row.takenAt = info.takenAt?.timeIntervalSince1970
                    row.locate(latitude: info.latitude, longitude: info.longitude)
                    // A Live Photo's still pairs with its movie; any other with a RAW.
                    row.pairKey = try info.contentIdentifier.map { try pairKey(identifier: $0, folderId: folderId) }
                        ?? rawPairKey(name: name, takenAt: row.takenAt, folderId: folderId)
                    thumbnail = try Imaging.thumbnail(raw, maxSide: Imaging.thumbnailSize, pixelLimit: pixelLimit)
                }
            case let (.video, .file(fd, path)):
                // A video ffmpeg cannot read is still stored; it just gets the generic icon.
                let toolInput = path == Video.standardInputPath ? fd : nil
                if let info = try? Video.probe(path: path, standardInput: toolInput) {
                    row.duration = info.duration
                    row.width = info.width
                    row.height = info.height
                    row.takenAt = info.takenAt?.timeIntervalSince1970
                    // Made after the import, in the background (Vault+Renditions).
                    row.renditionState = Rendition.isNeeded(info) ? .pending : nil
                    row.pairKey = try info.contentIdentifier.map { try pairKey(identifier: $0, folderId: folderId) }
                }
                thumbnail = try? Video.poster(path: path, standardInput: toolInput)
            case (.video, .memory), (.file, _), (.note, _):
                break
            }

            created.append(try directory.pool.dataPath(mediaId))
            let sealed = try inMemory { raw in
                // Hashed already, from the same bytes in memory.
                try sealOriginal(mediaId: mediaId, size: UInt64(size), folderId: folderId, hashing: false,
                                 source: ChunkedFileWriter.source(bytes: raw), progress: batch.sealed)
            }
            if sealed == nil, case let .file(fd, path) = input {
                guard lseek(fd, 0, SEEK_SET) == 0 else { throw StorageError.io(path, errno) }
                let sealedHash = try sealOriginal(mediaId: mediaId, size: UInt64(size), folderId: folderId,
                                                  source: ChunkedFileWriter.source(fd: fd, path: path), progress: batch.sealed)
                guard sealedHash == hash else { throw VaultError.sourceChanged }
            }
            if let thumbnail {
                let thumbId = UUID().uuidString.lowercased()
                created.append(try directory.pool.thumbPath(thumbId))
                try sealThumbnail(thumbId: thumbId, jpeg: thumbnail, folderId: folderId)
                row.thumbId = thumbId
            }
            let stored = try folderKey(forFolder: folderId).map { try concealed(row, key: $0) } ?? row
            return .imported(stored, row, created)
        } catch {
            for file in created { unlink(file) }
            return .failed(ImportFailure(error))
        }
    }

    /// The refusal of a photo over ``maximumPhotoFileSize`` bytes.
    static func photoTooLarge(_ size: Int64) -> ImportFailure {
        ImportFailure("The image file is too large to add.",
                      detail: "image file too large (\(size) bytes; limit \(maximumPhotoFileSize))")
    }

    private static func hashFile(fd: Int32, path: String) throws -> [UInt8] {
        var hasher = SHA256Stream()
        var buffer = [UInt8](repeating: 0, count: ChunkedFormat.defaultChunkSize)
        while true {
            let n = try buffer.withUnsafeMutableBytes { raw -> Int in
                let n = try FileIO.readSome(fd, into: raw, path: path)
                hasher.update(UnsafeRawBufferPointer(rebasing: raw[0..<n]))
                return n
            }
            if n == 0 { return hasher.finalize() }
        }
    }

    /// Adds `path`, or the regular files under it, to `files`.
    private static func expand(_ path: String, into files: inout [(path: String, size: Int64)], failures: inout [ImportReport.Failure]) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            failures.append(.init(path: path, message: "no such file or directory"))
            return
        }
        if !isDirectory.boolValue {
            files.append((path, (try? Int64(FileIO.size(path))) ?? 0))
            return
        }
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: path) else {
            failures.append(.init(path: path, message: "cannot read directory: permission denied"))
            return
        }
        for entry in entries.sorted() where !entry.hasPrefix(".") {
            expand(path + "/" + entry, into: &files, failures: &failures)
        }
    }
}

/// Shared state of one import batch: duplicate claims and progress.
final class ImportBatch: @unchecked Sendable {
    // @unchecked: every field is guarded by `lock`.
    private let lock = NSLock()
    private let duplicates: DuplicateIndex
    private var state: ImportProgress
    private let progress: ((ImportProgress) -> Void)?

    init(duplicates: DuplicateIndex, total: Int, bytes: Int64, progress: ((ImportProgress) -> Void)?) {
        self.duplicates = duplicates
        state = ImportProgress(filesDone: 0, filesTotal: total, bytesDone: 0, bytesTotal: bytes)
        self.progress = progress
    }

    /// Claims a file of SHA-256 `sha256` for this batch: nil when an item the session can
    /// open, or a file of the batch, has the same content; else its keyed content hash.
    func claim(sha256: [UInt8]) throws -> Data? { try lock.withLock { try duplicates.claim(sha256: sha256) } }

    func sealed(_ bytes: Int) { report { $0.bytesDone += Int64(bytes) } }

    func fileDone() { report { $0.filesDone += 1 } }

    private func report(_ change: (inout ImportProgress) -> Void) {
        lock.withLock {
            change(&state)
            progress?(state)
        }
    }
}
