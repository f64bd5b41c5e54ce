import Crypto
import Foundation

/// HPKE base mode (RFC 9180) with DHKEM(X25519, HKDF-SHA256), HKDF-SHA256 and the
/// export-only AEAD, reduced to what a drop needs: one secret exported to the recipient
/// (docs/FORMAT.md §10.2).
///
/// swift-crypto has HPKE, but its sender draws the ephemeral key itself; the test vectors
/// need it drawn from a seeded ``RandomSource``, so both sides are written here from the
/// RFC's key schedule, and the tests check them against swift-crypto's `HPKE`.
public enum HPKEExporter {
    /// RFC 9180 §7.1: DHKEM(X25519, HKDF-SHA256).
    public static let kemId: UInt16 = 0x0020
    /// RFC 9180 §7.2: HKDF-SHA256.
    public static let kdfId: UInt16 = 0x0001
    /// RFC 9180 §7.3: export-only. The payload is sealed by the chunked format under the
    /// exported secret, never by HPKE's own AEAD.
    public static let aeadId: UInt16 = 0xFFFF
    /// X25519 key and encapsulation size.
    public static let keySize = 32

    /// A recipient's X25519 key pair: the private scalar (32 bytes) and its public key.
    public struct KeyPair: Sendable {
        /// The 32-byte private key (RFC 7748 scalar, as swift-crypto stores it).
        public let privateKey: SecureBytes
        /// The 32-byte public key.
        public let publicKey: [UInt8]

        /// The pair of `privateKey`; throws for a key swift-crypto refuses.
        public init(privateKey: SecureBytes) throws {
            let key = try privateKey.withUnsafeBytes { try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: $0) }
            self.privateKey = privateKey
            self.publicKey = Array(key.publicKey.rawRepresentation)
        }

        /// A new pair drawn from `random`.
        public static func generate(using random: RandomSource = SystemRandom()) throws -> KeyPair {
            try KeyPair(privateKey: SecureBytes(randomCount: keySize, using: random))
        }
    }

    /// Encapsulates to `recipient` with an ephemeral key drawn from `random` and exports
    /// `length` bytes under `context`: returns enc (the ephemeral public key) and the secret.
    public static func seal(
        to recipient: [UInt8], info: [UInt8], context: [UInt8], length: Int, using random: RandomSource = SystemRandom()
    ) throws -> (enc: [UInt8], secret: SecureBytes) {
        let ephemeral = try KeyPair.generate(using: random)
        let dh = try agree(ephemeral.privateKey, recipient)
        let secret = keySchedule(dh: dh, enc: ephemeral.publicKey, recipient: recipient, info: info, context: context, length: length)
        return (ephemeral.publicKey, secret)
    }

    /// Decapsulates `enc` with `keyPair` and exports `length` bytes under `context`.
    public static func open(
        enc: [UInt8], keyPair: KeyPair, info: [UInt8], context: [UInt8], length: Int
    ) throws -> SecureBytes {
        let dh = try agree(keyPair.privateKey, enc)
        return keySchedule(dh: dh, enc: enc, recipient: keyPair.publicKey, info: info, context: context, length: length)
    }

    /// The values on the way from `enc` to the exported secret, for the drop vectors
    /// (docs/FORMAT.md §5, `drop/`): the X25519 output, the KEM's shared secret and the
    /// export, so that a reader that disagrees learns at which step.
    package static func intermediates(
        enc: [UInt8], keyPair: KeyPair, info: [UInt8], context: [UInt8], length: Int
    ) throws -> (dh: SecureBytes, sharedSecret: SecureBytes, exported: SecureBytes) {
        let dh = try agree(keyPair.privateKey, enc)
        var shared = SecureBytes(count: 0)
        let exported = keySchedule(dh: dh, enc: enc, recipient: keyPair.publicKey, info: info, context: context, length: length) {
            shared = $0.copy()
        }
        return (dh, shared, exported)
    }

    private static func agree(_ privateKey: SecureBytes, _ publicKey: [UInt8]) throws -> SecureBytes {
        guard publicKey.count == keySize else { throw CryptoError.invalidLength(what: "X25519 public key", expected: keySize, actual: publicKey.count) }
        let key = try privateKey.withUnsafeBytes { try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: $0) }
        let peer = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: publicKey)
        // swift-crypto refuses the all-zero shared secret (a low-order point), as
        // RFC 9180 §7.1.4 asks.
        let shared = try key.sharedSecretFromKeyAgreement(with: peer)
        return shared.withUnsafeBytes { SecureBytes(copying: $0) }
    }

    /// RFC 9180 §4.1 (Encap/Decap's ExtractAndExpand), §5.1 (KeySchedule, mode_base)
    /// and RFC 9180 §5.3 (Export). Every secret on the way (the shared secret, the PRKs, the exporter
    /// secret) stays in zeroing memory; only the public suite ids, labels and hashes of
    /// public inputs pass through plain arrays.
    private static func keySchedule(
        dh: SecureBytes, enc: [UInt8], recipient: [UInt8], info: [UInt8], context: [UInt8], length: Int,
        sharedSecret: (SecureBytes) -> Void = { _ in }
    ) -> SecureBytes {
        let kemSuite = Array("KEM".utf8) + be16(kemId)
        let suite = Array("HPKE".utf8) + be16(kemId) + be16(kdfId) + be16(aeadId)
        let none = SecureBytes(count: 0)
        let eaePRK = labeledExtract(salt: none, label: "eae_prk", ikm: dh, suite: kemSuite)
        let shared = labeledExpand(eaePRK, label: "shared_secret", info: enc + recipient, length: 32, suite: kemSuite)
        sharedSecret(shared)
        let pskIdHash = labeledExtract(salt: none, label: "psk_id_hash", ikm: none, suite: suite)
        let infoHash = labeledExtract(salt: none, label: "info_hash", ikm: SecureBytes(copying: info), suite: suite)
        // Hashes of public inputs (an empty psk_id and the info): not secret.
        let keyScheduleContext: [UInt8] = [0x00] + pskIdHash.withUnsafeBytes { Array($0) } + infoHash.withUnsafeBytes { Array($0) }
        let secret = labeledExtract(salt: shared, label: "secret", ikm: none, suite: suite)
        let exporterSecret = labeledExpand(secret, label: "exp", info: keyScheduleContext, length: 32, suite: suite)
        return labeledExpand(exporterSecret, label: "sec", info: context, length: length, suite: suite)
    }

    /// LabeledExtract(salt, label, ikm) = HKDF-Extract(salt, "HPKE-v1" ‖ suite ‖ label ‖ ikm),
    /// and HKDF-Extract(salt, IKM) = HMAC(salt, IKM); an empty salt is HMAC's empty key.
    private static func labeledExtract(salt: SecureBytes, label: String, ikm: SecureBytes, suite: [UInt8]) -> SecureBytes {
        let prefix = Array("HPKE-v1".utf8) + suite + Array(label.utf8)
        let message = SecureBytes(count: prefix.count + ikm.count)
        message.withUnsafeMutableBytes { out in
            out.copyBytes(from: prefix)
            ikm.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: out[prefix.count...]).copyMemory(from: $0) }
        }
        return message.withUnsafeBytes { HMACSHA256.secureCode(for: $0, key: salt) }
    }

    private static func labeledExpand(_ prk: SecureBytes, label: String, info: [UInt8], length: Int, suite: [UInt8]) -> SecureBytes {
        precondition(length <= 32, "one HKDF-Expand block is enough here")
        let labeled = be16(UInt16(length)) + Array("HPKE-v1".utf8) + suite + Array(label.utf8) + info
        // HKDF-Expand with L ≤ 32: T(1) = HMAC(PRK, info ‖ 01), its first L bytes.
        let block = HMACSHA256.secureCode(for: labeled + [0x01], key: prk)
        return block.withUnsafeBytes { SecureBytes(copying: $0.prefix(length)) }
    }

    private static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
}
