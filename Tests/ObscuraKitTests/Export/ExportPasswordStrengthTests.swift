import ObscuraKeys
import Testing
@testable import ObscuraKit

/// The export's generated passwords, rated by the password estimator (ObscuraKeys).
@Suite struct ExportPasswordStrengthTests {
    @Test func aGeneratedExportPasswordIsVeryStrong() {
        for _ in 0..<20 {
            let password = ExportFormat.generatePassword()
            let assessment = PasswordAssessment(password, cost: .export)
            #expect(assessment.strength == .veryStrong, "\(assessment.summary)")
        }
    }
}
