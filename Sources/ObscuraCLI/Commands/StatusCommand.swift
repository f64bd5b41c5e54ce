import ArgumentParser
import Foundation
import ObscuraKit
import ObscuraStore

/// `obscura status`: the directory's state, and with a password the vault's.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the vault directory, and with a password the unlocked vault's contents.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passwords: PasswordOptions

    @Flag(name: .long, help: "Ask for a password and report the vault it opens.")
    var unlock = false

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    /// The fields printed; snake_case in JSON.
    struct Report: Encodable {
        var vault: String
        var initialized: Bool
        var slots: Int
        /// 3 for version 3 slot files, 4 for the slot container; nil before `init`.
        var slotFormat: Int?
        /// "keyring" or "file" when the directory is a container.
        var outerKey: String?
        /// Whether the user confirmed a copy of the outer key (nil for a key file).
        var outerKeyConfirmed: Bool?
        var decoySecret: Bool
        var decoySecretLocation: String
        /// Why a decoy secret that is there cannot be used (a key file others can read,
        /// the wrong kind of key text); nil when it is usable or missing.
        var decoySecretProblem: String?
        var state: String
        var formatVersion: Int?
        var iterations: Int?
        /// The vault's password KDF in words (docs/FORMAT.md §2).
        var kdf: String?
        var items: Int?
        var folders: Int?
    }

    func run() throws {
        let unlocking = unlock || passwords.passwordStdin
        // Only a locked status reads a version 3 directory as it is: a vault is opened in
        // the version 4 container only.
        let directory = unlocking ? try global.openLiveDirectory() : try global.openDirectory()
        let secrets = directory.deviceSecrets
        var present = false
        var problem: String?
        do { present = try secrets.loadIfPresent() != nil } catch { problem = "\(error)" }
        var report = Report(
            vault: directory.path, initialized: directory.isInitialized,
            slots: directory.isInitialized ? try directory.slotCount() : 0,
            slotFormat: directory.isInitialized ? (directory.isContainer ? 4 : 3) : nil,
            outerKey: directory.openedWith.map { $0.keyringItem == nil ? "file" : "keyring" },
            outerKeyConfirmed: directory.openedWith?.confirmed,
            decoySecret: present, decoySecretLocation: secrets.location, decoySecretProblem: problem, state: "locked")
        if unlocking {
            let vault = try directory.unlock(password: try passwords.existing())
            defer { vault.lock() }
            try VaultSession.tell(vault.unlockChores)
            let counts = try vault.catalog.counts()
            report.state = "unlocked"
            report.formatVersion = Int(SlotFormat.version)
            if case .pbkdf2(let iterations) = vault.kdf { report.iterations = iterations }
            report.kdf = vault.kdf.description
            report.items = counts.items
            report.folders = counts.folders
        }
        if report.outerKeyConfirmed == false {
            Terminal.note("warning: " + KeySetup.unconfirmedNote)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            Terminal.output(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            Terminal.output("vault:         \(report.vault)")
            Terminal.output("slots:         \(report.slots)\(report.initialized ? "" : " (not initialised)")")
            if let format = report.slotFormat {
                Terminal.output("slot format:   \(format == 4 ? "version 4 container" : "version 3 (run `obscura migrate`)")")
            }
            if let source = report.outerKey {
                let confirmed = report.outerKeyConfirmed.map { $0 ? ", copy confirmed" : ", NO CONFIRMED COPY" } ?? ""
                let file = source == "file" ? global.outerKeyFilePath().map { " " + $0 } ?? "" : ""
                Terminal.output("outer key:     \(source)\(file)\(confirmed)")
            }
            let decoy = report.decoySecretProblem.map { "unusable: \($0)" } ?? (report.decoySecret ? "present" : "missing")
            Terminal.output("decoy secret:  \(decoy) (\(report.decoySecretLocation))")
            Terminal.output("state:         \(report.state)")
            if let kdf = report.kdf { Terminal.output("password KDF:  \(kdf)") }
            if let items = report.items, let folders = report.folders {
                Terminal.output("items:         \(items)")
                Terminal.output("folders:       \(folders)")
            }
        }
    }
}
