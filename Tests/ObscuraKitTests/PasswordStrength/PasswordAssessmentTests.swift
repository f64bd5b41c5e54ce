import ObscuraCrypto
import Testing
@testable import ObscuraKit

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
        #expect(summary.hasPrefix("Password strength: very weak."))
        #expect(summary.contains("(a common password)"))
        #expect(summary.contains("PBKDF2-HMAC-SHA256, 600,000 iterations"))
    }

    @Test func durationsReadNaturally() {
        #expect(PasswordAssessment.duration(0.2) == "less than a second")
        #expect(PasswordAssessment.duration(1) == "about 1 second")
        #expect(PasswordAssessment.duration(7_200) == "about 2 hours")
        #expect(PasswordAssessment.duration(3 * PasswordStrength.year) == "about 3 years")
        #expect(PasswordAssessment.duration(41_234 * PasswordStrength.year) == "about 41,000 years")
        #expect(PasswordAssessment.duration(3e9 * PasswordStrength.year) == "about 10^9 years")
    }
}
