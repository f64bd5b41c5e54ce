import Foundation
import ObscuraCatalog
import ObscuraCrypto

/// The key of a protected folder and how its record wraps it (docs/FORMAT.md §6.4).
///
/// One place for both directions, so that the vault, the test vectors and the tests
/// wrap and unwrap folder keys with the same code.
package enum FolderProtection {
    /// §6.4: bound, with the folder id, into the wrapped key's associated data, so a
    /// wrapped key copied into another folder's record does not open.
    static let keyLabel = Array("obscura folder key v1".utf8)
    /// §2, §6.4: a folder key is 32 random bytes (an AES-256 key).
    package static let keySize = AESGCM.keySize

    /// The associated data of a folder's wrapped key: label ‖ folder id (UTF-8).
    package static func associatedData(folderId: String) -> [UInt8] {
        keyLabel + Array(folderId.utf8)
    }

    /// Makes `record` protected: wraps `key` under `kdf`(`password`) with a fresh salt
    /// and fills the key columns.
    package static func protect(
        _ record: inout FolderRecord, key: SecureBytes, password: SecureBytes, kdf: KDFParameters, using random: RandomSource
    ) throws {
        precondition(key.count == keySize, "a folder key is 32 bytes")
        let salt = random.bytes(PasswordKDF.saltSize)
        let kek = try kdf.deriveKey(password: password, salt: salt)
        record.kdfSalt = Data(salt)
        record.kdfIterations = Int(kdf.word)
        // Suite 1 is left null, as folders protected before Argon2id have it (§6.4).
        record.kdfSuite = kdf.suite == KDFParameters.pbkdf2Suite ? nil : Int(kdf.suite)
        record.wrappedKey = Data(try AESGCM.sealSecret(
            key, key: kek, authenticating: associatedData(folderId: record.id), using: random))
        record.keyVerifier = Data(SHA256Digest.hash(kek))
    }

    /// The folder key of protected `folder` (§6.4, `unlock_folder`), checked in this
    /// order: the record's key columns are all present and its KDF and cost in range
    /// (else ``VaultError/corrupt(_:)``, nothing derived); one derivation, whose verifier
    /// must match (else ``VaultError/wrongFolderPassword``); the wrapped key opens and is
    /// 32 bytes (else ``VaultError/corrupt(_:)``).
    static func unwrap(_ folder: FolderRecord, password: SecureBytes) throws -> SecureBytes {
        guard let salt = folder.kdfSalt, let iterations = folder.kdfIterations,
              let wrapped = folder.wrappedKey, let verifier = folder.keyVerifier
        else { throw VaultError.corrupt("protected folder record lacks its salt, count or verifier") }
        // A damaged suite or cost must neither stall the unlock nor reach the KDF (§2).
        guard let suite = UInt16(exactly: folder.kdfSuite ?? Int(KDFParameters.pbkdf2Suite)),
              let word = UInt32(exactly: iterations), let kdf = KDFParameters(suite: suite, word: word) else {
            throw VaultError.corrupt("folder key derivation cost out of range")
        }
        let kek = try kdf.deriveKey(password: password, salt: Array(salt))
        guard ConstantTime.equals(SHA256Digest.hash(kek), Array(verifier)) else {
            throw VaultError.wrongFolderPassword
        }
        let key: SecureBytes
        do {
            key = try AESGCM.openSecret(wrapped, key: kek, authenticating: associatedData(folderId: folder.id))
        } catch {
            throw VaultError.corrupt("folder key does not open")
        }
        // An authentic key of another length cannot key AES-256: refuse it here rather
        // than fail at the first item.
        guard key.count == keySize else { throw VaultError.corrupt("folder key is \(key.count) bytes") }
        return key
    }
}

extension ProtectedMeta {
    /// §6.4: the JSON, keys sorted so that one value always has the same bytes, sealed
    /// as one sealed box under the folder key with the item id's 16 bytes as associated
    /// data. Nil fields are left out of the JSON.
    package func sealed(folderKey: SecureBytes, itemId: String, using random: RandomSource) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try SealedBlob.seal(
            try encoder.encode(self), key: folderKey, context: Vault.context(itemId), using: random)
    }

    /// Opens an item's `protectedMeta` (§6.4); an absent key and `null` read the same.
    static func open(_ sealed: some Collection<UInt8>, folderKey: SecureBytes, itemId: String) throws -> ProtectedMeta {
        try JSONDecoder().decode(
            ProtectedMeta.self, from: Data(try SealedBlob.open(sealed, key: folderKey, context: Vault.context(itemId))))
    }
}
