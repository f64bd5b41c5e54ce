import ArgumentParser
import Foundation
import ObscuraKit

/// `obscura backup run`: one snapshot of the whole directory now, under its lock. Safe
/// from cron or a systemd timer: it needs no password typed, and exits 75 at once when
/// another process (`obscura serve`, which backs up by itself) holds the directory.
struct BackupRunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Back up the vault directory now.")

    @OptionGroup var global: GlobalOptions

    @Option(name: .customLong("give-up-after"), help: ArgumentHelp(
        "Stop when the repository has not answered for this long (90s, 2m); the next run resumes.", valueName: "duration"))
    var giveUpAfter = BackupDuration(seconds: 120)

    func run() throws {
        let setup = BackupSetup(global: global)
        let configuration = try setup.configuration()
        let bar = BackupProgressBar(label: "Backing up")
        let started = Date()
        let cancel = BackupCancellation.onInterrupt()
        do {
            let summary = try VaultDirectory.backUp(
                path: setup.directory, engine: { try setup.engine(configuration, giveUpSeconds: Double(max(giveUpAfter.seconds, 1))) },
                progress: bar.update, cancel: cancel)
            bar.bar.finish()
            try? setup.store.saveLastBackup(BackupRecord(
                finished: Date().timeIntervalSince1970, succeeded: true, snapshot: summary.snapshot,
                addedBytes: summary.addedBytes, seconds: summary.seconds), directory: setup.directory)
            Terminal.output("""
                Snapshot \(summary.snapshot) of \(setup.directory): \(summary.filesNew) new, \(summary.filesChanged) changed, \
                \(summary.filesUnmodified) unchanged files (\(Format.bytes(summary.totalBytes))); \
                \(Format.bytes(summary.addedBytes)) added to \(configuration.repository.shown) in \(String(format: "%.1f", summary.seconds)) s.
                """)
        } catch {
            bar.bar.finish()
            if case VaultError.inUse = error {
                let serve = configuration.afterSeconds == 0
                    ? "when asked in its Settings"
                    : "by itself \(BackupDuration.spoken(configuration.afterSeconds)) after a change"
                throw CLIError("""
                    vault directory \(setup.directory) is in use by another obscura process; nothing was backed up \
                    (if it is `obscura serve`, it backs the directory up \(serve))
                    """, exitCode: CLIError.inUseExitCode)
            }
            try? setup.store.saveLastBackup(BackupRecord(
                finished: Date().timeIntervalSince1970, succeeded: false, seconds: Date().timeIntervalSince(started),
                message: "\(error)"), directory: setup.directory)
            throw CLIError("\(error); the vault directory is untouched, and the next run resumes")
        }
    }
}

/// `obscura backup status`: where backups go and how the last one went.
struct BackupStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show this directory's backup set-up and its last backup.")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let setup = BackupSetup(global: global)
        let configuration = try setup.configuration()
        Terminal.output("Directory:    \(configuration.directory)")
        Terminal.output("Repository:   \(configuration.repository.shown)")
        Terminal.output("Password in:  \(configuration.password.shown)")
        Terminal.output("Serve backs up: \(configuration.afterSeconds == 0 ? "only when asked" : BackupDuration.spoken(configuration.afterSeconds) + " after the last change")")
        guard let last = setup.store.lastBackup(directory: setup.directory) else {
            Terminal.output("Last backup:  none yet")
            return
        }
        let when = Format.date(last.finished) ?? "?"
        if last.succeeded {
            Terminal.output("Last backup:  \(when), snapshot \(last.snapshot ?? "?"), \(Format.bytes(last.addedBytes ?? 0)) added")
        } else {
            Terminal.output("Last backup:  \(when), FAILED: \(last.message ?? "no reason recorded")")
        }
    }
}
