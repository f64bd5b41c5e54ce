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

    private var keys: [Domain: SecureBytes]
    private var hashes: [Domain: Set<Data>]
    private let target: Domain

    /// - Parameters:
    ///   - keys: the hash key of every domain the session can open.
    ///   - target: the domain new files go to; its key must be among `keys`.
    init(keys: [Domain: SecureBytes], target: Domain) {
        precondition(keys[target] != nil, "the target domain's hash key is needed")
        self.keys = keys
        self.hashes = keys.mapValues { _ in [] }
        self.target = target
    }

    /// Records a stored `contentHash` of domain `domain`; ignored when the session cannot
    /// open that domain. A plain SHA-256 not yet converted is keyed here.
    func add(_ stored: Data, in domain: Domain) {
        guard let key = keys[domain], let value = ContentHash.normalized(stored, key: key) else { return }
        hashes[domain, default: []].insert(value)
    }

    /// Claims a new file whose plaintext has SHA-256 `sha256`: nil when an item the
    /// session can open (or a file claimed before) has the same content; otherwise the
    /// keyed value to store, under the target domain's key, now claimed.
    func claim(sha256: [UInt8]) -> Data? {
        for (domain, key) in keys where hashes[domain]?.contains(ContentHash.keyed(sha256: sha256, key: key)) == true {
            return nil
        }
        let value = ContentHash.keyed(sha256: sha256, key: keys[target]!)
        hashes[target, default: []].insert(value)
        return value
    }
}
