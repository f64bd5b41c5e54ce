import Foundation
import ObscuraCatalog
import ObscuraCrypto
import ObscuraImaging

/// Pairs (issue 17; docs/FORMAT.md §3.3): a still and a second file taken with it become
/// one item, the still's, with the other file as its companion:
///
/// - a Live Photo: a still (HEIC, JPEG) and a movie that share Apple's content
///   identifier; the movie is the item's motion (`companionRole` motion);
/// - RAW+JPEG: a still and a camera RAW of the same name but for the extension and the
///   same capture time; the RAW is kept beside it (`companionRole` raw).
///
/// Whichever half comes first is an item of its own until the other arrives, in the same
/// import or a later one, into the same folder: the still then takes the other in, and
/// the other's own row goes (its thumbnail with it; its original, and a movie's
/// rendition, stay, as the still's).
extension Vault {
    /// §3.3: what a Live Photo's content identifier is hashed under before it is keyed
    /// like a content hash, so that a pairing value never equals a content hash.
    static let livePairLabel = Array("obscura live photo v1".utf8) + [0]
    /// §3.3: likewise for a RAW+JPEG pair's name and capture time.
    static let rawPairLabel = Array("obscura raw pair v1".utf8) + [0]

    /// The keyed pairing value of Apple's content identifier `identifier` for an item in
    /// `folderId` (docs/FORMAT.md §6.7): nothing about the identifier shows without the
    /// key that opens the item.
    func pairKey(identifier: String, folderId: String?) throws -> Data {
        try contentHash(sha256: SHA256Digest.hash(Self.livePairLabel + Array(identifier.utf8)), folderId: folderId)
    }

    /// The keyed pairing value of a still or RAW named `name`, taken at `takenAt`, for an
    /// item in `folderId` (§3.3): the name's stem (``pairStem(_:)``) and the capture time
    /// in whole seconds. Nil without a capture time: a name alone pairs too much
    /// ("scan.jpg" and "scan.dng" made a year apart).
    func rawPairKey(name: String, takenAt: Double?, folderId: String?) throws -> Data? {
        guard let takenAt, takenAt.isFinite, abs(takenAt) < 1e15 else { return nil }
        let text = Self.pairStem(name) + [0] + Array(String(Int64(takenAt.rounded(.down))).utf8)
        return try contentHash(sha256: SHA256Digest.hash(Self.rawPairLabel + text), folderId: folderId)
    }

    /// §3.3: the bytes of `name` before its last `.` (the whole name when it has none, or
    /// only a first one), with `A`-`Z` in lower case: byte by byte, so that every reader
    /// of the format gets the same stem from the same name.
    static func pairStem(_ name: String) -> [UInt8] {
        var bytes = Array(name.utf8)
        if let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot > 0 { bytes.removeSubrange(dot...) }
        return bytes.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
    }

    /// What a file can be in a pair.
    enum PairRole {
        /// The item a pair is shown as.
        case still
        /// A Live Photo's movie.
        case motion
        /// A camera RAW.
        case raw

        /// The role of `row` (as the session sees it: its type is needed), if it has one.
        init?(_ row: ItemRecord) {
            if RawImage.isRaw(row.mimeType) {
                self = .raw
            } else {
                switch row.kind {
                case .photo: self = .still
                case .video: self = .motion
                case .file, .note: return nil
                }
            }
        }

        /// Whether a file of this role pairs with one of `other`: a still with anything else.
        func pairs(with other: PairRole) -> Bool { (self == .still) != (other == .still) }
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
        /// A new item (a pair when its other half came with it or was already stored).
        case item(ItemRecord)
        /// A half (a movie, a RAW) that joined the still shown here, already an item.
        case joined(ItemRecord)
    }

    /// Inserts the rows an import made, pairs stills with their other halves among them
    /// and with the items stored, and commits once. The pool files must already be durable. On failure the
    /// files the catalog does not name are removed and the session's catalog is what its
    /// slot holds.
    func commitImports(_ imported: [ImportedRow]) throws -> [Committed] {
        let pool = directory.pool
        // Pairing reads stored rows and writes them back: nothing else may change them
        // between (a move, a delete, a rendition's commit, another import's pairing).
        return try rowsGate.withLock {
            var plain = imported.map(\.plain)
            var taken = [Int: Taken]()            // new halves taken in by a still, by index
            var updated = [String: ItemRecord]()  // stored stills that took a new half in (plain)
            var removed = [String: ItemRecord]()  // stored halves a new still took in
            var doomedFiles = [String]()          // thumbnails of the halves taken in
            do {
                for i in plain.indices where plain[i].pairKey != nil && taken[i] == nil && plain[i].companionId == nil {
                    let row = plain[i]
                    guard let role = PairRole(row) else { continue }
                    // The other half: first among this import's new rows, then stored.
                    if let j = plain.indices.first(where: {
                        $0 != i && taken[$0] == nil && plain[$0].pairKey == row.pairKey && plain[$0].folderId == row.folderId
                            && plain[$0].companionId == nil && PairRole(plain[$0]).map(role.pairs) == true
                    }) {
                        let (still, other) = role == .still ? (i, j) : (j, i)
                        plain[still] = Self.paired(plain[still], with: plain[other])
                        taken[other] = .byNew(still)
                        doomedFiles += try plain[other].thumbId.map { [try pool.thumbPath($0)] } ?? []
                        continue
                    }
                    let candidates = try catalog.unpairedItems(pairKey: row.pairKey!, folderId: row.folderId)
                        .filter { updated[$0.id] == nil && removed[$0.id] == nil }
                    guard let other = try candidates.lazy.map(revealed).first(where: { PairRole($0).map(role.pairs) == true })
                    else { continue }
                    if role == .still {
                        plain[i] = Self.paired(row, with: other)
                        removed[other.id] = other
                        doomedFiles += try other.thumbId.map { [try pool.thumbPath($0)] } ?? []
                    } else {
                        updated[other.id] = Self.paired(other, with: row)
                        taken[i] = .byStored(other.id)
                        doomedFiles += try row.thumbId.map { [try pool.thumbPath($0)] } ?? []
                    }
                }
                let sealed = { (row: ItemRecord) throws -> ItemRecord in
                    try self.folderKey(forFolder: row.folderId).map { try self.concealed(row, key: $0) } ?? row
                }
                let inserts = try plain.indices.filter { taken[$0] == nil }
                    .map { try plain[$0].companionId == nil ? imported[$0].stored : sealed(plain[$0]) }
                // One commit for all of it: a crash between a taken half's delete and the
                // still's insert would lose the half.
                try catalog.recordImports(deleting: Array(removed.values), inserting: inserts,
                                          pairing: try updated.values.map(sealed))
            } catch {
                // A commit that failed after its slot was replaced leaves the rows on
                // disk, and their files must stay: only files the catalog does not name go.
                cleanUp(created: imported.flatMap(\.written))
                throw error
            }
            // The thumbnails of the halves taken in, named by no row any more. A crash
            // before this leaves them unnamed, as a delete would.
            for file in doomedFiles { try? pool.remove(file) }
            if !doomedFiles.isEmpty { try? pool.sync() }
            return plain.indices.map { i in
                switch taken[i] {
                case nil: return .item(plain[i])
                case let .byNew(still)?: return .joined(plain[still])
                case let .byStored(id)?: return .joined(updated[id]!)
                }
            }
        }
    }

    /// Which still took a new half in.
    private enum Taken {
        /// A still of the same import, by index.
        case byNew(Int)
        /// A stored still, by id.
        case byStored(String)
    }

    /// `still` with `other` as its companion, and waiting for no other half. A movie's
    /// original, and its rendition whatever its state, become the still's; a RAW's
    /// original is kept beside the still's, which stays what is shown.
    static func paired(_ still: ItemRecord, with other: ItemRecord) -> ItemRecord {
        var row = still
        row.companionId = other.mediaId
        row.companionRole = PairRole(other) == .raw ? .raw : .motion
        row.companionName = other.name
        row.companionMimeType = other.mimeType
        row.companionSize = other.size
        row.companionHash = other.contentHash
        row.pairKey = nil
        if row.companionRole == .motion {
            row.duration = other.duration
            row.renditionId = other.renditionId
            row.renditionState = other.renditionState
        }
        return row
    }
}

extension ItemRecord {
    /// The item's second original as an item of its own (its original, name, type and
    /// size; the rendition columns stay the item's, which are a motion's), for reading it
    /// and making a motion's rendition; nil for an item of one file.
    public var companion: ItemRecord? {
        guard let companionRole, let companionId else { return nil }
        var other = self
        other.kind = companionRole == .motion ? .video : .photo
        other.mediaId = companionId
        other.name = companionName ?? ""
        other.mimeType = companionMimeType ?? ""
        other.size = companionSize ?? 0
        other.thumbId = nil
        return other
    }

    /// A Live Photo's motion as an item of its own (``companion``), for reading it and
    /// making its rendition; nil unless the item is a Live Photo.
    public var motion: ItemRecord? { companionRole == .motion ? companion : nil }

    /// Whether the item is a Live Photo: a still with its motion.
    public var isLivePhoto: Bool { motion != nil }
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

    /// A reader over the item's second original as it was imported, for downloads.
    public func openCompanion(_ item: ItemRecord) throws -> OriginalReader {
        guard let companion = item.companion else { throw VaultError.noSuchItem(item.id) }
        return try openOriginal(companion)
    }
}
