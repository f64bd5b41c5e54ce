import ArgumentParser
import ObscuraKit

/// `obscura destroy`: erases the vault a password opens and restores a decoy in its place.
struct DestroyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "destroy",
        abstract: "Erase the vault the password opens; a fresh decoy takes its slot.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passwords: PasswordOptions

    @Flag(name: .long, help: "Do not ask for confirmation (needed without a terminal).")
    var yes = false

    func run() throws {
        let directory = try global.openLiveDirectory()
        let vault = try directory.unlock(password: try passwords.existing())
        if !yes {
            guard !passwords.passwordStdin, Terminal.stdinIsTerminal else {
                throw CLIError("refusing to destroy without confirmation; pass --yes")
            }
            let items = try vault.catalog.counts().items
            guard Terminal.confirm(
                prompt: "This erases the vault and its \(items) items for good. Type destroy to confirm: ",
                answer: "destroy")
            else { throw CLIError("cancelled; nothing changed") }
        }
        try directory.destroy(vault)
        Terminal.output("Vault destroyed; the directory has \(try directory.slotCount()) slots.")
        if directory.coverOwed {
            Terminal.note("""
                But overwriting the free space that held its blocks failed twice (is the disk full or failing?). \
                Until a whole rewrite succeeds, a copy of this directory still holds them, readable with its \
                password and the outer key. Once the disk is fixed, a password change of any vault here \
                (`obscura passwd`, even to the same password) rewrites the free space.
                """)
        }
    }
}
