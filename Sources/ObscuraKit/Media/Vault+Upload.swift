import Foundation
import ObscuraCrypto
import ObscuraImaging

/// Files that arrive as bytes (the web gallery's uploads) rather than as paths.
extension Vault {
    /// What ``importUpload(fd:name:into:pixelLimit:)`` did.
    public enum UploadOutcome: Sendable, Equatable {
        /// Imported; the item as the session sees it.
        case imported(ItemRecord)
        /// The vault already holds the same content.
        case duplicate
        /// Not imported, with a message fit to show.
        case failed(String)
    }

    /// Imports one uploaded file held at `fd` (an anonymous in-memory file: see
    /// ``UploadBuffer``; its position does not matter) under the name `name`, and persists the catalog.
    ///
    /// - Throws: only when the catalog cannot be persisted (the file's pool output is
    ///   removed); a file that cannot be imported is ``UploadOutcome/failed(_:)``.
    public func importUpload(
        fd: Int32, name: String, into folder: FolderRecord? = nil, pixelLimit: Int = Imaging.defaultPixelLimit
    ) throws -> UploadOutcome {
        try enter()
        defer { leave() }
        if let folder { _ = try outerKey(forFolder: folder.id) }
        let known = try catalog.read { db in Set(try Data.fetchAll(db, sql: "SELECT contentHash FROM item")) }
        let batch = ImportBatch(known: known, total: 1, bytes: 0, progress: nil)
        // The video tools run in other processes: they reach our descriptor through /proc.
        let path = "/proc/\(getpid())/fd/\(fd)"
        let cleanName = Self.uploadName(name)
        guard lseek(fd, 0, SEEK_SET) == 0 else { throw StorageError.io(path, errno) }
        switch importOne(fd: fd, path: path, name: cleanName, folderId: folder?.id, pixelLimit: pixelLimit, batch: batch) {
        case .duplicate: return .duplicate
        case let .failed(message): return .failed(message)
        case let .imported(row, plain, written):
            do {
                // The pool's new names are durable before the catalog that names them.
                try directory.pool.sync()
                try catalog.write { try row.insert($0) }
                try persist()
            } catch {
                // As for importFiles: a failed persist leaves the session's catalog as the
                // slot holds it, and only files that catalog does not name go.
                cleanUp(created: written)
                throw error
            }
            return .imported(plain)
        }
    }

    /// A file name from a client, reduced to its last path component and printable
    /// characters, at most 255 bytes.
    static func uploadName(_ name: String) -> String {
        let last = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var cleaned = String(last.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }.map(Character.init))
        while cleaned.utf8.count > 255 { cleaned.removeFirst() }
        return cleaned.isEmpty || cleaned == "." || cleaned == ".." ? "upload" : cleaned
    }

}

/// An anonymous file in memory that holds one upload while it arrives, so that the
/// importer (and ffprobe, for videos) can read it like a file without a plaintext byte
/// reaching persistent storage (docs/SECURITY.md, web gallery, "plaintext on disk").
///
/// On Linux it is a POSIX shared-memory object (tmpfs under /dev/shm) unlinked the
/// moment it is made: no name leads to it, and it vanishes with its descriptor. Its
/// pages are zeroed by the kernel before reuse.
public final class UploadBuffer: @unchecked Sendable {
    // @unchecked: filled by one request, then read by one import, one after the other.
    /// The descriptor, open for reading and writing.
    public let fd: Int32
    /// Bytes written so far.
    public private(set) var size: Int64 = 0

    /// Makes an empty buffer.
    public init() throws {
        #if os(Linux)
        let name = "/obscura-upload-" + UUID().uuidString
        let fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StorageError.io("upload buffer", errno) }
        shm_unlink(name)
        self.fd = fd
        #else
        // No anonymous tmpfs file on this platform: uploads are refused rather than
        // written to disk in the clear.
        throw StorageError.io("upload buffer", ENOTSUP)
        #endif
    }

    deinit { close(fd) }

    /// Appends `bytes`.
    public func append(_ bytes: UnsafeRawBufferPointer) throws {
        try FileIO.writeAll(fd, bytes, path: "upload buffer")
        size += Int64(bytes.count)
    }
}
