import Crypto
import Foundation

/// SHA-256, for checksums and key verifiers.
public enum SHA256Digest {
    /// Digest size in bytes.
    public static let size = 32

    /// Returns SHA-256 of `bytes`.
    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: Array(bytes))
        return Array(hasher.finalize())
    }

    /// Returns SHA-256 of the bytes at `bytes`, read in place (no copy of a plaintext
    /// is made on the heap).
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bufferPointer: bytes)
        return Array(hasher.finalize())
    }

    /// Returns SHA-256 of a secret's bytes.
    public static func hash(_ secret: SecureBytes) -> [UInt8] {
        secret.withUnsafeBytes { Array(SHA256.hash(data: $0)) }
    }
}

/// HKDF-SHA256 (RFC 5869), used to derive sub-keys from high-entropy secrets.
public enum HKDFSHA256 {
    /// Derives `count` bytes from `secret` with the domain-separation `info` label.
    public static func derive(from secret: SecureBytes, info: String, count: Int = 32) -> SecureBytes {
        let ikm = secret.withUnsafeBytes { SymmetricKey(data: $0) }
        let key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: ikm, info: Array(info.utf8), outputByteCount: count)
        return key.withUnsafeBytes { SecureBytes(copying: $0) }
    }

    /// Derives `count` bytes from `secret` with an explicit extract `salt` and a binary
    /// `info` (labels that carry identifiers, such as a slot id).
    public static func derive(from secret: SecureBytes, salt: [UInt8], info: [UInt8], count: Int = 32) -> SecureBytes {
        let ikm = secret.withUnsafeBytes { SymmetricKey(data: $0) }
        let key = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt, info: info, outputByteCount: count)
        return key.withUnsafeBytes { SecureBytes(copying: $0) }
    }
}

/// HMAC-SHA256 (RFC 2104), for keyed content hashes.
public enum HMACSHA256 {
    /// The 32-byte HMAC-SHA256 of `message` under `key`.
    public static func code(for message: some Collection<UInt8>, key: SecureBytes) -> [UInt8] {
        let symmetric = key.withUnsafeBytes { SymmetricKey(data: $0) }
        return Array(HMAC<SHA256>.authenticationCode(for: Array(message), using: symmetric))
    }

    /// The 32-byte HMAC-SHA256 of `message` under `key`, in zeroing memory: for a code
    /// that is itself a key (HKDF's PRK and output, as in HPKE's key schedule).
    public static func secureCode(for message: some DataProtocol, key: SecureBytes) -> SecureBytes {
        let symmetric = key.withUnsafeBytes { SymmetricKey(data: $0) }
        let code = HMAC<SHA256>.authenticationCode(for: message, using: symmetric)
        return code.withUnsafeBytes { SecureBytes(copying: $0) }
    }
}
