import Crypto
import Foundation
import Testing
@testable import ObscuraCrypto

/// The drop's HPKE (docs/FORMAT.md §10.2) against swift-crypto's own HPKE, both ways:
/// the key schedule written here is RFC 9180's, base mode, export-only.
@Suite struct HPKEExporterTests {
    let suite = HPKE.Ciphersuite(kem: .Curve25519_HKDF_SHA256, kdf: .HKDF_SHA256, aead: .exportOnly)
    let info = Array("obscura drop v1".utf8)
    let context = Array("obscura drop v1 payload".utf8)

    @Test func swiftCryptoOpensWhatThisSeals() throws {
        let recipient = Curve25519.KeyAgreement.PrivateKey()
        let (enc, secret) = try HPKEExporter.seal(
            to: Array(recipient.publicKey.rawRepresentation), info: info, context: context, length: 32)
        let opened = try HPKE.Recipient(privateKey: recipient, ciphersuite: suite, info: Data(info), encapsulatedKey: Data(enc))
        let theirs = try opened.exportSecret(context: context, outputByteCount: 32)
        #expect(theirs.withUnsafeBytes { Array($0) } == secret.withUnsafeBytes { Array($0) })
    }

    @Test func thisOpensWhatSwiftCryptoSeals() throws {
        let pair = try HPKEExporter.KeyPair.generate()
        let publicKey = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: pair.publicKey)
        let sender = try HPKE.Sender(recipientKey: publicKey, ciphersuite: suite, info: Data(info))
        let theirs = try sender.exportSecret(context: context, outputByteCount: 32)
        let ours = try HPKEExporter.open(
            enc: Array(sender.encapsulatedKey), keyPair: pair, info: info, context: context, length: 32)
        #expect(theirs.withUnsafeBytes { Array($0) } == ours.withUnsafeBytes { Array($0) })
    }

    @Test func anotherKeyExportsAnotherSecret() throws {
        let pair = try HPKEExporter.KeyPair.generate()
        let other = try HPKEExporter.KeyPair.generate()
        let (enc, secret) = try HPKEExporter.seal(to: pair.publicKey, info: info, context: context, length: 32)
        let wrong = try HPKEExporter.open(enc: enc, keyPair: other, info: info, context: context, length: 32)
        #expect(wrong != secret)
        #expect(try HPKEExporter.open(enc: enc, keyPair: pair, info: info, context: context, length: 32) == secret)
    }

    @Test func aSeededSourceSealsReproducibly() throws {
        let pair = try HPKEExporter.KeyPair(privateKey: SecureBytes(copying: [UInt8](repeating: 7, count: 32)))
        let a = try HPKEExporter.seal(to: pair.publicKey, info: info, context: context, length: 32, using: SeededRandom(seed: "x"))
        let b = try HPKEExporter.seal(to: pair.publicKey, info: info, context: context, length: 32, using: SeededRandom(seed: "x"))
        #expect(a.enc == b.enc && a.secret == b.secret)
    }
}
