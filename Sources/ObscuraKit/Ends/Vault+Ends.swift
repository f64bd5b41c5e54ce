import Foundation
import ObscuraCatalog

/// Ends (issue 19; docs/FORMAT.md §3.3, "Ends"): giving items an end, counting views, and
/// deleting for good what has ended. Ends are enforced whenever the vault is open: the
/// gallery calls ``enforceEnds(now:)`` at unlock and every few seconds, the command line
/// at every unlock.
extension Vault {
    /// Gives the items `ids` an end, replacing any they had, or clears it (nil), and
    /// commits the catalog. All or none.
    ///
    /// - Throws: ``VaultError/invalidEnd(_:)`` for an end without a time or views, a time
    ///   already past or a count out of range; ``VaultError/ended(_:)`` for an item whose
    ///   last view is open (it ends when that view closes).
    public func setEnd(_ ids: [String], _ end: ItemEnd?, now: Date = Date()) throws {
        try operation {
            let end = try end?.validated(now: now)
            let rows = try rowsGate.withLock {
                let rows = try ids.map(item)
                if let ending = rows.first(where: { $0.isInLastView || $0.hasEnded(at: now) }) { throw VaultError.ended(ending.id) }
                try catalog.setEnd(rows.map(\.id), endsAt: end?.at?.timeIntervalSince1970, viewsLeft: end?.views)
                return rows
            }
            // A view-limited item's preview is never kept (``preview(_:)``): drop any made before.
            if end?.views != nil { previews.remove(rows.map(\.id)) }
        }
    }

    /// Opens a view of item `id` in the viewer: for an item with an end in views, counts
    /// it (persisted before anything is shown); the last view sets the item's end to at
    /// most ``ItemEnd/lastViewLimit`` from `now`. Returns the row as it now stands.
    ///
    /// - Throws: ``VaultError/ended(_:)`` when the item has ended or its last view was taken.
    public func openView(_ id: String, now: Date = Date()) throws -> ItemRecord {
        return try operation {
            return try rowsGate.withLock {
                var row = try item(id)
                if row.hasEnded(at: now) || row.isInLastView { throw VaultError.ended(row.id) }
                guard let left = row.viewsLeft else { return row }
                row.viewsLeft = left - 1
                if left == 1 {
                    let latest = now.timeIntervalSince1970 + ItemEnd.lastViewLimit
                    row.endsAt = min(row.endsAt ?? latest, latest)
                }
                try catalog.setEnd([row.id], endsAt: row.endsAt, viewsLeft: row.viewsLeft)
                return row
            }
        }
    }

    /// Closes a view of item `id`: an item whose last view this was is deleted for good.
    /// Returns whether it was.
    @discardableResult
    public func closeView(_ id: String) throws -> Bool {
        return try operation {
            let row = try item(id)
            guard row.isInLastView else { return false }
            try deleteRows([row])
            directory.logger.debug("an item ended after its last view")
            return true
        }
    }

    /// Deletes for good every item whose end has come by `now`, in every folder, locked or
    /// not, in the trash or not: deleting needs no folder key. Returns how many.
    @discardableResult
    public func enforceEnds(now: Date = Date()) throws -> Int {
        return try operation {
            let ended = try catalog.endedItems(at: now.timeIntervalSince1970)
            guard !ended.isEmpty else { return 0 }
            try deleteRows(ended)
            directory.logger.debug("items ended", metadata: ["items": "\(ended.count)"])
            return ended.count
        }
    }

    /// The earliest end in time of any item of the vault, or nil (tests check that ends
    /// are persisted with it; the product enforces by ``enforceEnds(now:)``).
    package func earliestEnd() throws -> Date? {
        return try operation {
            return try catalog.earliestEnd().map { Date(timeIntervalSince1970: $0) }
        }
    }
}
