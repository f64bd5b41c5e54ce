import Crypto
import ObscuraCrypto
import Testing
@testable import ObscuraKeys

/// The `passkey` table's 448-byte record (docs/PASSKEY.md §P4.1): round trips for both
/// key types, free records, padding drawn anew at every encoding (PK22), and every field
/// a writer never makes refused on reading.
@Suite struct PasskeyRecordTests {
    static func record(ed25519: Bool = false, name: String = "laptop", synced: Bool = false) throws -> PasskeyRecord {
        let key = ed25519
            ? try #require(SignatureKey.ed25519(publicKey: Array(Curve25519.Signing.PrivateKey().publicKey.rawRepresentation)))
            : try #require(SignatureKey.p256(point: Array(P256.Signing.PrivateKey().publicKey.x963Representation)))
        let credential = PasskeyCredential(id: SystemRandom().bytes(ed25519 ? 255 : 16), userHandle: SystemRandom().bytes(16),
                                           key: key, backupEligible: synced, backedUp: synced)
        return PasskeyRecord(name: name, tag: PasskeyRecord.newTag(), createdAt: 1_764_000_000_123, credential: credential,
                             wrapKey: SecureBytes(randomCount: 32))
    }

    static func decode(_ bytes: SecureBytes) throws -> PasskeyRecord? {
        try bytes.withUnsafeBytes { try PasskeyRecord.decode($0) }
    }

    @Test func enrolledRecordsRoundTrip() throws {
        for (ed25519, synced, name) in [(false, false, "laptop"), (true, true, "Schlüssel 🔑 an der Tür"), (false, true, String(repeating: "é", count: 32))] {
            let record = try Self.record(ed25519: ed25519, name: name, synced: synced)
            let bytes = record.encoded()
            #expect(bytes.count == 448)
            let read = try #require(try Self.decode(bytes))
            #expect(read.name == name && read.tag == record.tag && read.createdAt == record.createdAt)
            #expect(read.credential == record.credential)
            #expect(read.wrapKey == record.wrapKey)
        }
    }

    /// Every encoding draws its padding anew, so the table's page changes at every
    /// credential commit even when no row did (PK22); free records too.
    @Test func paddingIsNewAtEveryEncoding() throws {
        let record = try Self.record()
        let first = record.encoded().withUnsafeBytes { Array($0) }
        let second = record.encoded().withUnsafeBytes { Array($0) }
        #expect(first != second)
        #expect(first[0..<129] != second[0..<129] || first[129...] != second[129...])
        let free = [PasskeyRecord.free(), PasskeyRecord.free()].map { $0.withUnsafeBytes { Array($0) } }
        #expect(free[0][0] == 0 && free[1][0] == 0 && free[0] != free[1])
        #expect(try Self.decode(PasskeyRecord.free()) == nil)
    }

    @Test func recordsNoWriterMakesAreRefused() throws {
        let good = try Self.record().encoded().withUnsafeBytes { Array($0) }
        /// Whether decoding the edited record throws (damage), rather than reading it.
        func refused(_ edit: (inout [UInt8]) -> Void) -> Bool {
            var bytes = good
            edit(&bytes)
            do {
                _ = try bytes.withUnsafeBytes { try PasskeyRecord.decode($0) }
                return false
            } catch {
                return error is PasskeyRecordError
            }
        }
        #expect(refused { $0[0] = 2 })                       // state
        #expect(refused { $0[1] = 3 })                       // algorithm
        #expect(refused { $0[2] = 2 })                       // BS without BE
        #expect(refused { $0[2] = 4 })                       // unknown flag
        #expect(refused { $0[3] = 0 })                       // name length
        #expect(refused { $0[3] = 65 })
        #expect(refused { $0[4] = 0 })                       // credential id length
        #expect(refused { $0[5] = UInt8(ascii: "a") })       // tag outside base32
        #expect(refused { $0[65] ^= 1 })                     // a point off the curve
        #expect(refused { $0[129] = 0x07 })                  // a control character in the name
        #expect(refused { $0[129] = 0xFF })                  // not UTF-8
        #expect(throws: PasskeyRecordError.self) { try Array(good.dropLast()).withUnsafeBytes { try PasskeyRecord.decode($0) } }
        #expect(try good.withUnsafeBytes { try PasskeyRecord.decode($0) } != nil)
    }

    @Test func namesAreTrimmedBoundedAndPrintable() {
        #expect(PasskeyRecord.validName("  phone \n") == "phone")
        #expect(PasskeyRecord.validName(String(repeating: "a", count: 64)) != nil)
        #expect(PasskeyRecord.validName(String(repeating: "a", count: 65)) == nil)
        // Bytes, not characters: 22 × 3-byte symbols is 66 bytes.
        #expect(PasskeyRecord.validName(String(repeating: "€", count: 22)) == nil)
        #expect(PasskeyRecord.validName("   ") == nil)
        #expect(PasskeyRecord.validName("tab\there") == nil)
        // Format characters too: a right-to-left override, a zero-width space.
        #expect(PasskeyRecord.validName("evil\u{202E}gnp.exe") == nil)
        #expect(PasskeyRecord.validName("pho\u{200B}ne") == nil)
        #expect(PasskeyRecord.newTag().utf8.allSatisfy { Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8).contains($0) })
    }

    @Test func aSecretDecodesStraightIntoZeroingMemory() {
        for count in [0, 1, 2, 31, 32, 33] {
            let bytes = SystemRandom().bytes(count)
            #expect(Base64URL.decodeSecret(Base64URL.encode(bytes)) == SecureBytes(copying: bytes))
        }
        for bad in ["aGVsbG8_Pg==", "aGVsbG8/Pg", "a", "aGVsbG8_Ph"] {
            #expect(Base64URL.decodeSecret(Array(bad.utf8)) == nil, "\(bad)")
        }
    }
}
