import Foundation
import GRDB
import ObscuraCrypto
import ObscuraStore

/// The statements on the `setting` table (docs/FORMAT.md §3.3): one text value a key.
extension Catalog {
    /// The value stored under `key`, if any.
    package func setting(_ key: String) throws -> String? {
        try read { try String.fetchOne($0, sql: "SELECT value FROM setting WHERE key = ?", arguments: [key]) }
    }

    /// Stores `value` under `key`, replacing any value there.
    package func setSetting(_ key: String, to value: String) throws {
        try write { db in try Self.setSetting(key, to: value, in: db) }
    }

    private static func setSetting(_ key: String, to value: String, in db: Database) throws {
        try db.execute(sql: "INSERT INTO setting(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                       arguments: [key, value])
    }

    /// The secret stored under `key` as lower-case hex text (the drop key, docs/FORMAT.md
    /// §10.1), decoded straight from SQLite's row into zeroing memory: no String ever holds
    /// it. Nil when there is none; throws ``CatalogError/invalidImage`` for a value that is
    /// not `byteCount` bytes of hex.
    package func secretSetting(_ key: String, byteCount: Int) throws -> SecureBytes? {
        try read { db in
            // CAST keeps the text's bytes as they are and reads them without a copy.
            let rows = try Row.fetchCursor(db, sql: "SELECT CAST(value AS BLOB) FROM setting WHERE key = ?", arguments: [key])
            guard let row = try rows.next() else { return nil }
            return try row.withUnsafeData(atIndex: 0) { data -> SecureBytes in
                guard let data, data.count == byteCount * 2,
                      let secret = data.withUnsafeBytes(SecureBytes.init(lowercaseHex:)) else { throw CatalogError.invalidImage }
                return secret
            }
        }
    }

    /// Stores `secret` under `key` as lower-case hex text (§10.1). The digits are written in
    /// zeroing memory and bound as a blob that SQLite stores as text, so that no String holds them.
    package func setSecretSetting(_ key: String, to secret: SecureBytes) throws {
        let digits = secret.lowercaseHex()
        try digits.withUnsafeMutableBytes { buffer in
            // A view of the zeroing buffer, not a copy; SQLite copies what it binds.
            let view = Data(bytesNoCopy: buffer.baseAddress!, count: buffer.count, deallocator: .none)
            try write { db in
                try db.execute(
                    sql: "INSERT INTO setting(key, value) VALUES (?, CAST(? AS TEXT)) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    arguments: [key, view])
            }
        }
    }

    /// The setting that holds, in a paged catalog, the version 3 header its vault's
    /// exports carry: bytes [0, 104) of a §3.1 header, in base64 (docs/FORMAT.md §9.7).
    static let exportHeaderKey = "export.header"

    /// Stores `header` (a version 3 header of this vault's MEK) as the one exports carry.
    package func setExportHeader(_ header: SlotHeader) throws {
        try setSetting(Self.exportHeaderKey, to: Self.encodedExportHeader(header))
    }

    static func encodedExportHeader(_ header: SlotHeader) -> String {
        Data(header.prefixThroughWrappedKey).base64EncodedString()
    }

    /// The catalog's image and the version 3 header exports carry (without its envelope;
    /// nil in an in-memory catalog, whose slot header is one), read together: a password
    /// change between two reads would pair the image with another derivation's header.
    package func exportSnapshot() throws -> (header: SlotHeader?, image: [UInt8]) {
        try withConnection { db in
            let text = try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = ?", arguments: [Self.exportHeaderKey])
            return (try text.map(Self.decodedExportHeader), try Self.serialize(db))
        }
    }

    private static func decodedExportHeader(_ text: String) throws -> SlotHeader {
        guard let bytes = Data(base64Encoded: text).map(Array.init), bytes.count == SlotFormat.envelopeOffset,
              Array(bytes[0..<4]) == SlotFormat.magic,
              bytes.readBigEndian(UInt16.self, at: SlotFormat.versionOffset) == SlotFormat.version,
              let kdf = KDFParameters(
                suite: bytes.readBigEndian(UInt16.self, at: SlotFormat.suiteOffset),
                word: bytes.readBigEndian(UInt32.self, at: SlotFormat.iterationsOffset)) else {
            throw CatalogError.invalidImage
        }
        return SlotHeader(
            kdf: kdf,
            salt: Array(bytes[SlotFormat.saltOffset..<SlotFormat.wrappedKeyOffset]),
            wrappedKey: Array(bytes[SlotFormat.wrappedKeyOffset..<SlotFormat.envelopeOffset]), envelope: [])
    }
}
