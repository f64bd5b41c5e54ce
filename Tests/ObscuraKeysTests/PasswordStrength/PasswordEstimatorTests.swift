import ObscuraCrypto
import Testing
@testable import ObscuraKeys

/// The estimator finds the patterns people use and ranks passwords in a sensible order.
@Suite struct PasswordEstimatorTests {
    static func estimate(_ password: String) -> PasswordEstimate {
        PasswordEstimator.estimate(SecureBytes(copying: Array(password.utf8)), referenceYear: 2025)
    }

    static func vault(_ password: String) -> PasswordAssessment {
        PasswordAssessment(estimate: estimate(password), cost: .vault)
    }

    @Test(arguments: ["password1", "qwertyuiop", "19871203", "Tr0ub4dor&3", "P@ssw0rd!", "iloveyou2024", "aaaaaaaaaaaa",
                      "abcdefgh123", "Summer2024!", "1qaz2wsx3edc", "michael1987"])
    func weakPasswordsNeedConfirmationForAVault(_ password: String) {
        let assessment = Self.vault(password)
        #expect(assessment.strength.needsConfirmation, "\(password): \(assessment.summary)")
    }

    @Test(arguments: ["correct horse battery staple", "glacier ribbon tundra vortex mango", "orbit-velvet-canyon-lemon"])
    func randomWordsAreStrong(_ password: String) {
        let assessment = Self.vault(password)
        #expect(assessment.strength >= .fair, "\(password): \(assessment.summary)")
        #expect(!assessment.strength.needsConfirmation)
    }

    @Test func theMainWeaknessIsNamed() {
        #expect(Self.estimate("password1").mainWeakness == .commonPassword)
        #expect(Self.estimate("zxcvbnm,./").mainWeakness == .keyboard)
        #expect(Self.estimate("19871203").mainWeakness == .date)
        #expect(Self.estimate("3/12/1987").mainWeakness == .date)
        #expect(Self.estimate("kx9!1987").mainWeakness == .year)
        #expect(Self.estimate("pqrstuvw").mainWeakness == .sequence)
        #expect(Self.estimate("xkcdxkcdxkcd").mainWeakness == .repeated)
        #expect(Self.estimate("Tr0ub4dor&3").mainWeakness == .englishWord)
        #expect(Self.estimate("elizabeth").mainWeakness == .name)
        #expect(Self.estimate("q7#Lw9!zT2vB").mainWeakness == nil)
    }

    @Test func aPatternCostsFewerGuessesThanRandomCharactersOfTheSameLength() {
        for (patterned, random) in [("password", "vbqkzmtr"), ("qwertyui", "hqzjcxwa"), ("12345678", "84019372"),
                                    ("20241231", "61930485"), ("abcabcabc", "azqmwlxpe")] {
            #expect(Self.estimate(patterned).log10Guesses + 2 < Self.estimate(random).log10Guesses, "\(patterned) vs \(random)")
        }
    }

    @Test func variationsCostMoreThanThePlainWord() {
        let plain = Self.estimate("sunshine").log10Guesses
        #expect(Self.estimate("Sunshine").log10Guesses > plain)
        #expect(Self.estimate("sUnShInE").log10Guesses > Self.estimate("Sunshine").log10Guesses)
        #expect(Self.estimate("5un5h1ne").log10Guesses > plain)
        #expect(Self.estimate("sunshine!").log10Guesses > plain)
    }

    @Test func longerIsStrongerAndMoreWordsAreStronger() {
        #expect(Self.estimate("k8#pQ2").log10Guesses < Self.estimate("k8#pQ2mZ").log10Guesses)
        #expect(Self.estimate("k8#pQ2mZ").log10Guesses < Self.estimate("k8#pQ2mZ!v7W").log10Guesses)
        let words = ["tundra", "glacier", "ribbon", "vortex", "mango"]
        for n in 1..<words.count {
            let shorter = words.prefix(n).joined(separator: " "), longer = words.prefix(n + 1).joined(separator: " ")
            #expect(Self.estimate(shorter).log10Guesses < Self.estimate(longer).log10Guesses)
        }
        // A more common password is weaker than a rarer one.
        #expect(Self.estimate("freedom").log10Guesses < Self.estimate("zeppelin").log10Guesses)
        #expect(Self.estimate("zeppelin").log10Guesses < Self.estimate("xylophone").log10Guesses)
    }

    @Test func theDecompositionCoversThePassword() {
        for password in ["Tr0ub4dor&3", "correct horse battery staple", "日本語のパスワード", "a", ""] {
            let estimate = Self.estimate(password)
            #expect(estimate.parts.map(\.length).reduce(0, +) == password.unicodeScalars.count)
            #expect(estimate.log10Guesses >= 0)
        }
    }

    @Test func charactersBeyondTheAnalysedLengthStillAddGuesses() {
        let long = String(repeating: "x7Q!", count: 30)
        #expect(Self.estimate(long).log10Guesses > Self.estimate(String(long.prefix(64))).log10Guesses)
    }

    @Test func invalidUTF8IsCountedNotRejected() {
        let estimate = PasswordEstimator.estimate(SecureBytes(copying: [0xFF, 0xFE, 0x41, 0x80]))
        #expect(estimate.parts.map(\.length).reduce(0, +) == 4)
    }
}
