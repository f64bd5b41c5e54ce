import ArgumentParser
import ObscuraCrypto
import ObscuraKit
import ObscuraKeys

/// The strength check on a password that creates something (a vault, a protected folder,
/// an export, a new vault password): the estimate goes to standard error, and a weak
/// password is used only when the person confirms it at the terminal, or when a script
/// passes `--allow-weak-password` (docs/SECURITY.md, "Password strength").
struct PasswordStrengthCheck: ParsableArguments {
    @Flag(name: .long, help: "Use the new password even if it is estimated weak (without asking).")
    var allowWeakPassword = false

    /// The question asked on the terminal before a weak password is used.
    static let question = "Use it anyway? [y/N] "

    /// Shows the estimate of `password` against `cost`; when it is weak, asks on the
    /// terminal (`interactive`) or refuses, unless `--allow-weak-password` was given.
    func check(_ password: SecureBytes, cost: PasswordKDFCost, interactive: Bool) throws {
        let assessment = PasswordAssessment(password, cost: cost)
        Terminal.note(assessment.summary)
        guard assessment.strength.needsConfirmation, !allowWeakPassword else { return }
        guard interactive else {
            throw CLIError("""
                the password is \(assessment.strength.label); choose a stronger one \
                (several random words, say), or pass --allow-weak-password to use it anyway
                """)
        }
        guard Terminal.confirm(prompt: Self.question, answer: "y") else {
            throw CLIError("cancelled; choose a stronger password (nothing changed)")
        }
    }
}
