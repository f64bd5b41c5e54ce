import Foundation
import ObscuraCrypto

/// The keyed content hash an item's `contentHash` holds (docs/FORMAT.md §3.3, §6.7): the
/// value duplicate detection compares, keyed so that it tells nothing about the plaintext
/// to whoever lacks the key that opens the item.
///
/// Catalogs written before it hold the plain SHA-256 (32 bytes); a keyed value is one
/// byte longer, so every row says which it holds, and converting one needs only the row:
/// the keyed hash is computed from the plain one.
package enum ContentHash {
    /// §6.7: HKDF-SHA256 info of the hash key, derived from the MEK (unprotected items) or
    /// from the folder key (items of a protected folder).
    static let keyLabel = "obscura content hash v1"
    /// §6.7: the first byte of a keyed value.
    static let keyedTag: UInt8 = 0x01
    /// §6.7: a keyed value's size: the tag and an HMAC-SHA256.
    static let keyedSize = 1 + SHA256Digest.size
    /// §3.3: a value written before keyed hashes: the plaintext's SHA-256 itself.
    static let plainSize = SHA256Digest.size

    /// §6.7: K_hash = HKDF-SHA256(salt = empty, IKM = `root`, info = label, L = 32), where
    /// `root` is the MEK or a folder key.
    package static func key(from root: SecureBytes) -> SecureBytes {
        HKDFSHA256.derive(from: root, info: keyLabel, count: AESGCM.keySize)
    }

    /// §6.7: the stored value, `01` ‖ HMAC-SHA256(K_hash, SHA-256(plaintext)).
    package static func keyed(sha256: some Collection<UInt8>, key: SecureBytes) -> Data {
        Data([keyedTag] + HMACSHA256.code(for: sha256, key: key))
    }

    /// Whether `stored` is a plain SHA-256 from before keyed hashes, still to convert.
    static func isPlain(_ stored: Data) -> Bool { stored.count == plainSize }
}
