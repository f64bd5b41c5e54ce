import Foundation
import ObscuraCatalog
import ObscuraCrypto

/// Notes (issue 19; docs/FORMAT.md §3.3, "Notes"): items of kind `note` whose original is
/// a Markdown body. A body is sealed into the pool like any original, never written in
/// plaintext; an edit seals a new original, commits the catalog that names it, and only
/// then removes the old one, so a crash at any step leaves the old note or the new one.
extension Vault {
    /// Adds a note to `folder` (nil: the top level) and commits the catalog. Its date
    /// (``ItemRecord/takenAt``, which the journal groups by) is `now`.
    ///
    /// - Parameters:
    ///   - title: the note's title; nil or blank takes the first line of `body`
    ///     (``NoteFormat/title(_:body:)``).
    ///   - body: the Markdown body, at most ``NoteFormat/maximumBodySize`` UTF-8 bytes.
    /// - Returns: the note as the session sees it.
    /// - Throws: ``NoteError/bodyTooLarge(_:)``; ``VaultError/folderLocked(_:)`` for a
    ///   locked folder.
    @discardableResult
    public func addNote(title: String?, body: String, into folder: FolderRecord? = nil, now: Date = Date()) throws -> ItemRecord {
        return try operation {
            let bytes = Array(body.utf8)
            guard bytes.count <= NoteFormat.maximumBodySize else { throw NoteError.bodyTooLarge(bytes.count) }
            let folderKey = try folderKey(forFolder: folder?.id)
            let mediaId = UUID().uuidString.lowercased()
            let created = [try directory.pool.dataPath(mediaId)]
            do {
                let sha256 = try sealBody(bytes, mediaId: mediaId, folderId: folder?.id)
                let time = now.timeIntervalSince1970
                var row = ItemRecord(
                    id: UUID().uuidString.lowercased(), kind: .note, mediaId: mediaId, thumbId: nil,
                    name: NoteFormat.title(title, body: body), mimeType: NoteFormat.mimeType, size: Int64(bytes.count),
                    takenAt: time, importedAt: time, folderId: folder?.id, favorite: false,
                    contentHash: try contentHash(sha256: sha256, folderId: folder?.id))
                row.noteText = NoteFormat.searchText(body)
                try directory.pool.sync()
                let stored = try folderKey.map { try concealed(row, key: $0) } ?? row
                try rowsGate.withLock {
                    try catalog.insert([stored])
                }
                return row
            } catch {
                cleanUp(created: created)
                throw error
            }
        }
    }

    /// The Markdown body of note `id` (an id or an unambiguous prefix), every chunk's tag
    /// verified.
    ///
    /// - Throws: ``NoteError/notANote(_:)``, ``NoteError/notText`` for a body that is not
    ///   UTF-8, ``VaultError/noSuchItem(_:)``.
    public func noteBody(_ id: String) throws -> String {
        return try operation {
            let row = try note(id)
            // Bodies are bounded when written; a row that says otherwise is not read into memory.
            guard row.size <= NoteFormat.maximumBodySize else { throw NoteError.bodyTooLarge(Int(row.size)) }
            var bytes = [UInt8]()
            bytes.reserveCapacity(Int(row.size))
            try export(row) { bytes += $0 }
            guard let text = String(validating: bytes, as: UTF8.self) else { throw NoteError.notText }
            return text
        }
    }

    /// Replaces the body of note `id`, and its title when `title` is given (blank: taken
    /// from the body's first line), and commits the catalog. The note keeps its id, date,
    /// folder and attachments.
    ///
    /// - Returns: the note as it now stands.
    /// - Throws: ``NoteError``; ``VaultError/inTrash(_:)`` for a note in the trash;
    ///   ``VaultError/ended(_:)`` for a note that has ended.
    @discardableResult
    public func editNote(_ id: String, title: String? = nil, body: String, now: Date = Date()) throws -> ItemRecord {
        return try operation {
            let bytes = Array(body.utf8)
            guard bytes.count <= NoteFormat.maximumBodySize else { throw NoteError.bodyTooLarge(bytes.count) }
            // Read, sealed and written back whole: no other write to the row may come between.
            return try rowsGate.withLock {
                var row = try note(id)
                if row.isTrashed { throw VaultError.inTrash(row.id) }
                if row.hasEnded(at: now) || row.isInLastView { throw VaultError.ended(row.id) }
                let replaced = try directory.pool.files(of: row)
                let mediaId = UUID().uuidString.lowercased()
                let created = [try directory.pool.dataPath(mediaId)]
                do {
                    let sha256 = try sealBody(bytes, mediaId: mediaId, folderId: row.folderId)
                    try directory.pool.sync()
                    row.mediaId = mediaId
                    row.size = Int64(bytes.count)
                    row.contentHash = try contentHash(sha256: sha256, folderId: row.folderId)
                    row.noteText = NoteFormat.searchText(body)
                    if let title { row.name = NoteFormat.title(title, body: body) }
                    let stored = try folderKey(forFolder: row.folderId).map { try concealed(row, key: $0) } ?? row
                    try catalog.update([stored])
                } catch {
                    cleanUp(created: created, replaced: replaced)
                    throw error
                }
                for file in replaced { try directory.pool.remove(file) }
                try directory.pool.sync()
                return row
            }
        }
    }

    /// The note `id` as the session sees it.
    func note(_ id: String) throws -> ItemRecord {
        let row = try item(id)
        guard row.kind == .note else { throw NoteError.notANote(row.id) }
        return row
    }

    /// Seals a body into the pool's original `mediaId` (a version 2 chunked file like any original:
    /// docs/FORMAT.md §6.6); returns its SHA-256.
    private func sealBody(_ bytes: [UInt8], mediaId: String, folderId: String?) throws -> [UInt8] {
        try bytes.withUnsafeBytes { raw in
            try sealOriginal(mediaId: mediaId, size: UInt64(bytes.count), folderId: folderId,
                             source: ChunkedFileWriter.source(bytes: raw))
        }
    }
}
