import ArgumentParser
import Foundation
import ObscuraKit

/// `obscura rm ID...`: moves items to the trash; with `--now`, deletes them, their media
/// and thumbnails for good.
struct RemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm", abstract: "Move items to the trash (or, with --now, delete them for good).",
        discussion: "Items stay in the trash for 30 days: `obscura trash restore ID` brings them back.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passwords: PasswordOptions
    @OptionGroup var item: ItemOptions

    @Flag(help: "Delete for good at once, without the trash.")
    var now = false

    @Argument(help: "Item ids (or unique prefixes).")
    var ids: [String]

    func run() throws {
        let session = try VaultSession(global: global, passwords: passwords)
        _ = try session.folder(item.folder)
        try TrashCommand.requireExpiredPurged(session.vault)
        let unique = Array(NSOrderedSet(array: ids).array as? [String] ?? ids)
        let items = "\(unique.count) item\(unique.count == 1 ? "" : "s")"
        if now {
            try session.vault.deleteItems(unique)
            Terminal.output("Deleted \(items) for good.")
        } else {
            try session.vault.trashItems(unique)
            let folder = item.folder.map { " --folder \(TerminalText.escaped($0))" } ?? ""
            Terminal.output("Moved \(items) to the trash; \(unique.count == 1 ? "it is" : "they are") deleted for good in 30 days. `obscura trash restore\(folder) ID` brings one back.")
        }
    }
}

/// `obscura mv ID... --folder NAME`: moves items between folders.
struct MoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mv", abstract: "Move items to a folder (re-encrypting when protection changes).")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passwords: PasswordOptions

    @Option(help: ArgumentHelp("Protected folder the items are in (its password is read first).", valueName: "name"))
    var from: String?

    @Option(help: ArgumentHelp("Target folder; \"/\" for the top level.", valueName: "name"))
    var folder: String

    @Argument(help: "Item ids (or unique prefixes).")
    var ids: [String]

    func run() throws {
        let session = try VaultSession(global: global, passwords: passwords)
        _ = try session.folder(from)
        let target = folder == "/" ? nil : try session.folder(folder)
        try session.vault.moveItems(ids, to: target)
        Terminal.output("Moved \(ids.count) item\(ids.count == 1 ? "" : "s") to \(folder == "/" ? "the top level" : folder).")
    }
}

/// `obscura verify`: decrypts every item and reports problems.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify", abstract: "Decrypt every item of the vault and report problems.",
        discussion: """
            It also counts the files in the media pool that this vault does not name, and \
            deletes none of them. Every vault of the directory keeps its files in the one \
            pool, and a session sees only its own vault, so the other vaults' files are \
            counted too, with any that an interrupted write left behind: nothing tells them \
            apart, and deleting by this count would destroy other vaults' data.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passwords: PasswordOptions

    func run() throws {
        let session = try VaultSession(global: global, passwords: passwords)
        let bar = ProgressBar()
        let result = try session.vault.verify { done, total in
            bar.update(label: "Verifying", done: Int64(done), total: Int64(total), detail: "\(done)/\(total) items")
        }
        bar.finish()
        Terminal.output("Verified \(result.checked) item\(result.checked == 1 ? "" : "s"); \(result.problems.count) problem\(result.problems.count == 1 ? "" : "s").")
        if result.skipped > 0 { Terminal.output("\(result.skipped) items in locked protected folders were not checked.") }
        let unnamed = try session.vault.unnamedPoolFileCount()
        if unnamed > 0 {
            Terminal.output(unnamed == 1 ? "1 file in the media pool is not named by this vault." : "\(unnamed) files in the media pool are not named by this vault.")
            Terminal.output("Files of other vaults in this directory are counted too, since this session cannot see them, with any left by an interrupted write; nothing was deleted, and nothing tells them apart.")
        }
        for problem in result.problems { Terminal.note("  \(problem.itemId): \(problem.message)") }
        if !result.problems.isEmpty { throw ExitCode(CLIError.failureExitCode) }
    }
}
