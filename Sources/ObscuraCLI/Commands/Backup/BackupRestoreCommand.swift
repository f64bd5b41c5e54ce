import ArgumentParser
import Foundation
import ObscuraCrypto
import ObscuraKit

/// `obscura backup restore SNAPSHOT --to DIR`: a snapshot as a new vault directory.
/// With `--repo` it reads a repository this machine has no set-up for (a new machine)
/// and asks for the backup password.
struct BackupRestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restore a snapshot (latest, or an id) as a new vault directory; never writes over one.",
        discussion: """
            On a new machine: obscura backup restore latest --repo REPO --to DIR asks for the \
            backup password. The restored directory opens with the same outer key (import it \
            with `obscura keys import outer`) and the same vault passwords.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var repositoryOptions: RepositoryOptions
    @OptionGroup var passwords: PasswordOptions

    @Argument(help: "`latest`, or a snapshot id from `obscura backup list`.")
    var snapshot: String

    @Option(help: ArgumentHelp("The new vault directory: must not exist, or be empty.", valueName: "dir"))
    var to: String

    @Option(help: ArgumentHelp("Read this repository (and ask for its password) instead of this directory's set-up.", valueName: "repo"))
    var repo: String?

    func run() throws {
        let access = BackupAccess(global: global, repo: repo, options: repositoryOptions, passwords: passwords)
        let engine = try access.engine()
        let bar = BackupProgressBar(label: "Restoring")
        let target = BackupConfigurationStore.canonical(to)
        Terminal.note("Restoring \(snapshot) from \(engine.repository.shown) to \(target)...")
        // `latest` of this directory's set-up is its own latest, in a shared repository too.
        let path = repo == nil ? BackupSetup(global: global).directory : nil
        let bytes = try engine.restore(snapshot, to: to, path: path, progress: { bar.update($0) }, cancel: .onInterrupt())
        bar.bar.finish()
        Terminal.output("Restored \(Format.bytes(bytes)) to \(target), verified against the repository.")
        Terminal.output("""
            It opens with the directory's outer key and your vault passwords: \
            obscura --vault \(target) status --unlock
            """)
    }
}

/// The repository a read-only subcommand works on: this directory's set-up, or one
/// named with `--repo`, whose password is then asked for.
struct BackupAccess {
    let global: GlobalOptions
    let repo: String?
    let options: RepositoryOptions
    let passwords: PasswordOptions

    func engine() throws -> BackupEngine {
        let setup = BackupSetup(global: global)
        guard let repo else { return try setup.engine(try setup.configuration()) }
        let repository = try BackupRepository(repo, options: options.options)
        let typed = try passwords.existing("Backup password for \(repository.shown): ")
        return BackupEngine(repository: repository, password: BackupPassword.canonical(typed))
    }
}
