import Foundation
import Testing

/// The order of a drop's durable steps (docs/FORMAT.md §10.5), seen in the system calls of
/// a real `obscura drop` under strace: a power cut cannot be simulated here, but what
/// survives one follows from these calls and their order. The first drop makes `inbox/`
/// and syncs the vault directory that holds its entry (without that, a power cut can lose
/// the directory and the drop in it, commit 1f09d60); every blob is synced under its
/// temporary name before it is renamed into place, and the inbox is synced after.
@Suite struct DropInboxDurabilityTests {
    /// `obscura drop` of `file` under strace; its calls that name files, one per line,
    /// with descriptors shown as their paths (`-y`).
    static func traced(_ cli: CLIRunner, code: String, file: String) throws -> [String] {
        let strace = "/usr/bin/strace"
        // scripts/setup installs strace; a machine without it fails here rather than skip.
        try #require(FileManager.default.isExecutableFile(atPath: strace), "strace is missing: run scripts/setup")
        let log = cli.root + "/strace-\(UUID().uuidString).txt"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: strace)
        process.arguments = ["-f", "-qq", "-y", "-o", log,
                             "-e", "trace=mkdir,mkdirat,fsync,fdatasync,rename,renameat,renameat2,link,linkat",
                             CLIRunner.productsDirectory.appendingPathComponent("obscura").path,
                             "--vault", cli.vault, "drop", "--code", code, file]
        process.environment = cli.processEnvironment()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    #if os(Linux)
    static let traceable = true
    #else
    static let traceable = false
    #endif

    @Test(.enabled(if: traceable, "strace is Linux's")) func aDropIsSyncedBeforeItIsNamedAndItsDirectoriesAfter() throws {
        let cli = try CLIRunner()
        try cli.run(["init"])
        #expect(try cli.run(["create", "--password-stdin", "--allow-weak-password"], stdin: "pw\n").code == 0)
        let code = try cli.run(["drop", "code", "--password-stdin"], stdin: "pw\n").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let file = cli.root + "/photo.txt"
        try Data("a dropped file".utf8).write(to: URL(fileURLWithPath: file))
        let vault = URL(fileURLWithPath: cli.vault).resolvingSymlinksInPath().path
        let inbox = vault + "/inbox"

        let first = try Self.traced(cli, code: code, file: file)
        func index(_ what: String, after start: Int = 0, _ matches: (String) -> Bool) throws -> Int {
            try #require(first.indices.first { $0 >= start && matches(first[$0]) }, "no \(what) in \(first)")
        }
        let made = try index("mkdir of the inbox") { $0.contains("mkdir") && $0.contains("\"\(inbox)\"") && $0.hasSuffix("= 0") }
        // The vault directory's own sync, after the inbox's entry was made in it.
        _ = try index("sync of the vault directory", after: made) { $0.contains("fsync(") && $0.contains("<\(vault)>") }
        let synced = try index("sync of the temporary", after: made) { $0.contains("fsync(") && $0.contains("<\(inbox)/.pending-") }
        let named = try index("rename into place", after: synced) {
            ($0.contains("rename") || $0.contains("link")) && $0.contains(".data.enc") && $0.hasSuffix("= 0")
        }
        _ = try index("sync of the inbox", after: named) { $0.contains("fsync(") && $0.contains("<\(inbox)>") }

        // A second drop finds the inbox: no new entry in the vault directory to sync.
        let second = try Self.traced(cli, code: code, file: file)
        #expect(!second.contains { $0.contains("fsync(") && $0.contains("<\(vault)>") }, "\(second)")
        #expect(second.contains { $0.contains("fsync(") && $0.contains("<\(inbox)>") }, "\(second)")
    }
}
