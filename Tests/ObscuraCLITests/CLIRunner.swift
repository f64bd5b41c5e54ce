import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraKeys

/// Runs the built `obscura` binary in a temporary home, as a person would.
final class CLIRunner {
    let root: String
    var vault: String { root + "/vault" }
    var config: String { root + "/config" }
    /// The outer key file every command is pointed at (`OBSCURA_OUTER_KEY_FILE`): the
    /// test machine has no keyring unless a test starts one.
    var outerKeyFile: String { root + "/outer.key" }
    /// The decoy secret file (`OBSCURA_DECOY_SECRET_FILE`), for the same reason.
    var decoySecretFile: String { root + "/decoy.key" }
    /// Variables every command of this runner gets on top of the ones above (a test's
    /// own, such as the backup tests' cache and password file).
    var environment: [String: String] = [:]
    /// Whether `init` makes the directory at the production KDF cost. By default it takes
    /// ``testKDFIterations`` (the hidden `--test-kdf-iterations`), since these tests are
    /// about commands, not the KDF: on a debug build one production derivation is about
    /// 0.4 s, and every command sweeps ten slots. The tests that are about the default
    /// cost set this, and say so.
    var productionKDF = false
    /// A command `obscura` runs under, given obscura's path and arguments after its own
    /// (`unshare … sh -c '…; exec "$0" "$@"'`); none by default.
    var launcher: [String] = []
    /// The PBKDF2 count of a test directory's slots.
    static let testKDFIterations = 1000

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("obscura-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    struct Output {
        var code: Int32
        var stdout: String
        var stderr: String
    }

    /// The directory holding the test bundle and the package's executables.
    static var productsDirectory: URL {
        #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        fatalError("no .xctest bundle")
        #else
        return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        #endif
    }

    /// Runs `obscura --vault <vault> args...` with `stdin` as standard input.
    @discardableResult
    func run(_ args: [String], stdin: String = "", vaultOption: Bool = true, environment: [String: String] = [:]) throws -> Output {
        let running = try start(args, vaultOption: vaultOption, environment: environment)
        running.send(stdin)
        return running.finish()
    }

    /// Starts `obscura --vault <vault> args...` without waiting for it: its standard input
    /// stays open until ``Running/finish()``, so a test can hold it mid-command.
    func start(_ args: [String], vaultOption: Bool = true, environment: [String: String] = [:]) throws -> Running {
        let process = Process()
        let obscura = Self.productsDirectory.appendingPathComponent("obscura")
        // `init` without --kdf makes the directory at the test cost (see productionKDF).
        let testKDF = !productionKDF && args.first == "init" && !args.contains("--kdf")
            ? ["--test-kdf-iterations", String(Self.testKDFIterations)] : []
        let arguments = (vaultOption ? ["--vault", vault] : []) + args + testKDF
        if let launcher = launcher.first {
            process.executableURL = URL(fileURLWithPath: launcher)
            process.arguments = Array(self.launcher.dropFirst()) + [obscura.path] + arguments
        } else {
            process.executableURL = obscura
            process.arguments = arguments
        }
        process.environment = processEnvironment(environment)
        return try Running(process)
    }

    /// The variables a command of this runner gets, with `extra` on top.
    func processEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
        var env = ["XDG_CONFIG_HOME": config, "HOME": root, "PATH": "/usr/bin:/bin", "OBSCURA_OUTER_KEY_FILE": outerKeyFile,
                   "OBSCURA_DECOY_SECRET_FILE": decoySecretFile]
        env.merge(self.environment) { $1 }
        env.merge(extra) { $1 }
        return env
    }

    /// An `obscura` process that is running.
    final class Running {
        let process: Process
        private let input = Pipe(), output = Pipe(), error = Pipe()

        init(_ process: Process) throws {
            self.process = process
            process.standardInput = input
            process.standardOutput = output
            process.standardError = error
            try process.run()
        }

        /// Writes `text` to its standard input.
        func send(_ text: String) {
            input.fileHandleForWriting.write(Data(text.utf8))
        }

        /// Standard output read by ``waitForOutput(_:timeout:)``.
        private var seen = Data()

        /// Reads its standard output until `text` has appeared (true) or the output ended
        /// (false). Should neither happen within `timeout` seconds, the process is
        /// terminated, which ends the output.
        func waitForOutput(_ text: String, timeout: TimeInterval = 120) -> Bool {
            let watchdog = DispatchWorkItem { [process] in if process.isRunning { process.terminate() } }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
            defer { watchdog.cancel() }
            while true {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { return false }
                seen.append(chunk)
                if String(decoding: seen, as: UTF8.self).contains(text) { return true }
            }
        }

        /// Closes its standard input and waits for it to exit.
        func finish() -> Output {
            try? input.fileHandleForWriting.close()
            let out = seen + output.fileHandleForReading.readDataToEndOfFile()
            let err = error.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return Output(code: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                          stderr: String(decoding: err, as: UTF8.self))
        }
    }

    /// Initialises the vault directory through the library, a version 4 container under
    /// the key in ``outerKeyFile`` (made if missing), with few PBKDF2 rounds, and with
    /// `password` also creates a vault, so that the commands under test unlock in
    /// milliseconds (the binary uses the count each header holds). The directory is
    /// released before this returns.
    func initializeQuickly(password: String? = nil, iterations: Int = 1000) throws {
        let key = try KeyFile.createIfMissing(outerKeyFile, kind: .outer, using: SystemRandom())
            ?? KeyFile.read(outerKeyFile, kind: .outer)
        let directory = try VaultDirectory(path: vault, deviceSecrets: deviceSecrets, create: true)
        try directory.initialize(iterations: iterations, outerKey: key)
        if let password {
            try directory.createVault(password: SecureBytes(copying: Array(password.utf8)), iterations: iterations).lock()
        }
    }

    /// The decoy secret the binary uses here: ``decoySecretFile``.
    var deviceSecrets: DecoySecretFile { DecoySecretFile(path: decoySecretFile) }

    /// Opens the vault directory through the library with the key in ``outerKeyFile``,
    /// as the binary does.
    func openDirectory() throws -> VaultDirectory {
        try VaultDirectory.open(path: vault, deviceSecrets: deviceSecrets, outerKeys: .file(outerKeyFile))
    }

    /// Files in a directory under the vault, sorted.
    func files(_ sub: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: vault + "/" + sub).sorted()
    }

    /// The inbox's blobs and temporaries: not the intakes' receipts (FORMAT.md §10.6),
    /// which say that a blob was taken and hold nothing.
    func inbox() throws -> [String] {
        try files(DropFormat.inboxDirectory).filter { !$0.hasPrefix(DropInbox.receiptPrefix) }
    }
}
