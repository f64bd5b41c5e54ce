import ArgumentParser
import ObscuraKit

/// `obscura passwd`: changes a vault's password (re-wraps the MEK; no data re-encrypted).
struct PasswdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd", abstract: "Change a vault's password.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passwords: PasswordOptions

    func run() throws {
        let directory = try global.openDirectory()
        let vault = try directory.unlock(password: try passwords.existing("Current vault password: "))
        defer { vault.lock() }
        try vault.changePassword(to: try passwords.new())
        Terminal.output("Password changed.")
    }
}
