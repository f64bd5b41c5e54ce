import Foundation
import GRDB
import ObscuraCrypto
import ObscuraPages
import ObscuraStore

/// The statements on the `passkey` table (docs/FORMAT.md §3.3, migration v11): exactly
/// four rows, one per passkey field of block 0, each an opaque record of fixed size that
/// the vault layer encodes and decodes. Rows are never inserted or deleted after the
/// migration; a credential commit rewrites all four at once.
extension Catalog {
    /// Rows of the table: one per passkey field (§3.3, §9.8).
    package static let passkeyRowCount = 4
    /// Bytes of every record, enrolled or free (§3.3).
    package static let passkeyRecordSize = 448
    /// The `setting` key a password change sets to its time (Unix milliseconds, as text),
    /// inserted by migration v11 so that the first change updates a row rather than
    /// inserting into the table's index (§3.3).
    package static let passwordChangedAtKey = "passwordChangedAt"

    /// The four records in field order, each read straight from SQLite's row into zeroing
    /// memory (a record holds a wrap key, §9.8).
    ///
    /// - Throws: ``CatalogError/corrupt(_:)`` when the table is not four records of the size.
    package func passkeyRows() throws -> [SecureBytes] {
        try read { db in
            guard let rows = try Self.passkeyRows(in: db) else { throw CatalogError.corrupt("no passkey table") }
            return rows
        }
    }

    /// The rows of a paged catalog opened only to read them, with no migration and no
    /// commit: the passkey unlock reads the row of the field that opened before it trusts
    /// the vault enough to open it (docs/PASSKEY.md §P4.2, PK16). Nil before migration v11.
    package static func passkeyRows(readingOnly paged: PagedCatalog) throws -> [SecureBytes]? {
        try paged.read { db in try passkeyRows(in: db) }
    }

    /// As ``passkeyRows()``, or nil when the table does not exist yet (a catalog before
    /// migration v11).
    static func passkeyRows(in db: Database) throws -> [SecureBytes]? {
        guard try db.tableExists("passkey") else { return nil }
        var rows = [SecureBytes]()
        let cursor = try Row.fetchCursor(db, sql: "SELECT field, rec FROM passkey ORDER BY field")
        while let row = try cursor.next() {
            let field: Int = row[0]
            let record = try row.withUnsafeData(atIndex: 1) { data -> SecureBytes in
                guard let data, data.count == passkeyRecordSize, field == rows.count else {
                    throw CatalogError.corrupt("a passkey row out of place or of the wrong size")
                }
                return data.withUnsafeBytes { SecureBytes(copying: $0) }
            }
            rows.append(record)
        }
        guard rows.count == passkeyRowCount else { throw CatalogError.corrupt("\(rows.count) passkey rows") }
        return rows
    }

    /// The credential commit (docs/FORMAT.md §9.7): in one catalog commit, the root sealed
    /// under the new header `prefix`, the export header of the same key derivation, all
    /// four `passkey` records replaced by `rows`, the time of a password change when
    /// `passwordChangedAt` is given, and block 0's passkey fields drawn by `headerFields`
    /// from then on. The rows and the fields change together or not at all.
    package func commitCredentials(
        prefix: [UInt8], exportHeader: SlotHeader, rows: [SecureBytes], passwordChangedAt: UInt64?,
        headerFields: @escaping @Sendable () throws -> [UInt8]?
    ) throws {
        precondition(rows.count == Self.passkeyRowCount && rows.allSatisfy { $0.count == Self.passkeyRecordSize },
                     "passkey rows")
        try write(headerPrefix: prefix, headerFields: headerFields) { db in
            // Updates of rows that exist, so that the commit writes the pages it always
            // writes and never an index page (review PR13).
            try db.execute(sql: "UPDATE setting SET value = ? WHERE key = ?",
                           arguments: [Self.encodedExportHeader(exportHeader), Self.exportHeaderKey])
            guard db.changesCount == 1 else { throw CatalogError.corrupt("no export header") }
            if let passwordChangedAt {
                try db.execute(sql: "UPDATE setting SET value = ? WHERE key = ?",
                               arguments: [String(passwordChangedAt), Self.passwordChangedAtKey])
                // An update of the row v11 made, never an insert into the index (§3.3).
                guard db.changesCount == 1 else { throw CatalogError.corrupt("no passwordChangedAt setting") }
            }
            for (field, record) in rows.enumerated() {
                try record.withUnsafeBytes { bytes in
                    // A view of the zeroing buffer, not a copy; SQLite copies what it binds.
                    let view = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: bytes.baseAddress!), count: bytes.count,
                                    deallocator: .none)
                    try db.execute(sql: "UPDATE passkey SET rec = ? WHERE field = ?", arguments: [view, field])
                }
                guard db.changesCount == 1 else { throw CatalogError.corrupt("passkey row \(field) is missing") }
            }
        }
    }

    /// Rewrites all four rows as free records: an export's image carries no passkey
    /// (§9.7), so no wrap key, credential id or public key leaves the vault in one. For
    /// the in-memory copy an export is made from, whose freed cells SQLite zeroes.
    package func freePasskeyRows(using random: RandomSource) throws {
        try write { db in
            for field in 0..<Self.passkeyRowCount {
                try db.execute(sql: "UPDATE passkey SET rec = ? WHERE field = ?",
                               arguments: [Data(Self.freePasskeyRecord(using: random)), field])
            }
        }
    }

    /// Makes the `passkey` table anew, as migration v11 makes it: four free rows and no
    /// index or trigger, with the `passwordChangedAt` setting present. For a conversion
    /// (docs/FORMAT.md §9.7): the image it copies may come from an export no Obscura wrote,
    /// whose enrolled row would leave the new slot damaged (layout A with an enrolled row)
    /// and whose index or trigger on the table would change the pages every later
    /// credential commit writes (review PR2).
    package func replacePasskeyTable(using random: RandomSource) throws {
        try write { db in
            try db.execute(sql: "DROP TABLE IF EXISTS passkey")
            try db.execute(sql: "CREATE TABLE passkey (field INTEGER PRIMARY KEY, rec BLOB NOT NULL)")
            for field in 0..<Self.passkeyRowCount {
                try db.execute(sql: "INSERT INTO passkey (field, rec) VALUES (?, ?)",
                               arguments: [field, Data(Self.freePasskeyRecord(using: random))])
            }
            try db.execute(sql: "INSERT OR IGNORE INTO setting (key, value) VALUES (?, '0')", arguments: [Self.passwordChangedAtKey])
        }
    }

    /// The time of the last password change (Unix milliseconds); 0 before the first.
    package func passwordChangedAt() throws -> UInt64 {
        try setting(Self.passwordChangedAtKey).flatMap(UInt64.init) ?? 0
    }

    /// A free record (§3.3): state byte 0, then random bytes.
    static func freePasskeyRecord(using random: RandomSource) -> [UInt8] {
        [0] + random.bytes(passkeyRecordSize - 1)
    }
}
