import Testing
@testable import ObscuraCrypto

@Suite struct PasswordKDFTests {
    /// PBKDF2-HMAC-SHA256 vectors (RFC 7914 §11 style; widely published for P="password", S="salt").
    @Test(arguments: [
        (1, "120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b"),
        (2, "ae4d0c95af6b46d32d0adff928f06dd02a303f8ef3c251dfd6e2d85a95474c43"),
        (4096, "c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a"),
    ])
    func knownAnswers(iterations: Int, expected: String) throws {
        let key = try PasswordKDF.deriveKey(
            password: SecureBytes(copying: Array("password".utf8)), salt: Array("salt".utf8), iterations: iterations)
        #expect(key == SecureBytes(copying: hex(expected)))
    }

    @Test func productionParameters() {
        #expect(PasswordKDF.vaultIterations == 600_000)
        #expect(PasswordKDF.folderIterations == 100_000)
        #expect(PasswordKDF.exportIterations == 600_000)
        #expect(PasswordKDF.saltSize == 32)
    }

    @Test func outOfRangeCountsAreRefused() {
        let password = SecureBytes(copying: [1])
        #expect(throws: CryptoError.keyDerivationFailed) { try PasswordKDF.deriveKey(password: password, salt: [0], iterations: 0) }
        #expect(throws: CryptoError.keyDerivationFailed) {
            try PasswordKDF.deriveKey(password: password, salt: [0], iterations: PasswordKDF.maximumIterations + 1)
        }
    }
}
