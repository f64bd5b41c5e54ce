import Testing
@testable import ObscuraCrypto

func hex(_ s: String) -> [UInt8] {
    var out = [UInt8]()
    var i = s.startIndex
    while i < s.endIndex {
        let j = s.index(i, offsetBy: 2)
        out.append(UInt8(s[i..<j], radix: 16)!)
        i = j
    }
    return out
}

@Suite struct AESGCMTests {
    let key = SecureBytes(copying: hex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"))

    /// NIST GCM spec test case 16 (256-bit key, with associated data).
    @Test func knownAnswer() throws {
        let nonce = hex("cafebabefacedbaddecaf888")
        let plaintext = hex("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39")
        let aad = hex("feedfacedeadbeeffeedfacedeadbeefabaddad2")
        let sealed = try AESGCM.seal(plaintext, key: key, nonce: nonce, authenticating: aad)
        #expect(sealed == nonce
            + hex("522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662")
            + hex("76fc6ece0f4e1768cddf8853bb2d551b"))
        #expect(try AESGCM.open(sealed, key: key, authenticating: aad) == plaintext)
    }

    @Test func everyFlippedByteFailsAuthentication() throws {
        let sealed = try AESGCM.seal(Array("attack at dawn".utf8), key: key, authenticating: [UInt8]())
        #expect(sealed.count == 14 + AESGCM.overhead)
        for i in sealed.indices {
            var bad = sealed
            bad[i] ^= 0x80
            #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(bad, key: key, authenticating: [UInt8]()) }
        }
    }

    @Test func wrongAssociatedDataOrKeyFails() throws {
        let sealed = try AESGCM.seal([1, 2, 3], key: key, authenticating: [9])
        #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(sealed, key: key, authenticating: [8]) }
        let other = SecureBytes(randomCount: 32)
        #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(sealed, key: other, authenticating: [9]) }
    }

    @Test func truncatedBoxIsRejected() throws {
        #expect(throws: CryptoError.truncated) { try AESGCM.open([UInt8](repeating: 0, count: 27), key: key, authenticating: [UInt8]()) }
    }

    @Test func nonceIsFreshEachSeal() throws {
        let a = try AESGCM.seal([0], key: key, authenticating: [UInt8]())
        let b = try AESGCM.seal([0], key: key, authenticating: [UInt8]())
        #expect(a[0..<12] != b[0..<12])
    }

    @Test func wrongKeySizeIsRejected() {
        #expect(throws: CryptoError.invalidLength(what: "key", expected: 32, actual: 16)) {
            try AESGCM.seal([0], key: SecureBytes(count: 16), authenticating: [UInt8]())
        }
    }

    @Test func secretRoundTrip() throws {
        let secret = SecureBytes(randomCount: 32)
        let wrapped = try AESGCM.sealSecret(secret, key: key, authenticating: [1])
        #expect(wrapped.count == 60)
        #expect(try AESGCM.openSecret(wrapped, key: key, authenticating: [1]) == secret)
    }
}
