import ArgumentParser
import Foundation
import ObscuraKit

/// `obscura drop`: add files to a vault without unlocking it (docs/FORMAT.md §10).
///
/// `drop code` (vault password) prints the vault's drop code; `drop --code CODE FILE...`
/// needs no password and no key: it seals each file to the code and leaves it in the
/// directory's shared inbox, which the vault takes in at its next unlock.
struct DropCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drop",
        abstract: "Add files to a vault while it is locked, with its drop code.",
        subcommands: [DropFilesCommand.self, DropCodeCommand.self],
        defaultSubcommand: DropFilesCommand.self)
}

/// `obscura drop --code CODE FILE...`.
struct DropFilesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "files",
        abstract: "Seal files to a drop code; the vault takes them in at its next unlock.",
        discussion: """
            No password and no key are needed, and the vault may be in use: each file is \
            sealed to the code and left in the directory's inbox. Nothing there says which \
            vault it is for.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("The vault's drop code (from 'obscura drop code').", valueName: "code"))
    var code: String

    @Argument(help: "Files to add.")
    var files: [String]

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("Name at least one file to drop.") }
    }

    func run() throws {
        let dropCode: DropCode
        do {
            dropCode = try DropCode(text: code)
        } catch {
            throw CLIError("\(error): check it against the one in the vault's settings or 'obscura drop code'")
        }
        let path = global.vaultPath()
        guard FileManager.default.fileExists(atPath: path + "/data") else {
            throw CLIError("\(path) is not a vault directory")
        }
        let inbox = DropInbox(vaultPath: path)
        for file in files {
            do {
                try inbox.drop(file: file, to: dropCode)
            } catch {
                throw CLIError("could not drop \(file): \(error)")
            }
        }
        print("Dropped \(files.count) file\(files.count == 1 ? "" : "s"); the vault takes \(files.count == 1 ? "it" : "them") in at its next unlock.")
    }
}

/// `obscura drop code`.
struct DropCodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "code",
        abstract: "Print the vault's drop code (asks for the vault password).",
        discussion: """
            Whoever has the code can add files to the vault, and do nothing else: it opens \
            nothing and shows nothing.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passwords: PasswordOptions

    func run() throws {
        let session = try VaultSession(global: global, passwords: passwords)
        defer { session.vault.lock() }
        print(try session.vault.dropCode().text)
    }
}
