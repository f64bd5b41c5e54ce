import ArgumentParser
import ObscuraKit
import ObscuraKeys

/// `obscura passwd`: changes a vault's password (re-wraps the MEK; no data re-encrypted).
struct PasswdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd", abstract: "Change a vault's password.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passwords: PasswordOptions
    @OptionGroup var strength: PasswordStrengthCheck

    @Flag(help: "Remove every passkey of the vault in the same change (one that may be in someone else's hands).")
    var removePasskeys = false

    func run() throws {
        let directory = try global.openLiveDirectory()
        let vault = try directory.unlock(password: try passwords.existing("Current vault password: "))
        defer { vault.lock() }
        try VaultSession.tell(vault.unlockChores)
        let password = try passwords.new()
        try strength.check(password, cost: PasswordKDFCost(vault.kdf), interactive: !passwords.passwordStdin)
        let before = try vault.passkeys()
        let passkeys = before.count
        try vault.changePassword(to: password, removingPasskeys: removePasskeys)
        if removePasskeys && passkeys > 0 {
            // Named as the authenticators list them, to be deleted there too (review UX12).
            let names = before.map { "\(TerminalText.escaped($0.name)) (Obscura · \($0.tag))" }.joined(separator: ", ")
            Terminal.output("""
                Password changed; removed \(passkeys) passkey\(passkeys == 1 ? "" : "s"): \(names). \
                In each authenticator's settings, delete \(passkeys == 1 ? "it" : "them") too, if still listed.
                """)
        } else if passkeys == 1 {
            Terminal.output("Password changed. The vault's passkey still unlocks it (`obscura passkeys remove NAME` removes it).")
        } else if passkeys > 1 {
            Terminal.output("Password changed. The vault's \(passkeys) passkeys still unlock it (`obscura passkeys remove NAME` removes one).")
        } else {
            Terminal.output("Password changed.")
        }
        VaultSession.tellCover(vault)
    }
}
