import ArgumentParser
import Foundation
import ObscuraKit

/// `obscura renditions`: makes the browser-playable copies of videos browsers cannot play
/// (HEVC from phones) that are still to be made: after an `add --no-renditions`, an
/// interrupted `add`, or a move into or out of a protected folder (name the folder with
/// `--folder` to reach its videos).
struct RenditionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "renditions",
        abstract: "Make the playable copies of videos (HEVC and others browsers cannot play) still to be made.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passwords: PasswordOptions

    @Flag(help: "Try again the videos whose copy could not be made before.")
    var retryFailed = false

    @Option(help: ArgumentHelp("Also make those of this protected folder (its password is asked).", valueName: "name"))
    var folder: String?

    @Flag(help: .hidden)
    var printFfmpegArguments = false

    func run() throws {
        if printFfmpegArguments {
            // For scripts/bench-rendition: the reference run is this very command.
            for argument in Vault.renditionArguments { Terminal.output(argument) }
            return
        }
        let session = try VaultSession(global: global, passwords: passwords)
        _ = try session.folder(folder)
        if retryFailed {
            let count = try session.vault.retryFailedRenditions()
            if count > 0 { Terminal.output("Trying \(count) failed video\(count == 1 ? "" : "s") again.") }
        }
        try Self.make(in: session.vault)
    }

    /// Makes the pending renditions of `vault` with a progress bar, and says what it did.
    static func make(in vault: Vault) throws {
        let bar = ProgressBar()
        let outcome = try vault.makeRenditions { _, index, count, done in
            bar.update(label: "Preparing videos for playback", done: Int64(done * 1000), total: 1000,
                       detail: "\(index + 1)/\(count), \(Int(done * 100))%")
        }
        bar.finish()
        if outcome.made > 0 {
            Terminal.output("Made \(outcome.made) playable cop\(outcome.made == 1 ? "y" : "ies") of videos browsers cannot play.")
        }
        if outcome.failed > 0 {
            Terminal.note("\(outcome.failed) video\(outcome.failed == 1 ? "" : "s") could not be converted; the gallery offers the original.")
        }
        if outcome.skipped > 0 {
            Terminal.note("\(outcome.skipped) video\(outcome.skipped == 1 ? " was" : "s were") skipped for now (--verbose says more); `obscura renditions` tries again.")
        }
    }
}
