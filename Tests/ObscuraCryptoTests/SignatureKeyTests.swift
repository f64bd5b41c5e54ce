import Crypto
import Testing
@testable import ObscuraCrypto

/// The two signature algorithms of passkey unlock (docs/FORMAT.md §9.9).
@Suite struct SignatureKeyTests {
    @Test func p256VerifiesDEROnlyAndHashesTheMessageItself() throws {
        let privateKey = P256.Signing.PrivateKey()
        let key = try #require(SignatureKey.p256(point: Array(privateKey.publicKey.x963Representation)))
        let message = Array("authenticator data and client hash".utf8)
        let signature = try privateKey.signature(for: message)
        #expect(key.isValidSignature(Array(signature.derRepresentation), for: message))
        #expect(!key.isValidSignature(Array(signature.rawRepresentation), for: message))
        #expect(!key.isValidSignature(Array(signature.derRepresentation) + [0], for: message))
        #expect(!key.isValidSignature(Array(signature.derRepresentation), for: message + [0]))
        // A signature over SHA-256(message) is not one over the message.
        let hashed = try privateKey.signature(for: Array(SHA256.hash(data: message)))
        #expect(!key.isValidSignature(Array(hashed.derRepresentation), for: message))
    }

    @Test func p256RefusesAPointOffTheCurve() {
        var point = Array(P256.Signing.PrivateKey().publicKey.x963Representation)
        point[64] ^= 1
        #expect(SignatureKey.p256(point: point) == nil)
        #expect(SignatureKey.p256(point: Array(point.prefix(33))) == nil)
    }

    @Test func ed25519VerifiesExactly64Bytes() throws {
        let privateKey = Curve25519.Signing.PrivateKey()
        let key = try #require(SignatureKey.ed25519(publicKey: Array(privateKey.publicKey.rawRepresentation)))
        let message = Array("message".utf8)
        let signature = Array(try privateKey.signature(for: message))
        #expect(key.isValidSignature(signature, for: message))
        #expect(!key.isValidSignature(Array(signature.prefix(63)), for: message))
        #expect(!key.isValidSignature(signature + [0], for: message))
    }

    /// Small-order points (the identity among them) would let anyone forge; non-canonical
    /// encodings are the same points spelled otherwise (PK24).
    @Test func ed25519RefusesSmallOrderAndNonCanonicalKeys() {
        let refused = [
            "0100000000000000000000000000000000000000000000000000000000000000",
            "0000000000000000000000000000000000000000000000000000000000000080",
            "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
            "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
            "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
            // y = p + 1 (the identity, non-canonical) and y = p
            "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
            "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        ]
        for text in refused {
            #expect(SignatureKey.ed25519(publicKey: hex(text)) == nil, "\(text)")
        }
        #expect(SignatureKey.ed25519(publicKey: Array(Curve25519.Signing.PrivateKey().publicKey.rawRepresentation)) != nil)
    }
}
