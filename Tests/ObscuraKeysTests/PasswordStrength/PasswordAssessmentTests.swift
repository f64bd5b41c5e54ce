import ObscuraCrypto
import Testing
@testable import ObscuraKeys

/// The attacker's rate follows the key derivation, and the classes follow the time.
@Suite struct PasswordAssessmentTests {
    @Test func theRateScalesWithTheIterations() {
        let vault = GuessingRate.oneGPU(against: .vault), folder = GuessingRate.oneGPU(against: .folder)
        #expect(abs(folder / vault - 6) < 1e-9)
        // About fifteen thousand guesses a second at 600,000 iterations.
        #expect(vault > 10_000 && vault < 20_000)
        #expect(GuessingRate.oneGPU(against: .export) == vault)
    }

    @Test func theSamePasswordIsWeakerBehindACheaperDerivation() {
        let estimate = PasswordEstimate(log10Guesses: 12, parts: [])
        let vault = PasswordAssessment(estimate: estimate, cost: .vault)
        let folder = PasswordAssessment(estimate: estimate, cost: .folder)
        #expect(folder.seconds < vault.seconds)
        #expect(PasswordAssessment(estimate: estimate, cost: .pbkdf2SHA256(iterations: 1)).strength == .veryWeak)
    }

    @Test func classesFollowTheThresholds() {
        #expect(PasswordStrength(seconds: 0) == .veryWeak)
        #expect(PasswordStrength(seconds: 86_399) == .veryWeak)
        #expect(PasswordStrength(seconds: 86_400) == .weak)
        #expect(PasswordStrength(seconds: 9.9 * PasswordStrength.year) == .weak)
        #expect(PasswordStrength(seconds: 10 * PasswordStrength.year) == .fair)
        #expect(PasswordStrength(seconds: 1e7 * PasswordStrength.year) == .veryStrong)
        #expect(PasswordStrength.allCases.filter(\.needsConfirmation) == [.veryWeak, .weak])
    }

    @Test func theSummaryNamesClassWeaknessTimeAndDerivation() {
        let summary = PasswordAssessment(SecureBytes(copying: Array("password1".utf8)), cost: .vault).summary
        #expect(summary.hasPrefix("Password strength: very weak. Found: a common password. One GPU would need"))
        #expect(summary.contains("PBKDF2-HMAC-SHA256, 600,000 iterations"))
    }

    @Test func durationsReadNaturally() {
        #expect(PasswordAssessment.duration(0.2) == "less than a second")
        #expect(PasswordAssessment.duration(1) == "about 1 second")
        #expect(PasswordAssessment.duration(7_200) == "about 2 hours")
        #expect(PasswordAssessment.duration(3 * PasswordStrength.year) == "about 3 years")
        #expect(PasswordAssessment.duration(41_234 * PasswordStrength.year) == "about 41,000 years")
        // Issue 40, point 20: past a million years, words rather than powers of ten.
        #expect(PasswordAssessment.duration(3e6 * PasswordStrength.year) == "millions of years")
        #expect(PasswordAssessment.duration(3e9 * PasswordStrength.year) == "billions of years")
        #expect(PasswordAssessment.duration(1e20 * PasswordStrength.year) == "longer than the universe has existed")
    }

    /// Issue 40, point 20: the CLI called a very strong folder password "(a common
    /// password)", and said "About 10^27.6 guesses". A strong password's summary names no
    /// weakness, and no summary shows a power of ten.
    @Test func aStrongPasswordIsNotCalledCommonAndNoSummaryCountsInPowers() {
        let strong = PasswordAssessment(SecureBytes(copying: Array("correct horse battery staple glacier".utf8)), cost: .folder)
        #expect(strong.strength >= .strong)
        #expect(strong.estimate.mainWeakness != nil, "it does hold a common word")
        #expect(!strong.summary.contains("Found:"), "\(strong.summary)")
        let weak = PasswordAssessment(SecureBytes(copying: Array("password1".utf8)), cost: .folder)
        #expect(weak.summary.contains("Found: a common password."), "\(weak.summary)")
        for assessment in [strong, weak] { #expect(!assessment.summary.contains("10^"), "\(assessment.summary)") }
    }
}
