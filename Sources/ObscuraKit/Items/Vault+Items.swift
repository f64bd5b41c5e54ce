import Foundation
import ObscuraCatalog
import ObscuraCrypto

/// An item as a session may show it: protected metadata opened when its folder is
/// unlocked; items of locked folders are never returned.
public struct ItemView: Sendable, Equatable {
    /// The catalog row, with name, type, date and size filled in from the sealed metadata
    /// when the item is in an unlocked protected folder.
    public var record: ItemRecord
    /// The folder's path, nil at the top level.
    public var folderPath: String?
}

extension Vault {
    /// Items visible to this session, newest capture first; with `folder`, only its items.
    /// Items in the trash are left out unless `trash` is true.
    public func items(in folder: FolderRecord? = nil, trash: Bool = false) throws -> [ItemView] {
        return try operation {
            let (rows, folders) = try catalog.itemsInGalleryOrder(folderId: folder?.id)
            let byId = Dictionary(uniqueKeysWithValues: folders.map { ($0.id, $0) })
            return try rows.compactMap { row in
                if row.isTrashed && !trash { return nil }
                guard let folderId = row.folderId, let f = byId[folderId] else { return ItemView(record: row, folderPath: nil) }
                guard isOpen(f) else { return nil }
                return ItemView(record: try revealed(row), folderPath: folderPath(f, in: folders))
            }
        }
    }

    /// The item whose id is `id` or starts with it (at least 4 characters, unambiguous).
    /// Items of locked protected folders are not found.
    public func item(_ id: String) throws -> ItemRecord {
        return try operation {
            let needle = id.lowercased()
            guard needle.count >= 4, needle.allSatisfy({ $0.isHexDigit || $0 == "-" }) else { throw VaultError.noSuchItem(id) }
            let rows = try catalog.items(withIdPrefix: needle)
            let exact = rows.first { $0.id == needle }
            guard let row = exact ?? (rows.count == 1 ? rows[0] : nil) else { throw VaultError.noSuchItem(id) }
            if let folderId = row.folderId {
                guard let folder = try catalog.folder(id: folderId), isOpen(folder) else { throw VaultError.noSuchItem(id) }
            }
            return try revealed(row)
        }
    }

    /// Seals the fields a protected folder hides, and blanks them in the row.
    func concealed(_ item: ItemRecord, key folderKey: SecureBytes) throws -> ItemRecord {
        var row = item
        let meta = ProtectedMeta(name: item.name, mimeType: item.mimeType, takenAt: item.takenAt, width: item.width, height: item.height,
                                 latitude: item.latitude, longitude: item.longitude, place: item.place,
                                 companionName: item.companionName, companionMimeType: item.companionMimeType,
                                 noteText: item.noteText)
        row.protectedMeta = Data(try meta.sealed(folderKey: folderKey, itemId: item.id, using: directory.random))
        row.name = ""
        row.mimeType = ""
        row.takenAt = nil
        row.width = nil
        row.height = nil
        row.latitude = nil
        row.longitude = nil
        row.place = nil
        row.noteText = nil
        if row.companionId != nil {
            row.companionName = ""
            row.companionMimeType = ""
        }
        return row
    }

    /// Opens the sealed fields of an item in an unlocked protected folder.
    func revealed(_ item: ItemRecord) throws -> ItemRecord {
        guard let sealed = item.protectedMeta, let folderKey = try folderKey(forFolder: item.folderId) else { return item }
        let meta = try ProtectedMeta.open(sealed, folderKey: folderKey, itemId: item.id)
        var row = item
        row.name = meta.name
        row.mimeType = meta.mimeType
        row.takenAt = meta.takenAt
        row.width = meta.width
        row.height = meta.height
        row.latitude = meta.latitude
        row.longitude = meta.longitude
        row.place = meta.place
        row.noteText = meta.noteText
        if row.companionId != nil {
            row.companionName = meta.companionName
            row.companionMimeType = meta.companionMimeType
        }
        return row
    }

    /// Deletes items for good, in the trash or not: their catalog rows first (one
    /// commit), then their pool files, so a crash leaves at worst unnamed files, never a
    /// row without its media. A person's delete moves to the trash instead
    /// (``trashItems(_:now:)``).
    public func deleteItems(_ ids: [String]) throws {
        try operation {
            try deleteRows(try ids.map(item))
        }
    }

    /// ``deleteItems(_:)`` for rows already read.
    func deleteRows(_ doomed: [ItemRecord]) throws {
        let pool = directory.pool
        try rowsGate.withLock {
            // The rows as they are now: a rendition recorded since they were read is theirs.
            let current = try catalog.rows(ids: doomed.map(\.id))
            // Before any row goes: an id that cannot be a pool path refuses the whole delete.
            let files = try current.flatMap { try pool.files(of: $0) }
            try catalog.delete(current)
            previews.remove(current.map(\.id))
            for file in files { try pool.remove(file) }
        }
        try pool.sync()
    }

    /// Moves items to `folder` (nil: top level). Crossing a protection boundary
    /// re-encrypts the original and thumbnail into new pool files, and keys the content
    /// hash anew under the target's hash key (docs/FORMAT.md §6.7); the old files are
    /// removed only after the catalog names the new ones.
    public func moveItems(_ ids: [String], to folder: FolderRecord?) throws {
        try operation {
            // Rows are read, re-sealed and written back whole: no rendition may be recorded
            // in between (it would be written over, its file left unnamed).
            try rowsGate.withLock { try moveRows(ids, to: folder) }
        }
    }

    private func moveRows(_ ids: [String], to folder: FolderRecord?) throws {
        let items = try ids.map(item)
        // A trashed item is restored where it was deleted from: moving it would change that.
        if let trashed = items.first(where: \.isTrashed) { throw VaultError.inTrash(trashed.id) }
        let targetKey = try folderKey(forFolder: folder?.id)
        var replaced = [String]()
        var created = [String]()
        var updated = [ItemRecord]()
        do {
            for item in items {
                var row = try revealed(item)
                row.protectedMeta = nil
                let sourceKey = try folderKey(forFolder: item.folderId)
                if sourceKey != targetKey {
                    let (media, thumb, sha256) = try reseal(row, into: folder?.id)
                    row.contentHash = try contentHash(sha256: sha256, folderId: folder?.id)
                    created += [try directory.pool.dataPath(media)] + (try thumb.map { [try directory.pool.thumbPath($0)] } ?? [])
                    // A pair's second original (a motion, a RAW) is re-encrypted with its still.
                    let companion = try row.companion.map { other in
                        let (id, _, sha256) = try reseal(other, into: folder?.id)
                        created.append(try directory.pool.dataPath(id))
                        return (id: id, hash: try contentHash(sha256: sha256, folderId: folder?.id))
                    }
                    replaced += try directory.pool.files(of: row)
                    row.mediaId = media
                    row.thumbId = thumb
                    if let companion {
                        row.companionId = companion.id
                        row.companionHash = companion.hash
                    }
                    // Keyed under the old key, an unpaired half's value would match nothing.
                    row.pairKey = nil
                    // A rendition is made again under the new key rather than re-encrypted:
                    // it is a copy of the original, made in the background.
                    if row.renditionState != nil {
                        row.renditionId = nil
                        row.renditionState = .pending
                    }
                }
                row.folderId = folder?.id
                updated.append(try targetKey.map { try concealed(row, key: $0) } ?? row)
            }
            try catalog.update(updated)
        } catch {
            // Whichever set of files the catalog on disk does not name is the stray one.
            cleanUp(created: created, replaced: replaced)
            throw error
        }
        for file in replaced { try directory.pool.remove(file) }
        try directory.pool.sync()
    }

    /// Re-encrypts an item's files for `folderId`'s protection; returns the new ids and
    /// the original's SHA-256.
    private func reseal(_ item: ItemRecord, into folderId: String?) throws -> (String, String?, [UInt8]) {
        let reader = try originalReader(item)
        let media = UUID().uuidString.lowercased()
        var pending = [UInt8]()
        var chunk: UInt64 = 0
        let sha256 = try sealOriginal(mediaId: media, size: reader.size, folderId: folderId) { buffer in
            if pending.isEmpty && chunk < reader.header.chunkCount {
                pending = try reader.chunk(chunk)
                chunk += 1
            }
            let n = min(buffer.count, pending.count)
            pending.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            pending.removeFirst(n)
            return n
        }
        guard let jpeg = try thumbnail(item) else { return (media, nil, sha256) }
        let thumb = UUID().uuidString.lowercased()
        try sealThumbnail(thumbId: thumb, jpeg: jpeg, folderId: folderId)
        return (media, thumb, sha256)
    }

    /// One problem `verify` found.
    public struct Problem: Sendable, Equatable {
        /// The item's id.
        public var itemId: String
        /// What failed.
        public var message: String
    }

    /// The number of pool files this vault's catalog does not name. They are counted, never
    /// removed: the pool is shared, and a session sees one catalog, so every other vault's
    /// files are among them, with any an interrupted write left behind, and nothing on
    /// disk tells the two apart (docs/SECURITY.md, "What does not hold").
    public func unnamedPoolFileCount() throws -> Int {
        return try operation {
            let named = try namedFiles()
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.mediaPath)
            return names.filter { MediaPool.isPoolFileName($0) && !named.contains(directory.mediaPath + "/" + $0) }.count
        }
    }

    /// Decrypts every item this session can see, original and thumbnail, and reports
    /// what fails. Items of locked protected folders are counted, not read.
    public func verify(progress: ((Int, Int) -> Void)? = nil) throws -> (checked: Int, skipped: Int, problems: [Problem]) {
        return try operation {
            let visible = try items(trash: true)
            let total = try catalog.itemCount()
            var problems = [Problem]()
            for (n, view) in visible.enumerated() {
                let item = view.record
                do {
                    var size: UInt64 = 0
                    try export(item) { size += UInt64($0.count) }
                    if size != UInt64(item.size) { throw VaultError.corrupt("size \(size), catalog says \(item.size)") }
                } catch {
                    problems.append(Problem(itemId: item.id, message: "original: \(error)"))
                }
                do {
                    _ = try thumbnail(item)
                } catch {
                    problems.append(Problem(itemId: item.id, message: "thumbnail: \(error)"))
                }
                if let companion = item.companion {
                    do {
                        var size: UInt64 = 0
                        try export(companion) { size += UInt64($0.count) }
                        if size != UInt64(companion.size) { throw VaultError.corrupt("size \(size), catalog says \(companion.size)") }
                    } catch {
                        problems.append(Problem(itemId: item.id, message: "\(item.companionRole?.rawValue ?? "companion"): \(error)"))
                    }
                }
                if item.renditionState == .ready {
                    do {
                        // Every chunk opened: a rendition is read as an original is.
                        let reader = try openRendition(item)
                        _ = try reader.read(0..<reader.size)
                    } catch {
                        problems.append(Problem(itemId: item.id, message: "rendition: \(error)"))
                    }
                }
                progress?(n + 1, visible.count)
            }
            return (visible.count, total - visible.count, problems)
        }
    }
}
