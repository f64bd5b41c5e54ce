import ArgumentParser
import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraKeys

/// The `obscura` command: the root of every subcommand, and the one place errors turn
/// into messages and exit codes (README, "Exit codes").
public struct ObscuraCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "obscura",
        abstract: "An encrypted photo and video vault with Hidden Vaults.",
        subcommands: [
            InitCommand.self, CreateCommand.self, StatusCommand.self, PasswdCommand.self, PasskeysCommand.self,
            DestroyCommand.self, KeysCommand.self, MigrateCommand.self, AddCommand.self, RenditionsCommand.self, ListCommand.self, GetCommand.self,
            CatCommand.self, NoteCommand.self, EndCommand.self, DropCommand.self, WatchCommand.self, RemoveCommand.self, TrashCommand.self, MoveCommand.self, FolderCommand.self, VerifyCommand.self,
            ExportCommand.self, ImportCommand.self, ServeCommand.self, BackupCommand.self, RecoveryKitCommand.self,
        ])

    @OptionGroup var global: GlobalOptions

    public init() {}

    /// Parses `arguments` (the process's own when nil), runs the command, and exits
    /// with the documented code.
    public static func main(_ arguments: [String]? = nil) -> Never {
        // Before any key or photo is in memory: no core file, no ptrace attach.
        ProcessHardening.apply()
        MemoryTuning.keepLargeBuffersOnHeap()
        let arguments = arguments ?? Array(CommandLine.arguments.dropFirst())
        LogLevel.bootstrap(arguments: arguments)
        let code = run(arguments)
        Foundation.exit(code)
    }

    /// Runs the command line and returns its exit code instead of exiting.
    public static func run(_ arguments: [String]) -> Int32 {
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
            return ExitCode.success.rawValue
        } catch let error as CLIError {
            Terminal.printError(error.description)
            return error.exitCode
        } catch let error as VaultError {
            if case .inUse = error {
                Terminal.printError(error.description + "; " + CLIError.inUseAdvice)
                return CLIError.inUseExitCode
            }
            Terminal.printError(error.description)
            return CLIError.failureExitCode
        } catch let error as ObscuraError {
            Terminal.printError(error.description)
            return CLIError.failureExitCode
        } catch {
            // Help, version and usage errors: argument-parser's own text and codes.
            let message = fullMessage(for: error)
            if !message.isEmpty {
                let code = exitCode(for: error)
                if code == .success { Terminal.output(message) } else { Terminal.printError(message, prefix: false) }
            }
            return exitCode(for: error).rawValue
        }
    }
}

/// Options every subcommand takes.
public struct GlobalOptions: ParsableArguments {
    /// The vault directory.
    @Option(name: .long, help: ArgumentHelp(
        "Vault directory (default: $OBSCURA_VAULT, else $XDG_DATA_HOME/obscura).", valueName: "dir"))
    var vault: String?

    /// Read before parsing by ``LogLevel/bootstrap(arguments:environment:)``; declared here
    /// so that every subcommand accepts it.
    @Flag(name: .long, help: "Log debug messages to standard error (or set OBSCURA_LOG_LEVEL).")
    var verbose = false

    /// The outer key's file, on a machine without a keyring.
    @Option(name: .long, help: ArgumentHelp(
        "Read the outer key from this file instead of the keyring (or set OBSCURA_OUTER_KEY_FILE); init and migrate create it.",
        valueName: "file"))
    var outerKeyFile: String?

    /// The decoy secret's file, on a machine without a keyring.
    @Option(name: .long, help: ArgumentHelp(
        "Read the decoy secret from this file instead of the keyring (or set OBSCURA_DECOY_SECRET_FILE); init creates it.",
        valueName: "file"))
    var decoySecretFile: String?

    public init() {}

    /// The vault directory this invocation works on.
    func vaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let vault, !vault.isEmpty { return vault }
        if let env = environment["OBSCURA_VAULT"], !env.isEmpty { return env }
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        return data + "/obscura"
    }

    /// The outer key file named by the option or the environment, if any.
    func outerKeyFilePath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        outerKeyFile.flatMap { $0.isEmpty ? nil : $0 } ?? environment["OBSCURA_OUTER_KEY_FILE"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Where the outer key comes from: the key file if one is named, else the keyring.
    func outerKeys() -> KeySource { KeySource.choose(keyFile: outerKeyFilePath()) }

    /// Where the decoy secret lives (docs/FORMAT.md §4.1, §4.3): the file named by the
    /// option or the environment; else the version 3 device-secret file where one is;
    /// else the keyring.
    func decoySecrets(environment: [String: String] = ProcessInfo.processInfo.environment) -> any DecoySecretSource {
        if let path = decoySecretFile.flatMap({ $0.isEmpty ? nil : $0 })
            ?? environment["OBSCURA_DECOY_SECRET_FILE"].flatMap({ $0.isEmpty ? nil : $0 }) {
            return AnnouncedDecoySecret(base: DecoySecretFile(path: path), warning: KeyFile.warning(path: path, kind: .decoy))
        }
        let deviceSecret = DeviceSecretStore.defaultStore(environment: environment)
        if deviceSecret.exists { return deviceSecret }
        return KeyringDecoySecret(keyring: KeySource.platformKeyring())
    }

    /// Opens the vault directory, taking its lock; the keyring (or key file) is read
    /// only when its slots are a container. Warns when the outer key came from a file,
    /// and when the slots are still version 3.
    func openDirectory(create: Bool = false, versionNote: Bool = true) throws -> VaultDirectory {
        let directory: VaultDirectory
        do {
            directory = try VaultDirectory.open(
                path: vaultPath(), deviceSecrets: decoySecrets(), outerKeys: outerKeys(), create: create)
        } catch KeyError.outerKeyMismatch where outerKeyFilePath() != nil {
            throw CLIError("""
                this directory needs another outer key: the one in \(outerKeyFilePath()!) does not open \
                \(vaultPath()); name the right file with --outer-key-file
                """)
        }
        if let failure = directory.passedOver {
            Terminal.note("""
                warning: an outer key tried first did not open this directory (\(failure)); it opened with \
                another, which may show the state from before a rotation that was cut short. Run \
                `obscura keys rotate outer` to finish it.
                """)
        }
        if directory.openedWith != nil, let path = outerKeyFilePath() {
            let pending = KeyFile.rotationPath(for: path)
            if FileManager.default.fileExists(atPath: pending) {
                let readable = (try? KeyFile.read(pending, kind: .outer)) != nil
                Terminal.note(readable
                    ? "note: \(pending) holds the key of an unfinished rotation; run `obscura keys rotate outer` to finish it."
                    : "warning: \(pending), left by a rotation, cannot be read as an outer key; it was passed over.")
            }
            Terminal.keyFileWarning(KeyFile.warning(path: path, kind: .outer))
        }
        if versionNote && directory.isInitialized && !directory.isContainer {
            Terminal.note("""
                note: this directory's slots are version 3, whose old copies (backups, snapshots, \
                free disk blocks) can tell real vaults from decoys; run `obscura migrate`.
                """)
        }
        return directory
    }

    /// Opens the vault directory for a command that opens or writes a vault: a version 3
    /// directory is first migrated into the version 4 container (``Version3Migration``),
    /// or the command is refused with nothing changed.
    func openLiveDirectory(create: Bool = false) throws -> VaultDirectory {
        let directory = try openDirectory(create: create, versionNote: false)
        try migrateIfVersion3(directory)
        return directory
    }

    /// Migrates `directory` when its slots are version 3, saying so first.
    func migrateIfVersion3(_ directory: VaultDirectory) throws {
        guard directory.isInitialized, !directory.isContainer else { return }
        Terminal.note("""
            This directory's slots are version 3, which is only read now, to be moved into the \
            version 4 container first: every vault keeps its contents and password (see \
            `obscura migrate --help`).
            """)
        guard try Version3Migration(global: self).run(directory, keyCheck: .onTerminal, asked: "this command") != nil else {
            throw CLIError("this command needs the directory migrated first; nothing was changed")
        }
    }
}

/// A decoy secret read from a plain file: says so each time it is read on a terminal
/// (§4.3).
struct AnnouncedDecoySecret: DecoySecretSource {
    let base: DecoySecretFile
    let warning: String

    var location: String { base.location }

    func load() throws -> SecureBytes {
        Terminal.keyFileWarning(warning)
        return try base.load()
    }

    func loadIfPresent() throws -> SecureBytes? {
        Terminal.keyFileWarning(warning)
        return try base.loadIfPresent()
    }

    /// Says always, terminal or not, when it creates the file (§4.3): a service's log
    /// is where its administrator learns that a new secret needs a copy.
    func loadOrCreate(using random: RandomSource) throws -> SecureBytes {
        if let secret = try base.loadIfPresent() {
            Terminal.keyFileWarning(warning)
            return secret
        }
        let secret = try base.loadOrCreate(using: random)
        Terminal.keyFileWarning(warning, always: true)
        Terminal.note("Created the decoy secret file \(base.location). Keep a copy of it (`obscura keys export decoy`) to create or destroy vaults elsewhere.")
        return secret
    }

    func save(_ secret: SecureBytes) throws { try base.save(secret) }
}
