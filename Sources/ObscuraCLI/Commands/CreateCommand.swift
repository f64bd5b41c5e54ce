import ArgumentParser
import ObscuraKit
import ObscuraKeys

/// `obscura create`: turns a decoy slot into a new vault.
struct CreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create", abstract: "Create a new vault in a free decoy slot.")

    /// What the user is told before an extended slot is added.
    static let extendedSlotWarning = """
        Every slot already holds a vault. Adding a slot beyond ten loses indistinguishability: \
        extra slots are only ever added when no decoy is left, so anyone who sees more than ten \
        slot files knows that every one of them is a real vault.
        """

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passwords: PasswordOptions
    @OptionGroup var strength: PasswordStrengthCheck
    @OptionGroup var kdf: KDFOption

    @Flag(name: .long, help: "Add a slot beyond ten when no decoy is free (makes the vault count visible).")
    var allowExtendedSlots = false

    func run() throws {
        let directory = try global.openLiveDirectory()
        try kdf.requireMatching(directory)
        let password = try passwords.new()
        let cost = try directory.sharedKDF() ?? kdf.forVaults
        try strength.check(password, cost: PasswordKDFCost(cost), interactive: !passwords.passwordStdin)
        do {
            _ = try directory.createVault(password: password, kdf: kdf.forVaults)
        } catch VaultError.noFreeSlot where allowExtendedSlots {
            Terminal.note("warning: " + Self.extendedSlotWarning)
            if !passwords.passwordStdin {
                guard Terminal.confirm(prompt: "Type yes to add the slot anyway: ", answer: "yes") else {
                    throw CLIError("cancelled; nothing changed")
                }
            }
            _ = try directory.createVault(password: password, kdf: kdf.forVaults, allowExtendedSlots: true)
        }
        Terminal.output("Vault created.")
    }
}
