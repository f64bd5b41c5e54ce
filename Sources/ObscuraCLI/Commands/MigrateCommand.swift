import ArgumentParser
import ObscuraKit
import ObscuraStore
import ObscuraKeys

/// `obscura migrate`: wraps a version 3 directory's slots in the version 4 container
/// under a new outer key (docs/FORMAT.md §8.10), and moves the decoy secret from its
/// version 3 file into the keyring.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Move a version 3 vault directory into the version 4 slot container.",
        discussion: """
            Needs no password: every vault keeps its contents and password. Afterwards the \
            directory opens only with its outer key, kept in the keyring (or in the file \
            given by --outer-key-file). Copies of the version 3 slots in old backups and \
            snapshots stay readable as they were. Every command that opens a vault, and \
            `serve`, runs this first on a version 3 directory.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passwords: PasswordOptions

    @Option(help: ArgumentHelp("""
        Also convert N vaults' catalogs to the paged catalog now, in one commit: asks for N \
        passwords. A vault not converted here converts the first time it is unlocked.
        """, valueName: "N"))
    var convert = 0

    @Flag(help: """
        Without a terminal, migrate with the new outer key only in the keyring, and confirm \
        a copy of it later (`obscura keys export outer`, then `obscura keys verify outer`).
        """)
    var confirmKeyLater = false

    func run() throws {
        let directory = try global.openDirectory(versionNote: false)
        guard directory.isInitialized else { throw VaultError.notInitialized(directory.path) }
        let setup = KeySetup(global: global)
        guard !directory.isContainer else {
            Terminal.output("\(directory.path) is already a version 4 container; nothing to wrap.")
            // A migration cut short, or run again: finish what followed the wrapping.
            Version3Migration(global: global, reportsOnStandardOutput: true).moveDecoySecret(directory)
            if let opened = directory.openedWith, opened.confirmed == false, let item = opened.keyringItem {
                _ = try setup.confirmExport(.init(key: opened.key, keyring: KeySource.platformKeyring(), item: item))
            }
            try convertCatalogs(directory)
            return
        }
        let migration = Version3Migration(global: global, reportsOnStandardOutput: true)
        guard let new = try migration.run(directory, keyCheck: confirmKeyLater ? .onTerminalOrLater : .onTerminal, asked: "migrate")
        else { return }
        if new.keyring != nil, !(Terminal.isInteractive) {
            Terminal.note("note: " + KeySetup.unconfirmedNote)
        }
        try convertCatalogs(directory)
    }

    /// Converts the catalogs of the vaults whose passwords are given (`--convert N`),
    /// with every decoy, in one commit (docs/FORMAT.md §9.7).
    private func convertCatalogs(_ directory: VaultDirectory) throws {
        guard convert > 0 else { return }
        let given = try (1...convert).map { try passwords.existing("Password of vault \($0) of \(convert): ") }
        Terminal.note("Converting catalogs...")
        let converted = try directory.convertVaults(passwords: given)
        Terminal.output("Converted \(converted) vault\(converted == 1 ? "" : "s") to the paged catalog"
            + (converted < convert ? " (\(convert - converted) already were)." : "."))
    }
}
