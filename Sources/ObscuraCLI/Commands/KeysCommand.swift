import ArgumentParser
import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraKeys

/// `obscura keys export|import|verify|rotate`: the directory's outer key and the decoy secret
/// (docs/FORMAT.md §4.3, §4.4).
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Export, import, verify or rotate the outer key and the decoy secret.",
        discussion: """
            The outer key opens the vault directory; without it no vault opens, whatever \
            the password. The decoy secret is needed only to create or destroy a vault and \
            to import an export; whoever holds it can count the vaults. Both live in the \
            keyring (or in the files given by --outer-key-file and --decoy-secret-file).
            """,
        subcommands: [Export.self, Import.self, Verify.self, Rotate.self])

    /// Which key a subcommand works on.
    enum Which: String, ExpressibleByArgument, CaseIterable {
        case outer, decoy

        var kind: KeyKind { self == .outer ? .outer : .decoy }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a key's text (OUTER-… or DECOY-…) to write down or move to another machine.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "outer or decoy.")
        var which: Which

        @Flag(help: "Print the key as 24 recovery words (BIP39 English) instead of its text.")
        var words = false

        func run() throws {
            let key = try KeysCommand.currentKey(which.kind, global: global).key
            Terminal.note(which == .outer
                ? "warning: with this key and a password, the vaults of this directory open anywhere; keep it apart from the directory and its backups."
                : "warning: whoever holds this secret can tell decoys from real vaults; store it apart from the vault directory.")
            Self.restrictRedirectedFile()
            Terminal.writeSecretLine(words ? KeyWords.encode(key) : KeyText.encode(key, kind: which.kind))
        }

        /// `keys export outer > file` gets a file the shell made with the umask's mode,
        /// often readable by everyone: such a file is made the user's alone before the
        /// key is written to it.
        static func restrictRedirectedFile() {
            var st = stat()
            guard fstat(1, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_mode & 0o077 != 0 else { return }
            if fchmod(1, 0o600) == 0 {
                Terminal.note("""
                    note: the file receiving the key could be read by others; it is now yours only (mode 0600), \
                    but a process that opened it before keeps its access: export into a new file in a private directory.
                    """)
            } else {
                Terminal.note("warning: the file receiving the key can be read by others; chmod 600 it.")
            }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read a key's text from standard input or the terminal and keep it in the keyring (or the named key file).")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "outer or decoy.")
        var which: Which

        @Flag(name: .long, help: "Replace a different key already present (the decoy secret, or an outer key file).")
        var force = false

        func run() throws {
            let key = try KeysCommand.decode(try KeysCommand.readText(which.kind), kind: which.kind)
            switch which {
            case .outer: try importOuter(key)
            case .decoy: try importDecoy(key)
            }
        }

        /// An outer key is checked against the directory before it is kept: a key that
        /// opens nothing here would only be one more candidate to try at every open.
        private func importOuter(_ key: SecureBytes) throws {
            let path = global.vaultPath()
            let opened = try VaultDirectory(path: path, deviceSecrets: global.decoySecrets(), outerKey: key)
            guard opened.isContainer else {
                throw CLIError("\(path) is not a version 4 directory; it has no outer key (see `obscura migrate`)")
            }
            if let file = global.outerKeyFilePath() {
                // A key file is often shared by name across commands: one that holds
                // another key may be the only copy of another directory's.
                if FileManager.default.fileExists(atPath: file) {
                    if try KeyFile.read(file, kind: .outer) == key {
                        Terminal.output("The outer key opens \(path) and is already in \(file); nothing changed.")
                        return
                    }
                    guard force else {
                        throw CLIError("\(file) holds another outer key, which may be the only copy of another directory's; pass --force to replace it")
                    }
                }
                try KeyFile.write(key, kind: .outer, to: file)
                Terminal.output("The outer key opens \(path); saved to \(file).")
                return
            }
            let keyring = KeySource.platformKeyring()
            if let present = try keyring.candidates(.outer).first(where: { $0.key == key }) {
                try keyring.markConfirmed(present.id, kind: .outer)
                Terminal.output("The outer key opens \(path) and is already in the keyring; nothing changed.")
                return
            }
            // Typed back or read from a copy: the copy exists, so it is confirmed.
            try keyring.store(key, kind: .outer, confirmed: true)
            Terminal.output("The outer key opens \(path); saved to the keyring.")
        }

        private func importDecoy(_ key: SecureBytes) throws {
            let secrets = global.decoySecrets()
            // Only a secret that is not there counts as absent: one that cannot be read
            // (a locked keyring, a key file with loose modes) must not be replaced unasked.
            let present = try secrets.loadIfPresent()
            if let present {
                if present == key {
                    Terminal.output("This decoy secret is already in \(secrets.location); nothing changed.")
                    return
                }
                guard force else {
                    throw CLIError("a different decoy secret is in \(secrets.location); decoys made with it could no longer be found. Pass --force to replace it")
                }
            }
            try secrets.save(key)
            Terminal.output("Decoy secret saved to \(secrets.location).")
            if present != nil {
                Terminal.note("""
                    note: the decoy secret that was in \(secrets.location) is gone: directories whose decoys \
                    were made with it can create or destroy vaults again only once it is imported (from its export).
                    """)
            }
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a written-down copy of a key: type a group of it back, or give its whole text on standard input.",
            discussion: """
                On a terminal, asks for one group of the key and its check group. Otherwise \
                reads a whole key text from standard input (a file holding a copy, say) and \
                checks that it is this key. A match marks the keyring's key as confirmed, \
                which silences the warning of `obscura status`.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "outer or decoy.")
        var which: Which

        func run() throws {
            let kind = which.kind
            let (key, item) = try KeysCommand.currentKey(kind, global: global)
            let matches: Bool
            if Terminal.stdinIsTerminal {
                matches = try KeySetup.typeBack(key, kind: kind)
            } else {
                guard let line = Terminal.readLine() else { throw CLIError("expected a key text on standard input") }
                matches = (try? KeysCommand.decode(line, kind: kind)) == key
            }
            guard matches else { throw CLIError("the copy does not match the \(kind.name)") }
            if let item { try KeySource.platformKeyring().markConfirmed(item, kind: kind) }
            Terminal.output("The copy matches the \(kind.name).")
        }
    }

    /// The key this invocation uses, and its keyring item when it came from the
    /// keyring: the directory's outer key (found by opening it), or the decoy secret
    /// wherever it lives.
    static func currentKey(_ kind: KeyKind, global: GlobalOptions) throws -> (key: SecureBytes, item: KeyringItem.ID?) {
        switch kind {
        case .decoy:
            let secrets = global.decoySecrets()
            if let keyring = secrets as? KeyringDecoySecret {
                let item = try keyring.newest()
                return (item.key, item.id)
            }
            return (try secrets.load(), nil)
        case .outer:
            let directory = try global.openDirectory()
            guard directory.isInitialized else { throw VaultError.notInitialized(directory.path) }
            guard let candidate = directory.openedWith else {
                throw CLIError("\(directory.path) is a version 3 directory and has no outer key yet; run `obscura migrate`")
            }
            return (candidate.key, candidate.keyringItem)
        }
    }

    struct Rotate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Re-seal the directory under a new outer key; the old one stops opening it.",
            discussion: """
                Needs no password. Copies of the directory taken before (backups, snapshots) \
                still open only with the old key, which is kept: in the keyring (removed only \
                when copies of both keys are confirmed), or with --outer-key-file in \
                FILE.replaced-TIME, while the new key waits in FILE.new and then replaces FILE. \
                If a rotation is cut short, run it again.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "outer (the decoy secret cannot be rotated yet).")
        var which: Which

        @Flag(help: """
            Without a terminal, rotate with the new outer key only in the keyring, and confirm \
            a copy of it later (`obscura keys export outer`, then `obscura keys verify outer`).
            """)
        var confirmKeyLater = false

        func run() throws {
            guard which == .outer else {
                throw CLIError("only the outer key can be rotated: a new decoy secret would need every decoy made again, which this version does not do")
            }
            let directory = try global.openDirectory()
            guard directory.isContainer, let old = directory.openedWith else {
                throw CLIError("\(directory.path) is a version 3 directory and has no outer key yet; run `obscura migrate`")
            }
            if let path = global.outerKeyFilePath() {
                try rotateFile(path, directory)
            } else {
                try rotateKeyring(directory, old: old)
            }
        }

        /// The new key waits beside the file and is read before it (a rotation cut short
        /// finishes with it); the old key is kept under a dated name, since other
        /// directories made with the same file, and copies of this one, still need it.
        private func rotateFile(_ path: String, _ directory: VaultDirectory) throws {
            let pending = KeyFile.rotationPath(for: path)
            let newKey = try KeyFile.createIfMissing(pending, kind: .outer, using: SystemRandom())
                ?? KeyFile.read(pending, kind: .outer)
            Terminal.note("Re-sealing \(try directory.slotCount()) slots under a new outer key...")
            try directory.rotateOuterKey(to: newKey)
            let oldKey = try KeyFile.read(path, kind: .outer)
            var retired: String?
            if oldKey != newKey {
                let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "")
                retired = try KeyFile.createUnique(oldKey, kind: .outer, at: path + ".replaced-" + stamp)
            }
            try KeyFile.finishRotation(of: path)
            Terminal.output("Rotated the outer key: \(path) holds the new one; keep a copy of it apart from the directory.")
            if let retired {
                Terminal.note("""
                    note: the old outer key is kept in \(retired): copies of this directory taken before, and any \
                    other directory made with \(path), open only with it. Delete it once nothing needs it.
                    """)
            }
        }

        /// As `migrate` does: the user confirms a copy of the new key before the directory
        /// is sealed under it (or says it will be done later). The new key is stored ranked
        /// above the old one, so that a rotation cut short is opened with it; the old one
        /// is removed only when a copy of it is confirmed too (copies taken before need it).
        private func rotateKeyring(_ directory: VaultDirectory, old: KeyCandidate) throws {
            let setup = KeySetup(global: global)
            guard Terminal.isInteractive || confirmKeyLater else {
                throw CLIError("""
                    rotating needs a terminal to show the new outer key and check your copy of it first; run it \
                    in a terminal, or pass --confirm-key-later (then `obscura keys export outer` and \
                    `obscura keys verify outer` right after)
                    """)
            }
            let new = try setup.newOuterKey()
            var confirmedNew = false
            if Terminal.isInteractive {
                confirmedNew = try setup.confirmExport(new)
                guard confirmedNew || confirmKeyLater else {
                    setup.discard(new)
                    Terminal.output("Nothing changed: rotate again once you can write the new outer key down.")
                    return
                }
            }
            if let keyring = new.keyring, let item = new.item {
                try keyring.touch(item, kind: .outer, at: KeyringItem.now() + 1)
            }
            Terminal.note("Re-sealing \(try directory.slotCount()) slots under a new outer key...")
            do {
                try directory.rotateOuterKey(to: new.key)
            } catch {
                // Both keys stay: the directory may now open with either.
                Terminal.note("note: the rotation did not finish; the keyring keeps the old and the new key. Run `obscura keys rotate outer` again.")
                throw error
            }
            Terminal.output("Rotated the outer key.")
            if !confirmedNew { Terminal.note("note: " + KeySetup.unconfirmedNote) }
            if confirmedNew, old.confirmed == true, let item = old.keyringItem, let keyring = new.keyring {
                try keyring.delete(item, kind: .outer)
                Terminal.output("Removed the old outer key from the keyring; your written copy of it opens copies of the directory taken before.")
            } else {
                Terminal.note("""
                    note: the old outer key stays in the keyring, since no copy of \(old.confirmed == true ? "the new key" : "it") \
                    is confirmed: copies of the directory taken before open only with it. While it is there, it also \
                    opens those copies if they are put back in place of the directory.
                    """)
            }
        }
    }

    /// A key text from the terminal (no echo) or one line of standard input.
    static func readText(_ kind: KeyKind) throws -> SecureBytes {
        if Terminal.stdinIsTerminal { return try Terminal.readSecret(prompt: "The \(kind.name)'s text (\(kind.word)-…) or its 24 words: ") }
        guard let line = Terminal.readLine() else { throw CLIError("expected the \(kind.name)'s text on standard input") }
        return line
    }

    /// The key a typed copy holds: its 24 recovery words (docs/FORMAT.md §4.3, "Words"),
    /// or its key text.
    static func decode(_ text: SecureBytes, kind: KeyKind) throws -> SecureBytes {
        KeyWords.looksLikeWords(text) ? try KeyWords.decode(text) : try KeyText.decode(text, kind: kind)
    }
}
