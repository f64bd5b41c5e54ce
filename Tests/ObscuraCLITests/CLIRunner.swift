import Foundation
import ObscuraCrypto
import ObscuraKit

/// Runs the built `obscura` binary in a temporary home, as a person would.
final class CLIRunner {
    let root: String
    var vault: String { root + "/vault" }
    var config: String { root + "/config" }

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
        process.executableURL = Self.productsDirectory.appendingPathComponent("obscura")
        process.arguments = (vaultOption ? ["--vault", vault] : []) + args
        var env = ["XDG_CONFIG_HOME": config, "HOME": root, "PATH": "/usr/bin:/bin"]
        env.merge(environment) { $1 }
        process.environment = env
        return try Running(process)
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

        /// Closes its standard input and waits for it to exit.
        func finish() -> Output {
            try? input.fileHandleForWriting.close()
            let out = output.fileHandleForReading.readDataToEndOfFile()
            let err = error.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return Output(code: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                          stderr: String(decoding: err, as: UTF8.self))
        }
    }

    /// Initialises the vault directory through the library with few PBKDF2 rounds, and
    /// with `password` also creates a vault, so that the commands under test unlock in
    /// milliseconds (the binary uses the count each header holds). The directory is
    /// released before this returns.
    func initializeQuickly(password: String? = nil, iterations: Int = 1000) throws {
        let directory = try VaultDirectory(
            path: vault, deviceSecrets: DeviceSecretStore(path: config + "/obscura/device-secret"), create: true)
        try directory.initialize(iterations: iterations)
        if let password {
            try directory.createVault(password: SecureBytes(copying: Array(password.utf8)), iterations: iterations).lock()
        }
    }

    /// Files in a directory under the vault, sorted.
    func files(_ sub: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: vault + "/" + sub).sorted()
    }
}
