import Foundation
import ObscuraCatalog
import ObscuraCrypto
import ObscuraImaging
import ObscuraStore

/// Files that arrive as bytes (the web gallery's uploads) rather than as paths.
extension Vault {
    /// What ``importUpload(_:name:into:pixelLimit:pairing:)`` did.
    public enum UploadOutcome: Sendable, Equatable {
        /// Imported; the item as the session sees it.
        case imported(ItemRecord)
        /// A file that joined a still already in the vault as its second original (a Live
        /// Photo's movie, a RAW taken with a JPEG); the still as the session sees it now.
        case joined(ItemRecord)
        /// The vault already holds the same content.
        case duplicate
        /// Not imported: a plain sentence to show, and the detail for a log.
        case failed(ImportFailure)
    }

    /// Imports one uploaded file held in `buffer` under the name `name`, and commits the
    /// catalog. A video held in secret memory moves to shared memory first: the video
    /// tools run in other processes, which reach it only through a path.
    ///
    /// - Parameter pairing: false for a file that did not come from the vault's owner (a
    ///   drop, FORMAT.md §10.6): it becomes an item of its own that never pairs, neither
    ///   now with a stored item nor later with one the owner imports.
    /// - Throws: only when the catalog cannot be committed (the file's pool output is
    ///   removed); a file that cannot be imported is ``UploadOutcome/failed(_:)``.
    public func importUpload(
        _ buffer: UploadBuffer, name: String, into folder: FolderRecord? = nil, pixelLimit: Int = Imaging.defaultPixelLimit,
        pairing: Bool = true
    ) throws -> UploadOutcome {
        return try operation {
            if let folder { _ = try folderKey(forFolder: folder.id) }
            let batch = ImportBatch(duplicates: try duplicateIndex(into: folder?.id), total: 1, bytes: 0, progress: nil)
            let cleanName = Self.uploadName(name)
            if buffer.withContents({ ContentSniffer.sniff(Array($0.prefix(ContentSniffer.prefixLength))).0 }) == .video {
                try buffer.moveToSharedMemory()
            }
            let outcome: FileOutcome
            if let held = buffer.withContents({ bytes in
                importOne(.memory(bytes), name: cleanName, folderId: folder?.id, pixelLimit: pixelLimit, batch: batch)
            }) {
                outcome = held
            } else {
                // The video tools get the descriptor as their standard input: /proc/PID/fd of
                // this (undumpable) process is closed to them.
                let fd = try buffer.sharedDescriptor()
                guard lseek(fd, 0, SEEK_SET) == 0 else { throw StorageError.io("upload buffer", errno) }
                outcome = importOne(.file(fd: fd, path: Video.standardInputPath), name: cleanName, folderId: folder?.id,
                                    pixelLimit: pixelLimit, batch: batch)
            }
            return try commitUpload(outcome, pairing: pairing)
        }
    }

    /// Commits one file's import outcome, inside an operation: the pool's new names made
    /// durable, then the catalog that names them.
    func commitUpload(_ outcome: FileOutcome, pairing: Bool) throws -> UploadOutcome {
        switch outcome {
        case .duplicate: return .duplicate
        case let .failed(failure): return .failed(failure)
        case .imported(var row, var plain, let written):
            if !pairing {
                // Pairing matches a name stem and capture second, or a content identifier:
                // all of which an outsider can copy to attach a file to the owner's item.
                row.pairKey = nil
                plain.pairKey = nil
            }
            do {
                // The pool's new names are durable before the catalog that names them.
                try directory.pool.sync()
            } catch {
                cleanUp(created: written)
                throw error
            }
            switch try commitImports([ImportedRow(stored: row, plain: plain, written: written)])[0] {
            case let .item(item): return .imported(item)
            case let .joined(still): return .joined(still)
            }
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
