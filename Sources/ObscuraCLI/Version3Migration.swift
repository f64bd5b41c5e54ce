import Foundation
import ObscuraKit
import ObscuraStore
import ObscuraKeys

/// Wrapping a version 3 directory's slots in the version 4 container under a new outer
/// key (docs/FORMAT.md §8.10): what `obscura migrate` does, and what every command that
/// opens or writes a vault does first, so that vaults live in one storage generation only
/// (a version 3 catalog inside the container then becomes paged at its vault's next
/// unlock, §9.7). Version 3 slots are still read, for this and for old backups, never
/// written.
///
/// Where the migration cannot run, nothing is changed and the command is refused: slot
/// files a container cannot take, a directory that cannot be written here (a read-only
/// medium), or a new key kept only in the keyring with no terminal to show it on and no
/// word that its copy will be confirmed later.
struct Version3Migration {
    let global: GlobalOptions
    /// Whether what was done goes to standard output (`migrate`, whose output it is) or
    /// with the notes to standard error (a command whose output is a listing or a file).
    var reportsOnStandardOutput = false

    /// How the user gets to see and keep the new outer key when it lives in the keyring
    /// (a key file is the user's copy already).
    enum KeyCheck {
        /// Shown and typed back on the terminal before the slots are wrapped; without a
        /// terminal, refused.
        case onTerminal
        /// As `onTerminal` where there is a terminal; without one, the key is confirmed
        /// later (`migrate --confirm-key-later`).
        case onTerminalOrLater
        /// In the gallery, which shows a key not yet confirmed (`serve`, which never
        /// prompts: its first run is often not at a terminal).
        case inGallery
    }

    /// Wraps `directory`'s slots under a new outer key, which it returns, or nil when the
    /// user chose not to go on at the key's check (nothing changed). `asked` names what
    /// the user ran ("migrate", "this command"), for the refusals.
    func run(_ directory: VaultDirectory, keyCheck: KeyCheck, asked: String) throws -> KeySetup.NewKey? {
        // Refusals that need no key come before one is made.
        let strays = try directory.unmigratableSlotNames()
        guard strays.isEmpty else { throw ContainerError.unmigratableSlots(strays) }
        guard access(directory.path + "/data", W_OK) == 0 else {
            throw CLIError("""
                \(directory.path) holds version 3 slots, which are opened only to be moved into the version 4 \
                container, and it cannot be written here (\(String(cString: strerror(errno)))); copy the \
                directory somewhere writable and run `obscura migrate` there. Nothing was changed.
                """)
        }
        let setup = KeySetup(global: global)
        let new = try setup.newOuterKey()
        do {
            try setup.refuseOuterKeyEqualToDecoySecret(new, directory)
        } catch {
            setup.discard(new)
            throw error
        }
        // Wrapping overwrites the version 3 slots in place: from then on only the key
        // opens them. With it in the keyring alone, the user has a copy of it first.
        if new.keyring != nil, keyCheck != .inGallery {
            let interactive = Terminal.isInteractive
            guard interactive || keyCheck == .onTerminalOrLater else {
                setup.discard(new)
                throw CLIError(Self.noTerminal(asked: asked))
            }
            if interactive, try !setup.confirmExport(new) {
                setup.discard(new)
                report("Nothing changed: migrate again once you can write the outer key down.")
                return nil
            }
        }
        Terminal.note("Wrapping \(try directory.slotCount()) slots in \(directory.path)...")
        // The key is kept whatever happens: a migration cut short is finished by the
        // next open, which needs it.
        try directory.migrateToContainer(outerKey: new.key)
        report("Migrated \(directory.path) to the version 4 slot container.")
        moveDecoySecret(directory)
        return new
    }

    private func report(_ line: String) {
        if reportsOnStandardOutput { Terminal.output(line) } else { Terminal.note(line) }
    }

    /// Why a command cannot migrate without a terminal.
    static func noTerminal(asked: String) -> String {
        """
        \(asked) needs a terminal to show the new outer key and check your copy of it before \
        the slots are wrapped; run it in a terminal, or run `obscura migrate --confirm-key-later` \
        (then `obscura keys export outer` and `obscura keys verify outer` right after), or keep \
        the key in a file with --outer-key-file. Nothing was changed.
        """
    }

    /// Moves a version 3 device-secret file into the keyring, when the decoy secret is
    /// one and the outer key is not kept in a file (a machine without a keyring).
    func moveDecoySecret(_ directory: VaultDirectory) {
        guard global.outerKeyFilePath() == nil, let file = directory.deviceSecrets as? DeviceSecretStore, file.exists else { return }
        do {
            switch try file.moveToKeyring(KeySource.platformKeyring()) {
            case .moved: report("Moved the decoy secret from \(file.path) into the keyring.")
            case .differentInKeyring:
                Terminal.note("note: the keyring holds another decoy secret; \(file.path) stays where it is.")
            }
        } catch {
            Terminal.note("note: the decoy secret stays in \(file.path): \(error)")
        }
    }
}
