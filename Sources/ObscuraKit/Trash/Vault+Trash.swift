import Foundation
import ObscuraCatalog

/// The trash (issue 17): a delete moves items there, where they stay, still sealed as
/// they were (a protected folder's under its key), until they are restored, deleted for
/// good, or expire after ``Vault/trashRetention``.
extension Vault {
    /// How long an item stays in the trash: 30 days.
    public static let trashRetention: TimeInterval = 30 * 24 * 3600

    /// Moves items to the trash, and commits the catalog. Their files stay; they leave
    /// every view but the trash's, every count and every search.
    ///
    /// - Throws: ``VaultError/noSuchItem(_:)`` for an id this session cannot see; then
    ///   no item moves.
    public func trashItems(_ ids: [String], now: Date = Date()) throws {
        try operation {
            // Not between an import's reading of a half and its pairing (commitImports): a
            // half trashed then would come back inside its pair.
            try rowsGate.withLock {
                let rows = try ids.map(item)
                try catalog.trash(rows.map(\.id), at: now.timeIntervalSince1970)
            }
        }
    }

    /// Takes items out of the trash, back to the folder they were deleted from, and
    /// commits the catalog.
    public func restoreItems(_ ids: [String]) throws {
        try operation {
            try rowsGate.withLock {
                let rows = try ids.map(item)
                if let live = rows.first(where: { !$0.isTrashed }) { throw VaultError.notInTrash(live.id) }
                try catalog.restore(rows.map(\.id))
            }
        }
    }

    /// Deletes for good every item in the trash this session can see (those of locked
    /// folders stay until they expire or their folder is opened), as ``deleteItems(_:)``
    /// does. Returns how many were deleted.
    @discardableResult
    public func emptyTrash() throws -> Int {
        return try operation {
            let visible = try trashedItems(inOpenFolders: true)
            // By rows, not ids: an empty at the same moment may have deleted some already,
            // which then are no error (their rows and files are simply gone).
            try deleteRows(visible)
            return visible.count
        }
    }

    /// Deletes for good the items that went to the trash more than ``trashRetention``
    /// before `now`, in every folder, locked or not: deleting needs no folder key, and an
    /// item kept past its time because its folder stayed locked would be a surprise.
    /// Returns how many were deleted.
    @discardableResult
    public func purgeExpiredTrash(now: Date = Date()) throws -> Int {
        return try operation {
            let expired = try catalog.trashedItems(before: now.timeIntervalSince1970 - Self.trashRetention)
            guard !expired.isEmpty else { return 0 }
            try deleteRows(expired)
            directory.logger.debug("trash expired", metadata: ["items": "\(expired.count)"])
            return expired.count
        }
    }

    /// How many items of the trash this session can see.
    package func trashCount() throws -> Int {
        try itemListing(scope: .trash, limit: 1).total
    }

    /// How many items in the trash belong to locked protected folders: what
    /// ``emptyTrash()`` leaves. (The folder list counts a locked folder's items too.)
    public func lockedTrashCount() throws -> Int {
        return try operation {
            return try trashedItems(inOpenFolders: false).count
        }
    }

    /// The trashed items whose folder is open (or that have none), or those of locked
    /// folders.
    private func trashedItems(inOpenFolders open: Bool) throws -> [ItemRecord] {
        let folders = Dictionary(uniqueKeysWithValues: try catalog.folders().map { ($0.id, $0) })
        return try catalog.trashedItems().filter { row in (row.folderId.flatMap { folders[$0] }.map(isOpen) ?? true) == open }
    }
}
