import ArgumentParser
import Foundation
import ObscuraKit

/// `obscura backup list`: the snapshots in the repository.
struct BackupListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the snapshots in the repository.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var repositoryOptions: RepositoryOptions
    @OptionGroup var passwords: PasswordOptions

    @Option(help: ArgumentHelp("Read this repository (and ask for its password) instead of this directory's set-up.", valueName: "repo"))
    var repo: String?

    @Flag(help: "Print one JSON array of {id, short_id, time, hostname, paths}.")
    var json = false

    func run() throws {
        let engine = try BackupAccess(global: global, repo: repo, options: repositoryOptions, passwords: passwords).engine()
        let snapshots = try engine.snapshots()
        if json {
            let rows = snapshots.map { ["id": $0.id, "short_id": $0.shortID, "time": $0.time, "hostname": $0.hostname, "paths": $0.paths] as [String: Any] }
            let data = try JSONSerialization.data(withJSONObject: rows, options: [.sortedKeys, .withoutEscapingSlashes])
            Terminal.output(String(decoding: data, as: UTF8.self))
            return
        }
        if snapshots.isEmpty {
            Terminal.output("No snapshots in \(engine.repository.shown) yet.")
            return
        }
        for snapshot in snapshots {
            Terminal.output("\(snapshot.shortID)  \(snapshot.time.prefix(19).replacingOccurrences(of: "T", with: " "))  \(TerminalText.escaped(snapshot.hostname))  \(TerminalText.escaped(snapshot.paths.joined(separator: ", ")))")
        }
        Terminal.output("\(snapshots.count) snapshot\(snapshots.count == 1 ? "" : "s").")
    }
}

/// `obscura backup check [--read-data]`: restic's check of the repository.
struct BackupCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check", abstract: "Check the repository's structure (and with --read-data, every byte of it).")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var repositoryOptions: RepositoryOptions
    @OptionGroup var passwords: PasswordOptions

    @Option(help: ArgumentHelp("Check this repository (and ask for its password) instead of this directory's set-up.", valueName: "repo"))
    var repo: String?

    @Flag(name: .customLong("read-data"), help: "Read and verify every pack file (downloads the whole repository).")
    var readData = false

    func run() throws {
        let engine = try BackupAccess(global: global, repo: repo, options: repositoryOptions, passwords: passwords).engine()
        Terminal.note("Checking \(engine.repository.shown)\(readData ? ", reading every pack" : "")...")
        let report = try engine.check(readData: readData)
        if report.passed {
            Terminal.output("No errors in \(engine.repository.shown).")
            return
        }
        for line in report.lines { Terminal.output(TerminalText.escaped(line)) }
        throw CLIError("the repository \(engine.repository.shown) has errors (above); snapshots whose data is whole still restore")
    }
}

/// `obscura backup forget`: thins the snapshots by a retention policy and prunes.
struct BackupForgetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Forget snapshots beyond the retention policy (default: 7 daily, 4 weekly, 12 monthly) and prune their data.")

    @OptionGroup var global: GlobalOptions

    @Option(name: .customLong("keep-daily"), help: "Days to keep the last snapshot of.")
    var daily = 7
    @Option(name: .customLong("keep-weekly"), help: "Weeks to keep the last snapshot of.")
    var weekly = 4
    @Option(name: .customLong("keep-monthly"), help: "Months to keep the last snapshot of.")
    var monthly = 12

    func validate() throws {
        guard daily >= 0, weekly >= 0, monthly >= 0, daily + weekly + monthly > 0 else {
            throw ValidationError("keep at least one snapshot: the --keep-* counts are not negative and not all 0")
        }
    }

    func run() throws {
        let setup = BackupSetup(global: global)
        let engine = try setup.engine(try setup.configuration())
        let (kept, removed) = try engine.forget(.init(daily: daily, weekly: weekly, monthly: monthly))
        Terminal.output("Kept \(kept) snapshot\(kept == 1 ? "" : "s"), forgot \(removed)\(removed > 0 ? " and pruned their data" : "").")
    }
}
