import ArgumentParser
import ObscuraKit

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
            snapshots stay readable as they were.
            """)

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let directory = try global.openDirectory(versionNote: false)
        guard directory.isInitialized else { throw VaultError.notInitialized(directory.path) }
        guard !directory.isContainer else {
            Terminal.output("\(directory.path) is already a version 4 container; nothing changed.")
            return
        }
        let setup = KeySetup(global: global)
        let new = try setup.newOuterKey()
        Terminal.note("Wrapping \(try directory.slotCount()) slots in \(directory.path)...")
        // The key is kept whatever happens: a migration cut short is finished by the
        // next open, which needs it.
        try directory.migrateToContainer(outerKey: new.key)
        Terminal.output("Migrated \(directory.path) to the version 4 slot container.")
        if new.keyring != nil, let file = directory.deviceSecrets as? DeviceSecretStore {
            switch try file.moveToKeyring(KeySource.platformKeyring()) {
            case .moved: Terminal.output("Moved the decoy secret from \(file.path) into the keyring.")
            case .differentInKeyring:
                Terminal.note("note: the keyring holds another decoy secret; \(file.path) stays where it is.")
            }
        }
        try setup.confirmExport(new)
    }
}
