import Foundation
import ObscuraCatalog

/// Photos attached to a note (docs/FORMAT.md §3.3, "Notes"). An attachment is a link in
/// the catalog: the item stays where it is, and goes from the note when it is deleted for
/// good. A link is no more sealed than an item's folder: a session that sees neither of
/// its items sees only two ids.
extension Vault {
    /// Attaches the items `itemIds` to note `noteId`, after those it has, and commits
    /// the catalog.
    ///
    /// - Throws: ``NoteError/cannotAttach(_:)`` for a note among the items;
    ///   ``VaultError/noSuchItem(_:)`` for an item the session cannot see.
    public func attach(_ itemIds: [String], to noteId: String) throws {
        try operation {
            try rowsGate.withLock {
                let note = try note(noteId)
                let items = try itemIds.map(item)
                if let other = items.first(where: { $0.kind == .note }) { throw NoteError.cannotAttach(other.id) }
                try catalog.attach(items.map(\.id), to: note.id)
            }
        }
    }

    /// Detaches the items `itemIds` from note `noteId` (ids in full), and commits the
    /// catalog. The items themselves stay.
    public func detach(_ itemIds: [String], from noteId: String) throws {
        try operation {
            try rowsGate.withLock {
                let note = try note(noteId)
                try catalog.detach(itemIds, from: note.id)
            }
        }
    }

    /// The items attached to note `noteId` that the session can see, outside the trash,
    /// in the order they were attached.
    public func attachments(of noteId: String) throws -> [ItemRecord] {
        return try operation {
            let note = try note(noteId)
            return try catalog.attachmentIds(of: note.id).compactMap { id in
                guard let row = try? item(id), !row.isTrashed else { return nil }
                return row
            }
        }
    }
}
