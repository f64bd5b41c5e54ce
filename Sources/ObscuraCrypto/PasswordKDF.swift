import Crypto
import CryptoExtras

/// PBKDF2-HMAC-SHA256 (RFC 8018), Obscura's default password KDF (docs/FORMAT.md §2,
/// "Key derivation"); ``KDFParameters`` chooses between it and ``Argon2id``.
public enum PasswordKDF {
    /// Salt size in bytes for every Obscura KDF use.
    public static let saltSize = 32
    /// Derived key size in bytes.
    public static let outputSize = 32
    /// Vault passwords (docs/FORMAT.md §2; docs/SECURITY.md, "Key hierarchy").
    public static let vaultIterations = 600_000
    /// Folder passwords.
    public static let folderIterations = 100_000
    /// Export passwords.
    public static let exportIterations = 600_000
    /// The largest count a reader accepts from a file, so that a corrupt header cannot
    /// stall an unlock for hours.
    public static let maximumIterations = 10_000_000

    /// Derives a 32-byte key from `password` and `salt` with `iterations` rounds.
    ///
    /// Small counts are allowed on purpose (tests pass them explicitly); the production
    /// defaults are the constants above.
    public static func deriveKey(
        password: SecureBytes, salt: some Collection<UInt8>, iterations: Int
    ) throws -> SecureBytes {
        guard iterations >= 1, iterations <= maximumIterations else {
            throw CryptoError.keyDerivationFailed
        }
        let saltBytes = Array(salt)
        let key = try password.withUnsafeBytes { pw in
            try KDF.Insecure.PBKDF2.deriveKey(
                from: pw, salt: saltBytes, using: .sha256,
                outputByteCount: outputSize, unsafeUncheckedRounds: iterations)
        }
        return key.withUnsafeBytes { SecureBytes(copying: $0) }
    }
}
