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

    func run() throws {
        let directory = try global.openLiveDirectory()
        let vault = try directory.unlock(password: try passwords.existing("Current vault password: "))
        defer { vault.lock() }
        try VaultSession.tell(vault.unlockChores)
        let password = try passwords.new()
        try strength.check(password, cost: PasswordKDFCost(vault.kdf), interactive: !passwords.passwordStdin)
        try vault.changePassword(to: password)
        Terminal.output("Password changed.")
    }
}
