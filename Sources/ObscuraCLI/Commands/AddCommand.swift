import ArgumentParser
import Foundation
import ObscuraKit

/// `obscura add PATH...`: imports files and directories.
struct AddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Import photos, videos and other files (directories recursively).")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passwords: PasswordOptions

    @Option(help: ArgumentHelp("Folder to import into (its password is asked if protected).", valueName: "name"))
    var folder: String?

    @Flag(help: "Do not make playable copies of videos browsers cannot play now (`obscura renditions` makes them later).")
    var noRenditions = false

    @Argument(help: "Files or directories to import.")
    var paths: [String]

    func run() throws {
        let session = try VaultSession(global: global, passwords: passwords)
        let target = try session.folder(folder)
        let bar = ProgressBar()
        let report = try session.vault.importFiles(paths, into: target) { p in
            bar.update(label: "Importing", done: p.bytesDone, total: p.bytesTotal,
                       detail: "\(p.filesDone)/\(p.filesTotal) files, \(Format.bytes(p.bytesDone)) of \(Format.bytes(p.bytesTotal))")
        }
        bar.finish()
        let added = report.filesAdded
        let items = report.imported.count == added ? "" : " as \(report.imported.count) new item\(report.imported.count == 1 ? "" : "s")"
        Terminal.output("Imported \(added) file\(added == 1 ? "" : "s") (\(Format.bytes(report.bytes)))\(items).")
        for joined in report.joined {
            let what = joined.role == .motion ? "the motion of the Live Photo" : "the RAW of"
            Terminal.output("  " + TerminalText.escaped(joined.path) + " is \(what) " + TerminalText.escaped(joined.still) + ".")
        }
        if !report.duplicates.isEmpty {
            Terminal.output("Skipped \(report.duplicates.count) duplicate\(report.duplicates.count == 1 ? "" : "s") already in the vault:")
            for path in report.duplicates { Terminal.output("  " + TerminalText.escaped(path)) }
        }
        if !report.failures.isEmpty {
            Terminal.note("Failed \(report.failures.count) file\(report.failures.count == 1 ? "" : "s"):")
            for failure in report.failures { Terminal.note("  \(TerminalText.escaped(failure.path)): \(failure.message)") }
        }
        // After the import, which is committed already: an interrupted conversion loses
        // nothing, the next `add` or `renditions` picks it up, and it does not make the
        // import a failure.
        if !noRenditions, report.imported.contains(where: { $0.renditionState == .pending })
            || report.joined.contains(where: { $0.role == .motion }) {
            do {
                try RenditionsCommand.make(in: session.vault)
            } catch {
                Terminal.note("Playable copies of videos were not made (\(error)); `obscura renditions` makes them later.")
            }
        }
        if !report.failures.isEmpty { throw ExitCode(CLIError.failureExitCode) }
    }
}
