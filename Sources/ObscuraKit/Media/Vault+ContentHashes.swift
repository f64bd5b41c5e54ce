import Foundation
import ObscuraCatalog
import ObscuraCrypto

/// Keyed content hashes (docs/FORMAT.md §6.7): which key keys an item's hash, the index
/// duplicate detection uses, and the conversion of plain hashes a catalog written before
/// them holds.
extension Vault {
    /// The hash domain of an item in folder `folderId`: a protected folder's own, or the
    /// vault's for every other item (protection is not inherited, §6.4).
    func hashDomain(ofFolder folderId: String?, protected: Set<String>) -> DuplicateIndex.Domain {
        guard let folderId, protected.contains(folderId) else { return .vault }
        return .folder(folderId)
    }

    /// The keyed content hash of a plaintext whose SHA-256 is `sha256`, for an item in
    /// `folderId` (a protected folder must be unlocked).
    func contentHash(sha256: [UInt8], folderId: String?) throws -> Data {
        let root = try folderKey(forFolder: folderId) ?? key
        return ContentHash.keyed(sha256: sha256, key: ContentHash.key(from: root))
    }

    /// Duplicate detection for files going into `folderId` (which, if protected, must be
    /// unlocked), against every item this session can open: the vault's own items and
    /// those of the unlocked protected folders. A locked folder's items are left out. Each
    /// claim is an index lookup, not a scan of the catalog.
    func duplicateIndex(into folderId: String?) throws -> DuplicateIndex {
        let protected = Set(try catalog.folders().filter(\.isProtected).map(\.id))
        let folderKeys = stateLock.withLock { self.folderKeys }
        var keys: [DuplicateIndex.Domain: SecureBytes] = [.vault: ContentHash.key(from: key)]
        for (id, folderKey) in folderKeys where protected.contains(id) { keys[.folder(id)] = ContentHash.key(from: folderKey) }
        let target = hashDomain(ofFolder: folderId, protected: protected)
        if keys[target] == nil, let folderId { throw VaultError.folderLocked(try catalog.folder(id: folderId)?.name ?? folderId) }
        let catalog = self.catalog
        return DuplicateIndex(keys: keys, target: target, protected: protected) { try catalog.items(withContentHashes: $0) }
    }

    /// Replaces the plain SHA-256 content hashes of a catalog written before keyed hashes
    /// (docs/FORMAT.md §6.7) with keyed ones, for every item the session can open: those
    /// outside protected folders, and those of protected folders unlocked now. Items of a
    /// locked folder keep theirs until ``unlockFolder(_:password:)`` converts them. One
    /// catalog write (one commit), and none when nothing is left to convert.
    ///
    /// Meant to run once the vault is unlocked. A failure changes nothing (a failed commit
    /// sets the session back to its slot) and the next call tries again, so a caller may
    /// log it and go on.
    ///
    /// - Returns: the number of items converted.
    @discardableResult
    package func convertContentHashes() throws -> Int {
        return try operation {
            let protected = Set(try catalog.folders().filter(\.isProtected).map(\.id))
            let folderKeys = stateLock.withLock { self.folderKeys }
            var keys: [DuplicateIndex.Domain: SecureBytes] = [:]
            var converted = [(id: String, hash: Data)]()
            for row in try catalog.plainContentHashes() {
                let domain = hashDomain(ofFolder: row.folderId, protected: protected)
                if keys[domain] == nil {
                    switch domain {
                    case .vault: keys[domain] = ContentHash.key(from: key)
                    case let .folder(id): keys[domain] = folderKeys[id].map(ContentHash.key(from:))
                    }
                }
                guard let hashKey = keys[domain] else { continue }
                converted.append((row.id, ContentHash.keyed(sha256: row.hash, key: hashKey)))
            }
            guard !converted.isEmpty else { return 0 }
            try catalog.setContentHashes(converted)
            directory.logger.debug("converted content hashes", metadata: ["items": "\(converted.count)"])
            return converted.count
        }
    }
}

extension Vault {
    /// Keys, under `mek`'s hash key, the plain hashes of the items outside protected
    /// folders in `catalog`: what converting a version 3 catalog to a paged one does before
    /// its commit (docs/FORMAT.md §9.7), so a converted vault needs no conversion at each
    /// unlock. Protected items wait for their folder's unlock, as in ``convertContentHashes()``.
    static func keyPlainContentHashes(in catalog: Catalog, mek: SecureBytes) throws {
        let protected = Set(try catalog.folders().filter(\.isProtected).map(\.id))
        let hashKey = ContentHash.key(from: mek)
        let converted = try catalog.plainContentHashes()
            .filter { row in row.folderId.map { !protected.contains($0) } ?? true }
            .map { (id: $0.id, hash: ContentHash.keyed(sha256: $0.hash, key: hashKey)) }
        if !converted.isEmpty { try catalog.setContentHashes(converted) }
    }
}
