import Foundation
import ObscuraCrypto

/// The keyed content hashes a session can match a new file against (docs/FORMAT.md
/// §6.7), one set per hash key: the vault's (items outside protected folders) and each
/// unlocked protected folder's. Items of a locked folder are not in it, so an import never
/// tells whether a locked folder holds a file.
///
/// Not thread-safe: ``ImportBatch`` serialises its claims.
final class DuplicateIndex {
    /// Whose hash key keys an item's hash: the vault's, or one protected folder's.
    enum Domain: Hashable {
        /// Items outside protected folders: K_hash from the MEK.
        case vault
        /// Items of the protected folder with this id: K_hash from its folder key.
        case folder(String)
    }

    private let keys: [Domain: SecureBytes]
    private let target: Domain
    private let protected: Set<String>
    /// The stored items whose `contentHash` is one of the given values, with their
    /// folders: an index lookup, so a claim costs the same in a vault of any size.
    private let lookup: ([Data]) throws -> [(folderId: String?, hash: Data)]
    /// Values claimed by files of this batch.
    private var claimed: Set<Data> = []

    /// - Parameters:
    ///   - keys: the hash key of every domain the session can open.
    ///   - target: the domain new files go to; its key must be among `keys`.
    ///   - protected: the ids of the protected folders (each its own domain).
    ///   - lookup: finds stored items by `contentHash` value.
    init(
        keys: [Domain: SecureBytes], target: Domain, protected: Set<String>,
        lookup: @escaping ([Data]) throws -> [(folderId: String?, hash: Data)]
    ) {
        precondition(keys[target] != nil, "the target domain's hash key is needed")
        self.keys = keys
        self.target = target
        self.protected = protected
        self.lookup = lookup
    }

    /// The domain of an item in folder `folderId` (protection is not inherited, §6.4).
    func domain(ofFolder folderId: String?) -> Domain {
        guard let folderId, protected.contains(folderId) else { return .vault }
        return .folder(folderId)
    }

    /// Claims a new file whose plaintext has SHA-256 `sha256`: nil when an item the
    /// session can open (or a file claimed before) has the same content; otherwise the
    /// keyed value to store, under the target domain's key, now claimed.
    ///
    /// The file's value under each key the session holds is looked up; a stored plain
    /// SHA-256 not yet converted matches too. A row counts only in its own domain, and only
    /// when the session holds that domain's key: a locked folder's items are never matched.
    func claim(sha256: [UInt8]) throws -> Data? {
        let values = keys.mapValues { ContentHash.keyed(sha256: sha256, key: $0) }
        if values.values.contains(where: claimed.contains) { return nil }
        let plain = Data(sha256)
        for row in try lookup(Array(values.values) + [plain]) {
            let domain = domain(ofFolder: row.folderId)
            guard let value = values[domain] else { continue }
            if row.hash == value || row.hash == plain { return nil }
        }
        let value = values[target]!
        claimed.insert(value)
        return value
    }
}
