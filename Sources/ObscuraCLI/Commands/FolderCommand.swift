import ArgumentParser
import ObscuraKit
import ObscuraKeys

/// `obscura folder create|ls|rm`.
struct FolderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "folder", abstract: "Create, list and remove folders.",
        subcommands: [Create.self, List.self, Remove.self])

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create", abstract: "Create a folder (\"Trips/2024\" nests); --protect sets a password.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passwords: PasswordOptions
        @OptionGroup var strength: PasswordStrengthCheck
        @OptionGroup var kdf: KDFOption

        @Flag(help: "Protect the folder with its own password (read after the vault password).")
        var protect = false

        @Argument(help: "Folder path.")
        var name: String

        func run() throws {
            let session = try VaultSession(global: global, passwords: passwords)
            let password = protect ? try passwords.new("New password for folder \(name): ") : nil
            let cost = kdf.forFolder(of: session.vault)
            if let password { try strength.check(password, cost: PasswordKDFCost(cost), interactive: !passwords.passwordStdin) }
            try session.vault.createFolder(name, password: password, kdf: cost)
            Terminal.output("Created folder \(name)\(protect ? " (protected)" : "").")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ls", abstract: "List folders.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passwords: PasswordOptions

        func run() throws {
            let session = try VaultSession(global: global, passwords: passwords)
            let vault = session.vault
            for folder in try vault.folders() {
                let count = try vault.itemCount(in: folder)
                Terminal.output("\(TerminalText.escaped(try vault.folderPath(folder)))\(folder.isProtected ? "  (protected)" : "")  \(count) item\(count == 1 ? "" : "s")")
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove an empty folder.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passwords: PasswordOptions

        @Argument(help: "Folder path.")
        var name: String

        func run() throws {
            let session = try VaultSession(global: global, passwords: passwords)
            try session.vault.removeFolder(name)
            Terminal.output("Removed folder \(name).")
        }
    }
}
