import Foundation
import GRDB

/// The statements on the picture index (docs/FORMAT.md §3.3, "The picture index";
/// docs/SEARCH.md §S4.1), as typed calls. The write rules hold here and nowhere else:
/// rows are appended by ``settle(_:)`` and never updated in their identity or text (I6,
/// which a trigger also enforces); no statement carries a conflict clause, `REPLACE` or
/// an upsert, which would override the triggers' own policy.
extension Catalog {
    /// One result of the indexing job, to append for an item if the item is still as the
    /// job read it.
    package struct IndexEntry: Sendable {
        /// The item's rowid.
        package var itemRowid: Int64
        /// The original the job read: a re-encrypted item (moved across protection) no
        /// longer matches.
        package var mediaId: String
        /// The folder the item was in.
        package var folderId: String?
        /// Whether the item had no end in views when read (a placeholder when false).
        package var readable: Bool
        /// The row's flags: outcomes (1–32) for a plaintext row, ``IndexState/protected``
        /// alone for a box, ``IndexState/viewLimited`` alone for the placeholder.
        package var state: IndexState
        /// The profile that read the text.
        package var textProfile: Int64?
        /// The profile that made the vector.
        package var vectorProfile: Int64?
        /// The text read, at most ``IndexLimits/textCap`` bytes of UTF-8.
        package var text: String?
        /// A protected item's box.
        package var sealed: [UInt8]?
        /// An unprotected item's vector.
        package var vector: IndexVector?

        /// An entry; its shape is checked by ``settle(_:)``.
        package init(
            itemRowid: Int64, mediaId: String, folderId: String?, readable: Bool, state: IndexState,
            textProfile: Int64? = nil, vectorProfile: Int64? = nil, text: String? = nil, sealed: [UInt8]? = nil,
            vector: IndexVector? = nil
        ) {
            self.itemRowid = itemRowid
            self.mediaId = mediaId
            self.folderId = folderId
            self.readable = readable
            self.state = state
            self.textProfile = textProfile
            self.vectorProfile = vectorProfile
            self.text = text
            self.sealed = sealed
            self.vector = vector
        }

        /// The shapes of I3–I5: a box alone, the placeholder alone, or a plaintext row
        /// with outcome flags, text within the cap and a vector only when flag 2 says so.
        var isWellFormed: Bool {
            if state == .protected {
                return readable && sealed?.count == IndexLimits.boxSize && text == nil && vector == nil
                    && textProfile == nil && vectorProfile == nil
            }
            if state == .viewLimited {
                return !readable && sealed == nil && text == nil && vector == nil && textProfile == nil && vectorProfile == nil
            }
            return readable && sealed == nil && IndexState.outcomes.isSuperset(of: state)
                && (text?.utf8.count ?? 0) <= IndexLimits.textCap
                && (vector != nil) == state.contains(.vectorMade)
        }
    }

    /// The id of the profile `name` of `kind` ("text" or "vector"), added if new.
    package func indexProfile(kind: String, name: String) throws -> Int64 {
        try write { db in
            try db.execute(sql: """
                INSERT INTO index_profile (kind, name) SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM index_profile WHERE name = ?)
                """, arguments: [kind, name, name])
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM index_profile WHERE name = ? AND kind = ?", arguments: [name, kind])
            else { throw CatalogError.corrupt("index profile \(name) is of another kind") }
            return id
        }
    }

    /// Appends `entries` in one transaction (the settle of docs/SEARCH.md §S7.1). Each is
    /// written only if its item still has the original, folder and readability the job
    /// saw, is protected exactly when the entry is a box, and has no row yet; its vector
    /// follows only when its row was written.
    /// - Returns: for each entry, whether it was written.
    /// - Throws: ``CatalogError/corrupt(_:)`` for an entry of a shape FORMAT.md §3.3 does
    ///   not allow; then nothing is written.
    @discardableResult
    package func settle(_ entries: [IndexEntry]) throws -> [Bool] {
        guard entries.allSatisfy(\.isWellFormed) else { throw CatalogError.corrupt("an index entry breaks FORMAT.md §3.3") }
        return try write { db in
            try entries.map { entry in
                // A box only for a protected item, plaintext only for an unprotected one
                // (I3, I5); the placeholder for either.
                let protection = entry.state == .viewLimited ? ""
                    : entry.state == .protected ? "AND folderId IN \(Self.protectedFolders)"
                    : "AND (folderId IS NULL OR folderId NOT IN \(Self.protectedFolders))"
                try db.execute(sql: """
                    INSERT INTO item_index (itemRowid, state, textProfile, vectorProfile, ocrText, sealed)
                    SELECT ?, ?, ?, ?, ?, ?
                    WHERE EXISTS (SELECT 1 FROM item WHERE rowid = ? AND mediaId = ? AND folderId IS ?
                                  AND (viewsLeft IS NULL) = ? \(protection))
                      AND NOT EXISTS (SELECT 1 FROM item_index WHERE itemRowid = ?)
                    """, arguments: [
                        entry.itemRowid, entry.state.rawValue, entry.textProfile, entry.vectorProfile, entry.text,
                        entry.sealed.map { Data($0) }, entry.itemRowid, entry.mediaId, entry.folderId, entry.readable,
                        entry.itemRowid,
                    ])
                guard db.changesCount == 1 else { return false }
                if let vector = entry.vector {
                    try db.execute(sql: "INSERT INTO item_vector (seq, vector) VALUES (?, ?)",
                                   arguments: [db.lastInsertedRowID, Data(vector.stored)])
                }
                return true
            }
        }
    }

    /// Adds a vector to the unprotected row `seq` of `itemRowid`, if the row is still
    /// there, has none, and its item still has the original `mediaId` in the unprotected
    /// folder `folderId` with no end in views (§S7.1: a model installed after the text was
    /// read). `seq` and rowids are taken again after a delete: the item's own original is
    /// what tells the picture the vector was made of. Only `state` and `vectorProfile`
    /// change in place (I6).
    /// - Returns: whether it was added.
    @discardableResult
    package func addVector(
        _ vector: IndexVector, profile: Int64, toRow seq: Int64, itemRowid: Int64, mediaId: String, folderId: String?
    ) throws -> Bool {
        try write { db in
            try db.execute(sql: """
                UPDATE item_index SET state = (state | 2) & ~16, vectorProfile = ?
                WHERE seq = ? AND itemRowid = ? AND sealed IS NULL AND state & 192 = 0
                  AND NOT EXISTS (SELECT 1 FROM item_vector WHERE seq = ?)
                  AND EXISTS (SELECT 1 FROM item WHERE rowid = ? AND mediaId = ? AND folderId IS ? AND viewsLeft IS NULL
                              AND (folderId IS NULL OR folderId NOT IN \(Self.protectedFolders)))
                """, arguments: [profile, seq, itemRowid, seq, itemRowid, mediaId, folderId])
            guard db.changesCount == 1 else { return false }
            try db.execute(sql: "INSERT INTO item_vector (seq, vector) VALUES (?, ?)", arguments: [seq, Data(vector.stored)])
            return true
        }
    }

    /// The protected folders' ids, as SQL.
    static let protectedFolders = "(SELECT id FROM folder WHERE wrappedKey IS NOT NULL)"

    /// The rowid of the item `id`, if it exists.
    package func itemRowid(of id: String) throws -> Int64? {
        try read { try Int64.fetchOne($0, sql: "SELECT rowid FROM item WHERE id = ?", arguments: [id]) }
    }

    /// The index row of the item `id`, if it has one.
    package func indexRow(ofItem id: String) throws -> IndexRow? {
        try read { db in
            try IndexRow.fetchOne(db, sql: """
                SELECT item_index.* FROM item_index JOIN item ON item.rowid = item_index.itemRowid WHERE item.id = ?
                """, arguments: [id])
        }
    }

    /// The stored vector of row `seq`, if it has one.
    package func indexVector(seq: Int64) throws -> IndexVector? {
        try read { db in
            try Data.fetchOne(db, sql: "SELECT vector FROM item_vector WHERE seq = ?", arguments: [seq]).flatMap(IndexVector.init(stored:))
        }
    }
}
