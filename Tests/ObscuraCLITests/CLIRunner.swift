import Foundation

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
        let process = Process()
        process.executableURL = Self.productsDirectory.appendingPathComponent("obscura")
        process.arguments = (vaultOption ? ["--vault", vault] : []) + args
        var env = ["XDG_CONFIG_HOME": config, "HOME": root, "PATH": "/usr/bin:/bin"]
        env.merge(environment) { $1 }
        process.environment = env
        let input = Pipe(), output = Pipe(), error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(code: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                      stderr: String(decoding: err, as: UTF8.self))
    }

    /// Files in a directory under the vault, sorted.
    func files(_ sub: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: vault + "/" + sub).sorted()
    }
}
