import ArgumentParser
import Foundation
import ObscuraCatalog
import ObscuraKit

/// `obscura trash ls|restore|empty`: the items `obscura rm` moved to the trash.
struct TrashCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trash", abstract: "List, restore or delete the items in the trash.",
        discussion: """
            Deleted items wait in the trash for 30 days, then are deleted for good the next \
            time the vault is unlocked, by any command or the gallery. Items of a protected folder \
            stay sealed under its key there, and show only with --folder. `obscura rm --now ID` \
            deletes one item of the trash for good.
            """,
        subcommands: [List.self, Restore.self, Empty.self])

    /// Refuses to go on when the unlock could not delete what expired (its chores ran
    /// and said what they did, ``VaultSession/tell(_:)``): a trash command must not show
    /// or act on the trash as if those items were still in it.
    static func requireExpiredPurged(_ vault: Vault) throws {
        if let why = vault.unlockChores.failed[.expiredTrash] {
            throw CLIError("could not delete what the trash kept past 30 days: \(why)")
        }
    }

    /// `obscura trash ls`.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ls", abstract: "List the items in the trash, the latest deleted first.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passwords: PasswordOptions
        @OptionGroup var item: ItemOptions

        @Flag(help: "Print one JSON array.")
        var json = false

        func run() throws {
            let session = try VaultSession(global: global, passwords: passwords)
            _ = try session.folder(item.folder)
            try TrashCommand.requireExpiredPurged(session.vault)
            let views = try ListCommand.all(.trash, filter: ItemFilter(), in: session.vault)
            if json { return try ListCommand.print(views, json: true) }
            let now = Date().timeIntervalSince1970
            for view in views {
                let row = view.record
                let left = max(0, Int((((row.deletedAt ?? now) + Vault.trashRetention - now) / 86_400).rounded(.up)))
                let deleted = Format.date(row.deletedAt).map { String($0.prefix(10)) } ?? "-"
                Terminal.output("\(row.id.prefix(8))  \(row.kind.rawValue.padding(toLength: 5, withPad: " ", startingAt: 0))  deleted \(deleted)  \(String(format: "%2d", left)) day\(left == 1 ? " " : "s") left  \(TerminalText.escaped((view.folderPath.map { $0 + "/" } ?? "") + row.name))")
            }
            if views.isEmpty { Terminal.note("The trash is empty.") }
        }
    }

    /// `obscura trash restore ID...`.
    struct Restore: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "restore", abstract: "Put items back where they were deleted from.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passwords: PasswordOptions
        @OptionGroup var item: ItemOptions

        @Argument(help: "Item ids (or unique prefixes).")
        var ids: [String]

        func run() throws {
            let session = try VaultSession(global: global, passwords: passwords)
            _ = try session.folder(item.folder)
            try TrashCommand.requireExpiredPurged(session.vault)
            let unique = Array(NSOrderedSet(array: ids).array as? [String] ?? ids)
            try session.vault.restoreItems(unique)
            Terminal.output("Restored \(unique.count) item\(unique.count == 1 ? "" : "s").")
        }
    }

    /// `obscura trash empty`.
    struct Empty: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "empty", abstract: "Delete every item in the trash for good.",
            discussion: "Items of protected folders are deleted only with their folder named by --folder (their password is read).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passwords: PasswordOptions
        @OptionGroup var item: ItemOptions

        func run() throws {
            let session = try VaultSession(global: global, passwords: passwords)
            _ = try session.folder(item.folder)
            try TrashCommand.requireExpiredPurged(session.vault)
            let count = try session.vault.emptyTrash()
            Terminal.output("Deleted \(count) item\(count == 1 ? "" : "s") for good.")
            let left = try session.vault.lockedTrashCount()
            if left > 0 {
                Terminal.note("\(left) item\(left == 1 ? " stays" : "s stay") in the trash: \(left == 1 ? "its" : "their") protected folder is locked (name it with --folder to empty \(left == 1 ? "it" : "them") too).")
            }
        }
    }
}
