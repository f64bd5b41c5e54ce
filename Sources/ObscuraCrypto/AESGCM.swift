import Crypto
import Foundation

/// AES-256-GCM single-shot sealing in CryptoKit's combined form: nonce ‖ ciphertext ‖ tag
/// (docs/FORMAT.md §1, "Sealed box").
public enum AESGCM {
    /// Key size in bytes (AES-256).
    public static let keySize = 32
    /// Nonce size in bytes (96 bits).
    public static let nonceSize = 12
    /// Tag size in bytes (128 bits).
    public static let tagSize = 16
    /// Bytes a combined sealed box adds to its plaintext.
    public static let overhead = nonceSize + tagSize

    /// Seals `plaintext` under `key` with a random nonce from `random`.
    /// - Returns: nonce ‖ ciphertext ‖ tag, `plaintext.count + overhead` bytes.
    public static func seal<P: DataProtocol, A: DataProtocol>(
        _ plaintext: P, key: SecureBytes, authenticating aad: A,
        using random: RandomSource = SystemRandom()
    ) throws -> [UInt8] {
        try seal(plaintext, key: key, nonce: random.bytes(nonceSize), authenticating: aad)
    }

    /// Seals `plaintext` under `key` with an explicit 12-byte `nonce`. The caller
    /// guarantees the nonce is never reused with this key (the chunked stream's
    /// counter nonces, for instance).
    public static func seal<P: DataProtocol, A: DataProtocol>(
        _ plaintext: P, key: SecureBytes, nonce: [UInt8], authenticating aad: A
    ) throws -> [UInt8] {
        guard nonce.count == nonceSize else {
            throw CryptoError.invalidLength(what: "nonce", expected: nonceSize, actual: nonce.count)
        }
        let box = try AES.GCM.seal(
            plaintext, using: try symmetricKey(key), nonce: try AES.GCM.Nonce(data: nonce),
            authenticating: aad)
        var out = [UInt8]()
        out.reserveCapacity(plaintext.count + overhead)
        out.append(contentsOf: nonce)
        out.append(contentsOf: box.ciphertext)
        out.append(contentsOf: box.tag)
        return out
    }

    /// Seals `plaintext` with an explicit nonce and returns ciphertext ‖ tag (no nonce: the
    /// chunked format derives it) in the buffer CryptoKit produced, without copying it:
    /// on the bulk path a 1 MiB copy per chunk costs as much as the sealing
    /// (docs/BENCHMARKS.md, "Export and import").
    public static func sealDetached(
        _ plaintext: UnsafeRawBufferPointer, key: SecureBytes, nonce: [UInt8], authenticating aad: [UInt8]
    ) throws -> SealedBytes {
        let box = try AES.GCM.seal(
            plaintext, using: try symmetricKey(key), nonce: try AES.GCM.Nonce(data: nonce), authenticating: aad)
        // A 12-byte nonce always has a combined form: nonce ‖ ciphertext ‖ tag.
        guard let combined = box.combined else { throw CryptoError.invalidLength(what: "nonce", expected: nonceSize, actual: nonce.count) }
        return SealedBytes(combined, from: nonceSize)
    }

    /// Opens ciphertext ‖ tag (no nonce) with an explicit nonce into `output`, which must
    /// hold `sealed.count - 16` bytes. Nothing is written unless the tag verifies.
    public static func openDetached(
        _ sealed: UnsafeRawBufferPointer, key: SecureBytes, nonce: [UInt8], authenticating aad: [UInt8],
        into output: UnsafeMutableRawBufferPointer
    ) throws {
        guard sealed.count >= tagSize else { throw CryptoError.truncated }
        precondition(output.count == sealed.count - tagSize, "openDetached: output size")
        do {
            let box = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: nonce), ciphertext: sealed[0..<(sealed.count - tagSize)],
                tag: sealed[(sealed.count - tagSize)...])
            let plain = try AES.GCM.open(box, using: try symmetricKey(key), authenticating: aad)
            plain.copyBytes(to: output)
        } catch let error as CryptoError {
            throw error
        } catch {
            throw CryptoError.authenticationFailed
        }
    }

    /// Seals a secret (a key being wrapped) without copying it out of its container.
    public static func sealSecret<A: DataProtocol>(
        _ secret: SecureBytes, key: SecureBytes, authenticating aad: A,
        using random: RandomSource = SystemRandom()
    ) throws -> [UInt8] {
        try secret.withUnsafeBytes { try seal($0, key: key, authenticating: aad, using: random) }
    }

    /// Opens a combined sealed box. Every call verifies the tag; a mismatch throws
    /// ``CryptoError/authenticationFailed`` and returns nothing.
    public static func open<A: DataProtocol>(
        _ combined: some Collection<UInt8>, key: SecureBytes, authenticating aad: A
    ) throws -> [UInt8] {
        var plaintext = try openData(combined, key: key, authenticating: aad)
        defer { plaintext.resetBytes(in: 0..<plaintext.count) }
        return [UInt8](plaintext)
    }

    /// Opens a combined sealed box whose plaintext is a secret (a wrapped key), straight
    /// into a zeroing container; the intermediate buffer is cleared.
    public static func openSecret<A: DataProtocol>(
        _ combined: some Collection<UInt8>, key: SecureBytes, authenticating aad: A
    ) throws -> SecureBytes {
        var plaintext = try openData(combined, key: key, authenticating: aad)
        defer { plaintext.withUnsafeMutableBytes { secureZero($0.baseAddress!, $0.count) } }
        return SecureBytes(copying: plaintext)
    }

    private static func openData<A: DataProtocol>(
        _ combined: some Collection<UInt8>, key: SecureBytes, authenticating aad: A
    ) throws -> Data {
        let bytes = Array(combined)
        guard bytes.count >= overhead else { throw CryptoError.truncated }
        do {
            let box = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: bytes[0..<nonceSize]),
                ciphertext: bytes[nonceSize..<(bytes.count - tagSize)],
                tag: bytes[(bytes.count - tagSize)...])
            return try AES.GCM.open(box, using: try symmetricKey(key), authenticating: aad)
        } catch let error as CryptoError {
            throw error
        } catch {
            throw CryptoError.authenticationFailed
        }
    }

    /// A CryptoKit key for one operation; SymmetricKey zeroes its own copy on release.
    static func symmetricKey(_ key: SecureBytes) throws -> SymmetricKey {
        guard key.count == keySize else {
            throw CryptoError.invalidLength(what: "key", expected: keySize, actual: key.count)
        }
        return key.withUnsafeBytes { SymmetricKey(data: $0) }
    }
}
