import Foundation
import ObscuraCrypto

/// Live Photos (issue 17; docs/FORMAT.md §3.3): a still and a movie that share Apple's
/// content identifier become one item, the still's, with the movie as its motion
/// (`companionRole` motion). Whichever half comes first is an item of its own until the
/// other arrives, in the same import or a later one, into the same folder: the still
/// then takes the movie in, and the movie's own row goes (its thumbnail with it; its
/// original and rendition stay, as the still's).
extension Vault {
    /// §6.7: what a content identifier is hashed under before it is keyed like a content
    /// hash, so that a pairing key never equals a content hash.
    static let pairKeyLabel = Array("obscura live photo v1".utf8) + [0]

    /// The keyed pairing value of Apple's content identifier `identifier` for an item in
    /// `folderId` (docs/FORMAT.md §6.7): nothing about the identifier shows without the
    /// key that opens the item.
    func pairKey(identifier: String, folderId: String?) throws -> Data {
        try contentHash(sha256: SHA256Digest.hash(Self.pairKeyLabel + Array(identifier.utf8)), folderId: folderId)
    }

    /// What an import commits: the rows as stored and as the session sees them, with the
    /// pool files each one wrote.
    struct ImportedRow {
        var stored: ItemRecord
        var plain: ItemRecord
        var written: [String]
    }

    /// What ``commitImports(_:)`` did with each new row, in order.
    enum Committed {
        /// A new item (a Live Photo when its motion came with it or was already stored).
        case item(ItemRecord)
        /// A movie that became the motion of the still shown here, already an item.
        case motion(of: ItemRecord)
    }

    /// Inserts the rows an import made, pairs Live Photos among them and with the items
    /// stored, and persists once. The pool files must already be durable. On failure the
    /// files the catalog does not name are removed and the session's catalog is what its
    /// slot holds.
    func commitImports(_ imported: [ImportedRow]) throws -> [Committed] {
        let pool = directory.pool
        // Pairing reads stored rows and writes them back: nothing else may change them
        // between (a move, a delete, a rendition's commit, another import's pairing).
        return try rowsGate.withLock {
            var plain = imported.map(\.plain)
            var taken = [Int: Taken]()            // new movies taken in, by index
            var updated = [String: ItemRecord]()  // stored stills that took a movie in (plain)
            var removed = [String: ItemRecord]()  // stored movies a new still took in
            var doomedFiles = [String]()          // thumbnails of the movies taken in
            do {
                for i in plain.indices where plain[i].pairKey != nil && taken[i] == nil && plain[i].companionId == nil {
                    let row = plain[i]
                    guard row.kind == .photo || row.kind == .video else { continue }
                    let isStill = row.kind == .photo
                    let wanted: ItemKind = isStill ? .video : .photo
                    // The other half: first among this import's new rows, then stored.
                    if let j = plain.indices.first(where: {
                        $0 != i && taken[$0] == nil && plain[$0].pairKey == row.pairKey && plain[$0].folderId == row.folderId
                            && plain[$0].companionId == nil && plain[$0].kind == wanted
                    }) {
                        let (still, movie) = isStill ? (i, j) : (j, i)
                        plain[still] = Self.paired(plain[still], motion: plain[movie])
                        taken[movie] = .byNew(still)
                        doomedFiles += try plain[movie].thumbId.map { [try pool.thumbPath($0)] } ?? []
                        continue
                    }
                    let candidates = try catalog.unpairedItems(pairKey: row.pairKey!, folderId: row.folderId)
                        .filter { updated[$0.id] == nil && removed[$0.id] == nil && $0.kind == wanted }
                    guard let other = try candidates.first.map(revealed) else { continue }
                    if isStill {
                        plain[i] = Self.paired(row, motion: other)
                        removed[other.id] = other
                        doomedFiles += try other.thumbId.map { [try pool.thumbPath($0)] } ?? []
                    } else {
                        updated[other.id] = Self.paired(other, motion: row)
                        taken[i] = .byStored(other.id)
                        doomedFiles += try row.thumbId.map { [try pool.thumbPath($0)] } ?? []
                    }
                }
                let sealed = { (row: ItemRecord) throws -> ItemRecord in
                    try self.outerKey(forFolder: row.folderId).map { try self.concealed(row, key: $0) } ?? row
                }
                let inserts = try plain.indices.filter { taken[$0] == nil }
                    .map { try plain[$0].companionId == nil ? imported[$0].stored : sealed(plain[$0]) }
                try catalog.delete(Array(removed.values))
                try catalog.insert(inserts)
                try catalog.update(try updated.values.map(sealed))
                try persist()
            } catch {
                // A persist that failed after its slot was replaced leaves the rows on
                // disk, and their files must stay: only files the catalog does not name go.
                cleanUp(created: imported.flatMap(\.written))
                throw error
            }
            // Named by no row any more. A crash before this leaves them unnamed, as a
            // delete would.
            for file in doomedFiles { try? pool.remove(file) }
            if !doomedFiles.isEmpty { try? pool.sync() }
            return plain.indices.map { i in
                switch taken[i] {
                case nil: return .item(plain[i])
                case let .byNew(still)?: return .motion(of: plain[still])
                case let .byStored(id)?: return .motion(of: updated[id]!)
                }
            }
        }
    }

    /// Which still took a new movie in.
    private enum Taken {
        /// A still of the same import, by index.
        case byNew(Int)
        /// A stored still, by id.
        case byStored(String)
    }

    /// `still` with `movie` as its motion: the movie's original, and its rendition
    /// whatever its state, become the still's; the still waits for no other half.
    static func paired(_ still: ItemRecord, motion movie: ItemRecord) -> ItemRecord {
        var row = still
        row.companionId = movie.mediaId
        row.companionRole = .motion
        row.companionName = movie.name
        row.companionMimeType = movie.mimeType
        row.companionSize = movie.size
        row.companionHash = movie.contentHash
        row.duration = movie.duration
        row.renditionId = movie.renditionId
        row.renditionState = movie.renditionState
        row.pairKey = nil
        return row
    }
}

extension ItemRecord {
    /// The item's motion as an item of its own (its original, name, type and size), for
    /// reading it and making its rendition: nil unless the item is a Live Photo.
    public var motion: ItemRecord? {
        guard companionRole == .motion, let companionId else { return nil }
        var movie = self
        movie.kind = .video
        movie.mediaId = companionId
        movie.name = companionName ?? ""
        movie.mimeType = companionMimeType ?? ""
        movie.size = companionSize ?? 0
        movie.thumbId = nil
        return movie
    }

    /// Whether the item is a Live Photo: a still with its motion.
    public var isLivePhoto: Bool { companionRole == .motion && companionId != nil }
}

extension Vault {
    /// A reader over a Live Photo's motion as a browser plays it: its rendition when one
    /// is ready, else the movie itself (one a browser plays needs none).
    ///
    /// - Throws: ``VaultError/noSuchItem(_:)`` when the item has no motion, or its motion
    ///   waits for a rendition it cannot be played without.
    public func openMotion(_ item: ItemRecord) throws -> OriginalReader {
        guard let motion = item.motion else { throw VaultError.noSuchItem(item.id) }
        if item.renditionState == .ready { return try openRendition(item) }
        guard item.renditionState == nil else { throw VaultError.noSuchItem(item.id) }
        return try openOriginal(motion)
    }

    /// A reader over a Live Photo's motion as it was imported, for downloads.
    public func openMotionOriginal(_ item: ItemRecord) throws -> OriginalReader {
        guard let motion = item.motion else { throw VaultError.noSuchItem(item.id) }
        return try openOriginal(motion)
    }
}
