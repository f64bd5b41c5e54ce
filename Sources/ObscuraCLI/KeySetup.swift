import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraKeys

/// Making a directory's outer key (`init`, `migrate`, `serve` on first run) and
/// confirming that the user wrote its export down (docs/FORMAT.md §4.3).
struct KeySetup {
    let global: GlobalOptions

    /// A new outer key and where it was kept.
    struct NewKey {
        let key: SecureBytes
        /// The keyring and item holding it; nil when it lives in a key file.
        let keyring: (any Keyring)?
        let item: KeyringItem.ID?
        /// The key file this run created for it, if any.
        var createdFile: String? = nil
    }

    /// Draws a new outer key into the keyring, or into the key file when one is named.
    /// A key file that already exists is used as it is: a server's administrator may have
    /// made it beforehand.
    func newOuterKey() throws -> NewKey {
        if let path = global.outerKeyFilePath() {
            Terminal.keyFileWarning(KeyFile.warning(path: path, kind: .outer), always: true)
            if let key = try KeyFile.createIfMissing(path, kind: .outer, using: SystemRandom()) {
                Terminal.note("""
                    Created the outer key file \(path). Keep a copy of it apart from the directory and \
                    its backups: without it no vault in the directory opens.
                    """)
                return NewKey(key: key, keyring: nil, item: nil, createdFile: path)
            }
            Terminal.note("""
                note: using the outer key already in \(path); every directory made with this file \
                shares one outer key. Name a new file to give this directory its own.
                """)
            return NewKey(key: try KeyFile.read(path, kind: .outer), keyring: nil, item: nil)
        }
        let keyring = KeySource.platformKeyring()
        let key = SecureBytes(randomCount: KeyKind.byteCount)
        let item = try keyring.store(key, kind: .outer, confirmed: false)
        return NewKey(key: key, keyring: keyring, item: item)
    }

    /// Refuses an outer key equal to the decoy secret (one file named for both, or a
    /// version 3 device-secret file given as the outer key file): a holder of D, who
    /// can only count vaults, would then also hold O.
    func refuseOuterKeyEqualToDecoySecret(_ new: NewKey, _ directory: VaultDirectory) throws {
        guard let decoy = try? directory.deviceSecrets.loadIfPresent(), decoy == new.key else { return }
        throw CLIError("""
            the outer key and the decoy secret are the same key (\(global.outerKeyFilePath() ?? "the keyring") \
            and \(directory.deviceSecrets.location)); give each its own file
            """)
    }

    /// What the gallery is told of a key this run made: in the keyring and not yet
    /// confirmed, or in the key file at `path`.
    static func custody(of new: NewKey, path: String?) -> OuterKeyCustody? {
        if let keyring = new.keyring, let item = new.item {
            return OuterKeyCustody(key: new.key, keyring: keyring, item: item, confirmed: false)
        }
        return path.map { OuterKeyCustody(key: new.key, keyFile: $0) }
    }

    /// Removes a key made for a directory that was then not made after all.
    func discard(_ new: NewKey) {
        if let keyring = new.keyring, let item = new.item { try? keyring.delete(item, kind: .outer) }
        if let path = new.createdFile { unlink(path) }
    }

    /// On a terminal, shows the key's text and asks for a group of it back; a right
    /// answer marks the keyring item confirmed. Elsewhere (or when the user skips), says
    /// how to confirm later: `status` warns until then.
    ///
    /// - Returns: whether a copy is confirmed now; true for a key file, itself the copy.
    @discardableResult
    func confirmExport(_ new: NewKey) throws -> Bool {
        guard let keyring = new.keyring, let item = new.item else { return true }
        guard Terminal.isInteractive else {
            Terminal.note("note: " + Self.unconfirmedNote)
            return false
        }
        while true {
            Terminal.output("""

                The outer key opens this directory. It is in your keyring; if the keyring is \
                lost (a new machine, a reinstall), only this copy opens your vaults. Write it \
                down and keep it apart from the directory and its backups:

                """)
            Terminal.writeSecretLine(KeyText.encode(new.key, kind: .outer), indent: "  ")
            guard Terminal.confirm(prompt: "\nPress Enter once it is written down (or type \"later\"): ", answer: "") else {
                Terminal.clearScreen()
                Terminal.note("note: " + Self.unconfirmedNote)
                return false
            }
            Terminal.clearScreen()
            if try Self.typeBack(new.key, kind: .outer) {
                try keyring.markConfirmed(item, kind: .outer)
                Terminal.output("Confirmed: the outer key's copy matches.")
                return true
            }
            Terminal.output("That did not match \(TypeBackCheck.attemptsBeforeRedisplay) times; here is the key again.")
        }
    }

    /// Asks on the terminal for a random body group and the check group of `key`, up
    /// to ``TypeBackCheck/attemptsBeforeRedisplay`` times. True on a right answer.
    static func typeBack(_ key: SecureBytes, kind: KeyKind) throws -> Bool {
        let check = TypeBackCheck()
        for _ in 0..<TypeBackCheck.attemptsBeforeRedisplay {
            let typed = try Terminal.readSecret(
                prompt: "Type group \(check.group) of the \(kind.name) (counting after \(kind.word)) and its last group: ")
            if check.matches(typed, key: key, kind: kind) { return true }
            Terminal.note("That does not match.")
        }
        return false
    }

    static let unconfirmedNote = """
        the outer key is in your keyring, but no copy of it is confirmed: run \
        `obscura keys export outer`, write it down, then `obscura keys verify outer`.
        """
}
