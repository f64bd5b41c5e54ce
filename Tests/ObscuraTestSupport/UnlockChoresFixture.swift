import Foundation
import ObscuraKit

/// A vault holding one of each thing the unlock chores deal with (issue 35, item 4), so
/// that the Kit, the CLI and the gallery are each shown to do the same at unlock: a note
/// in the trash past its time, a note whose end has come, a note that stays, and a note
/// waiting in the drop inbox.
package enum UnlockChoresFixture {
    /// The dropped note's title.
    package static let dropTitle = "Dropped before the unlock"

    /// The ids of the notes made.
    package struct Prepared: Sendable {
        package let expired: String
        package let ended: String
        package let kept: String
    }

    /// Fills `vault` (unlocked, its chores not yet run) as of the real clock's `now`, and
    /// leaves the drop in its directory's inbox.
    package static func prepare(_ vault: Vault, now: Date = Date()) throws -> Prepared {
        let expired = try vault.addNote(title: "Trashed long ago", body: "expired")
        try vault.trashItems([expired.id], now: now.addingTimeInterval(-Vault.trashRetention - 3600))
        let ended = try vault.addNote(title: "Ended an hour ago", body: "ended")
        try vault.setEnd([ended.id], ItemEnd(at: now.addingTimeInterval(-3600)), now: now.addingTimeInterval(-7200))
        let kept = try vault.addNote(title: "Kept", body: "kept")
        try DropInbox(vaultPath: vault.directory.path)
            .drop(bytes: Array("dropped".utf8), name: dropTitle, kind: .note, to: try vault.dropCode())
        return Prepared(expired: expired.id, ended: ended.id, kept: kept.id)
    }

    /// What is wrong with `vault` after an unlock's chores ran on it: empty when the
    /// drop was taken in, both notes deleted for good, and the third kept.
    package static func problems(in vault: Vault, _ prepared: Prepared) throws -> [String] {
        var problems = [String]()
        let titles = try vault.itemListing(scope: .visible, limit: 100).items.map(\.record.name)
        if !titles.contains(dropTitle) { problems.append("the drop was not taken in: \(titles)") }
        func exists(_ id: String) throws -> Bool {
            do {
                _ = try vault.item(id)
                return true
            } catch VaultError.noSuchItem {
                return false
            }
        }
        for (id, what) in [(prepared.expired, "the expired trash"), (prepared.ended, "the ended note")] {
            if try exists(id) { problems.append("\(what) is still there") }
        }
        if try !exists(prepared.kept) { problems.append("the kept note is gone") }
        if !DropInbox(vaultPath: vault.directory.path).blobNames().isEmpty { problems.append("the inbox still holds the drop") }
        return problems
    }
}
