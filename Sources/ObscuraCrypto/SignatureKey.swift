import Crypto
import Foundation

/// A public key that verifies signatures: the two algorithms a passkey may use to sign
/// (docs/FORMAT.md §9.9): ECDSA over P-256 with SHA-256 (COSE ES256, -7) and Ed25519
/// (COSE -8). Every other algorithm is refused where a key is made.
///
/// A key exists only through ``p256(point:)`` and ``ed25519(publicKey:)``, which check it:
/// there is no way to hold an unchecked one (a small-order Ed25519 key verifies forgeries).
public struct SignatureKey: Sendable, Equatable {
    private enum Kind: Sendable, Equatable {
        /// ES256: the uncompressed point 04 ‖ x ‖ y, 65 bytes, on the curve.
        case p256([UInt8])
        /// Ed25519: the 32-byte encoded point, canonical and not of small order.
        case ed25519([UInt8])
    }

    private let kind: Kind

    /// The algorithm: 1 for ES256, 2 for Ed25519 (the record's numbering, docs/PASSKEY.md §P4.1).
    public var algorithm: Int { if case .p256 = kind { return 1 } else { return 2 } }
    /// The key's bytes: the 65-byte point for ES256, the 32-byte key for Ed25519.
    public var bytes: [UInt8] {
        switch kind {
        case .p256(let point): return point
        case .ed25519(let raw): return raw
        }
    }

    /// Size of an uncompressed P-256 point.
    public static let p256PointSize = 65
    /// Size of an Ed25519 public key and of half its signature.
    public static let ed25519KeySize = 32
    /// Size of an Ed25519 signature.
    public static let ed25519SignatureSize = 64

    /// An ES256 key from its uncompressed point; nil unless the point is on the curve.
    public static func p256(point: [UInt8]) -> SignatureKey? {
        guard point.count == p256PointSize, (try? P256.Signing.PublicKey(x963Representation: point)) != nil else { return nil }
        return SignatureKey(kind: .p256(point))
    }

    /// An Ed25519 key from its 32 bytes; nil for a non-canonical encoding or a point of
    /// small order, with which anyone can forge a signature on any message (the
    /// identity among them). The eight small-order points and the two "negative zero"
    /// encodings are listed; every encoding of a y at or above 2^255 − 19 is refused
    /// as non-canonical, which covers the other encodings of the same points.
    public static func ed25519(publicKey raw: [UInt8]) -> SignatureKey? {
        guard raw.count == ed25519KeySize, isCanonical(raw), !smallOrder.contains(raw),
              (try? Curve25519.Signing.PublicKey(rawRepresentation: raw)) != nil else { return nil }
        return SignatureKey(kind: .ed25519(raw))
    }

    /// Whether `signature` is valid over `message`. ES256 takes a strict DER signature
    /// (a raw r ‖ s, trailing bytes or bad DER are invalid) and hashes `message` with
    /// SHA-256 itself; a high-S signature is valid, as WebAuthn does not require low S.
    /// Ed25519 takes exactly 64 bytes, pure Ed25519 over `message`.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        switch kind {
        case .p256(let point):
            guard let key = try? P256.Signing.PublicKey(x963Representation: point),
                  let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: message)
        case .ed25519(let raw):
            guard signature.count == Self.ed25519SignatureSize,
                  let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else { return false }
            return key.isValidSignature(signature, for: message)
        }
    }

    /// Whether the y of an Ed25519 encoding (its low 255 bits, little endian) is below
    /// p = 2^255 − 19: y ≥ p only when bits 8…254 are all set and the low byte ≥ 0xED.
    private static func isCanonical(_ raw: [UInt8]) -> Bool {
        guard raw[31] & 0x7F == 0x7F, raw[1..<31].allSatisfy({ $0 == 0xFF }) else { return true }
        return raw[0] < 0xED
    }

    /// The canonical encodings of the eight points of order dividing 8, and the two
    /// encodings of x = 0 with the sign bit set (refused by RFC 8032 §5.1.3).
    private static let smallOrder: Set<[UInt8]> = Set([
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0000000000000000000000000000000000000000000000000000000000000080",
        "0100000000000000000000000000000000000000000000000000000000000000",
        "0100000000000000000000000000000000000000000000000000000000000080",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    ].map { hex in stride(from: 0, to: hex.count, by: 2).map { i in
        let start = hex.index(hex.startIndex, offsetBy: i)
        return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
    } })
}
