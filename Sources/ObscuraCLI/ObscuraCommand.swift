import ArgumentParser
import Foundation
import ObscuraCrypto
import ObscuraKit

/// The `obscura` command: the root of every subcommand, and the one place errors turn
/// into messages and exit codes (README, "Exit codes").
public struct ObscuraCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "obscura",
        abstract: "An encrypted photo and video vault with Hidden Vaults.",
        subcommands: [
            InitCommand.self, CreateCommand.self, StatusCommand.self, PasswdCommand.self,
            DestroyCommand.self, DeviceSecretCommand.self, AddCommand.self, ListCommand.self, GetCommand.self,
            CatCommand.self, RemoveCommand.self, MoveCommand.self, FolderCommand.self, VerifyCommand.self,
            ExportCommand.self, ImportCommand.self, ServeCommand.self,
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
            Terminal.printError(error.description)
            if case .inUse = error { return CLIError.inUseExitCode }
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

    public init() {}

    /// The vault directory this invocation works on.
    func vaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let vault, !vault.isEmpty { return vault }
        if let env = environment["OBSCURA_VAULT"], !env.isEmpty { return env }
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        return data + "/obscura"
    }

    /// Opens the vault directory, taking its lock.
    func openDirectory(create: Bool = false) throws -> VaultDirectory {
        let path = vaultPath()
        return try VaultDirectory(path: path, create: create)
    }
}
