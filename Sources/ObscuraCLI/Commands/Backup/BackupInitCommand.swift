import ArgumentParser
import Foundation
import ObscuraCrypto
import ObscuraKit

/// `obscura backup init REPO`: sets up this directory's backups to a new repository
/// under a generated password, or to an existing one under its password.
struct BackupInitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Set up backups of this vault directory to REPO (made if new), under a generated backup password.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var repositoryOptions: RepositoryOptions
    @OptionGroup var passwords: PasswordOptions

    @Argument(help: "The restic repository: a path, sftp:host:/path, rest:URL, rclone:remote:path, ...")
    var repository: String

    @Option(help: ArgumentHelp("How long after the last change `obscura serve` backs up (90s, 10m, 1h, off).", valueName: "duration"))
    var after = BackupDuration(seconds: BackupConfiguration.defaultAfterSeconds)

    @Option(name: .customLong("backup-password-file"), help: ArgumentHelp(
        "Keep the backup password in this new file (mode 0600) instead of the keyring (or set OBSCURA_BACKUP_PASSWORD_FILE).",
        valueName: "file"))
    var passwordFile: String?

    @Flag(help: "Replace this directory's current backup set-up (its repository keeps its snapshots).")
    var replace = false

    func run() throws {
        let setup = BackupSetup(global: global)
        let directory = setup.directory
        guard let slots = try? FileManager.default.contentsOfDirectory(atPath: directory + "/data"), !slots.isEmpty else {
            throw VaultError.notInitialized(directory)
        }
        let previous = try setup.store.load(directory: directory)
        if let previous, !replace { throw BackupError.alreadyConfigured(repository: previous.repository.shown) }
        let repository = try BackupRepository(self.repository, options: repositoryOptions.options)

        var password = BackupPassword.generate()
        var kept = try keep(BackupPassword.canonical(password))
        var created = false
        do {
            let engine = BackupEngine(repository: repository, password: BackupPassword.canonical(password))
            Terminal.note("Setting up backups of \(directory) to \(repository.shown)...")
            created = try engine.create()
            if !created {
                // An existing repository (this directory's, on a new machine): its own password.
                discard(kept)
                password = try passwords.existing("A repository exists at \(repository.shown); its backup password: ")
                try BackupEngine(repository: repository, password: BackupPassword.canonical(password)).checkPassword()
                kept = try keep(BackupPassword.canonical(password))
            }
            let configuration = BackupConfiguration(directory: directory, repository: repository, password: kept, afterSeconds: after.seconds)
            try setup.store.save(configuration)
        } catch {
            discard(kept)
            throw error
        }
        if let previous, case let .keyring(id) = previous.password, previous.password != kept {
            try? BackupPasswordKeyring.platform().delete(id: id)
        }
        if created {
            Terminal.output("Created the restic repository \(repository.shown).")
            Terminal.output("""

                Backup password (shown once). Write it down and keep it apart from this machine: \
                restoring on a new machine needs it, with the outer key and your vault password.
                """)
            Terminal.writeSecretLine(password, indent: "  ")
            Terminal.output("")
        } else {
            Terminal.output("Joined the existing restic repository \(repository.shown).")
        }
        Terminal.output("The backup password is kept in \(kept.shown). `obscura backup run` backs up now; `obscura serve` backs up \(BackupDuration.spoken(after.seconds) == "off" ? "only when asked" : BackupDuration.spoken(after.seconds) + " after the last change").")
    }

    /// Keeps `password` in the named file, or else the keyring.
    private func keep(_ password: SecureBytes) throws -> BackupConfiguration.PasswordLocation {
        if let path = passwordFilePath() {
            let path = BackupConfigurationStore.canonical(path)
            Terminal.note(BackupPassword.fileWarning(path: path))
            try BackupPassword.createFile(path, password: password)
            return .file(path)
        }
        return .keyring(try BackupPasswordKeyring.platform().store(password))
    }

    /// Removes a password this run kept.
    private func discard(_ location: BackupConfiguration.PasswordLocation) {
        switch location {
        case let .keyring(id): try? BackupPasswordKeyring.platform().delete(id: id)
        case let .file(path): unlink(path)
        }
    }

    private func passwordFilePath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        passwordFile.flatMap { $0.isEmpty ? nil : $0 } ?? environment["OBSCURA_BACKUP_PASSWORD_FILE"].flatMap { $0.isEmpty ? nil : $0 }
    }
}
