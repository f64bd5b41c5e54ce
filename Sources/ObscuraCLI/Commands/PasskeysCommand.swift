import ArgumentParser
import Foundation
import ObscuraKit
import ObscuraKeys

/// `obscura passkeys list|remove`: the vault's passkeys (docs/FORMAT.md §9.8). A passkey
/// is enrolled in the gallery, where the browser talks to the authenticator; here the
/// owner sees and removes them, with the vault password, which stays the root.
struct PasskeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkeys", abstract: "List or remove the passkeys that unlock a vault.",
        subcommands: [List.self, Remove.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the vault's passkeys: name, the tag the authenticator shows, date.",
            aliases: ["ls"])

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passwords: PasswordOptions

        func run() throws {
            let session = try VaultSession(global: global, passwords: passwords)
            defer { session.vault.lock() }
            let passkeys = try session.vault.passkeys()
            guard !passkeys.isEmpty else {
                Terminal.output("This vault has no passkeys. Enrol one in the gallery: Settings, Unlock with a passkey.")
                return
            }
            for passkey in passkeys {
                let date = ISO8601DateFormatter.string(
                    from: Date(timeIntervalSince1970: Double(passkey.createdAt) / 1000), timeZone: .current,
                    formatOptions: [.withFullDate])
                let notes = [passkey.synced ? "synced" : nil, passkey.enrolledAfterPasswordChange ? nil : "before the last password change"]
                    .compactMap { $0 }
                Terminal.output("\(TerminalText.escaped(passkey.name))  Obscura · \(passkey.tag)  \(date)"
                                + (notes.isEmpty ? "" : "  (\(notes.joined(separator: ", ")))"))
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove a passkey: it no longer unlocks the vault.", aliases: ["rm"])

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passwords: PasswordOptions

        @Argument(help: "The passkey's name, as `obscura passkeys list` shows it.")
        var name: String

        func run() throws {
            let directory = try global.openLiveDirectory()
            let password = try passwords.existing()
            let vault = try directory.unlock(password: password)
            defer { vault.lock() }
            try VaultSession.tell(vault.unlockChores)
            // Trimmed as an enrolment stores it (a name pasted with a space still matches).
            let name = self.name.trimmingCharacters(in: .whitespacesAndNewlines)
            // The tag names the credential among the authenticator's "Obscura" ones (UX5).
            let tag = try vault.passkeys().first { $0.name == name }?.tag
            do {
                try vault.removePasskey(named: name, password: password)
            } catch VaultError.noSuchPasskey {
                throw CLIError("this vault has no passkey named \"\(TerminalText.escaped(name))\": `obscura passkeys list` shows them")
            }
            Terminal.output("""
                Removed passkey \(TerminalText.escaped(name)). It no longer unlocks this vault. \
                In your authenticator's settings, delete "Obscura · \(tag ?? "?")" too (listed under localhost, \
                or the name you open the gallery by), if it is still listed.
                """)
            VaultSession.tellCover(vault)
        }
    }
}
