import Foundation
import GRDB
import GRDBSQLite
import ObscuraCrypto

/// A vault's catalog: an SQLite database that lives only in memory while the vault is
/// unlocked and is persisted as an image sealed inside the slot file (docs/FORMAT.md §3.3).
///
/// No database file, plaintext or encrypted, ever exists: the connection is in-memory,
/// temporary tables and sort spills are kept in memory (`temp_store = MEMORY`), and the
/// image moves in and out through `sqlite3_serialize` / `sqlite3_deserialize`.
///
/// SQL and GRDB stay in this folder: the rest of the kit asks for rows through typed
/// queries, one table a file (Catalog+Items.swift, Catalog+Folders.swift, ...).
public final class Catalog: @unchecked Sendable {
    // @unchecked: DatabaseQueue serialises all access itself, `closed` included.
    /// The in-memory database. Queries go through ``read(_:)`` and ``write(_:)``, which
    /// refuse access once the vault is locked; only tests reach it directly.
    let database: DatabaseQueue
    /// Set by ``close()``, on the database's own queue.
    private var closed = false

    private init(image: [UInt8]?) throws {
        var config = Configuration()
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
        }
        database = try DatabaseQueue(configuration: config)
        if let image {
            try database.inDatabase { db in try Self.load(image, into: db) }
        }
        try CatalogSchema.migrator.migrate(database)
    }

    /// A new catalog with the current schema and no rows.
    package static func empty() throws -> Catalog { try Catalog(image: nil) }

    /// Restores a catalog from a serialized image, applying newer migrations if any.
    package static func restore(image: [UInt8]) throws -> Catalog {
        do {
            return try Catalog(image: image)
        } catch let error as CatalogError {
            throw error
        } catch {
            throw CatalogError.invalidImage
        }
    }

    /// The serialized database image (SQLite's own file format, held only in memory).
    package func image() throws -> [UInt8] {
        try database.inDatabase { db in
            guard !closed else { throw CatalogError.closed }
            var size: sqlite3_int64 = 0
            guard let pointer = sqlite3_serialize(db.sqliteConnection, "main", &size, 0) else {
                throw CatalogError.serializeFailed
            }
            defer {
                secureZero(pointer, Int(size))
                sqlite3_free(pointer)
            }
            return Array(UnsafeRawBufferPointer(start: pointer, count: Int(size)))
        }
    }

    /// Replaces the whole database with `image`, in the same connection (a session going
    /// back to the image its slot holds after a failed persist).
    func replace(with image: [UInt8]) throws {
        try database.inDatabase { db in
            guard !closed else { throw CatalogError.closed }
            try Self.load(image, into: db)
        }
    }

    /// Runs `body` in a read-only transaction. Throws ``CatalogError/closed`` after ``close()``.
    ///
    /// For the catalog's typed queries and the package's low-level tools (obscura-bench,
    /// obscura-fuzz); the rest of Sources runs no SQL.
    package func read<T>(_ body: (Database) throws -> T) throws -> T {
        try database.read { db in
            guard !closed else { throw CatalogError.closed }
            return try body(db)
        }
    }

    /// Runs `body` in a write transaction. Throws ``CatalogError/closed`` after ``close()``.
    ///
    /// For the catalog's typed queries and the package's low-level tools, as ``read(_:)``.
    package func write<T>(_ body: (Database) throws -> T) throws -> T {
        try database.write { db in
            guard !closed else { throw CatalogError.closed }
            return try body(db)
        }
    }

    /// Number of items and folders.
    public func counts() throws -> (items: Int, folders: Int) {
        try read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item") ?? 0,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM folder") ?? 0)
        }
    }

    /// Ends access: every later read or write throws. The connection itself closes, and
    /// its memory is released, when the last reference to the catalog goes; closing it
    /// here could pull it from under a reader that still holds this catalog.
    package func close() {
        database.inDatabase { _ in closed = true }
    }

    private static func load(_ image: [UInt8], into db: Database) throws {
        guard !image.isEmpty, let buffer = sqlite3_malloc64(sqlite3_uint64(image.count)) else {
            throw CatalogError.invalidImage
        }
        image.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: image.count) }
        // SQLite owns the buffer from here, and frees it on close or on failure.
        let flags = UInt32(SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE)
        let rc = sqlite3_deserialize(
            db.sqliteConnection, "main", buffer.assumingMemoryBound(to: UInt8.self),
            sqlite3_int64(image.count), sqlite3_int64(image.count), flags)
        guard rc == SQLITE_OK else { throw CatalogError.invalidImage }
        db.clearSchemaCache()
        // A sealed image that authenticated can still be damaged SQLite (a bug, or a
        // writer of another implementation): check before trusting it.
        guard try String.fetchOne(db, sql: "PRAGMA quick_check") == "ok" else {
            throw CatalogError.invalidImage
        }
    }
}

/// Errors from the catalog.
public enum CatalogError: ObscuraError, Equatable {
    /// The decrypted image is not a valid Obscura catalog.
    case invalidImage
    /// SQLite could not serialize the database.
    case serializeFailed
    /// The vault was locked; the catalog is no longer readable.
    case closed

    public var description: String {
        switch self {
        case .invalidImage: return "the vault catalog is not a valid database"
        case .serializeFailed: return "could not serialize the vault catalog"
        case .closed: return "the vault is locked"
        }
    }
}
