import Foundation
import GRDB
import GRDBSQLite
import ObscuraCrypto
import ObscuraPages
import ObscuraStore

/// A vault's catalog: an SQLite database of items, folders and settings (docs/FORMAT.md
/// §3.3), kept one of two ways:
///
/// - **Paged** (a vault in a container of inner format 2, §9): the database lives in the
///   slot's logical blocks, each page sealed on its own. Every write transaction is one
///   container commit; unlock reads the root only, and only SQLite's bounded page cache
///   holds plaintext pages.
/// - **Image** (§3.3): a version 3 catalog, read to be converted into a paged one (and
///   the tools' empty catalogs): the database lives only in memory, and moves as a
///   sealed image of the whole database. The connection is in-memory and `temp_store = MEMORY`; the image moves in and out through
///   `sqlite3_serialize` / `sqlite3_deserialize`.
///
/// Either way no database file, plaintext or encrypted, ever exists outside the slot.
/// SQL and GRDB stay in this module: the rest of the product asks for rows through typed
/// queries, one table a file (Catalog+Items.swift, Catalog+Folders.swift, ...).
public final class Catalog: @unchecked Sendable {
    // @unchecked: each connection serialises its own access; `state` guards which one is
    // current and whether the catalog is closed.
    enum Storage {
        case image(DatabaseQueue)
        case paged(PagedCatalog)
    }

    private let state = NSLock()
    private var storage: Storage
    private var closed = false
    /// Guards the word index's state (Catalog+WordIndex.swift): the connection whose temp
    /// index is filled, and how many connections the catalog has had.
    let wordIndexLock = NSLock()
    /// Weak: an identifier of a freed connection could be a new one's.
    weak var wordIndexConnection: DatabaseQueue?
    var wordIndexGeneration = 0
    /// Opens a paged catalog again from its store: after a failed commit the connection
    /// is unusable (``PagesError/broken``), and the store holds the last committed state.
    private let reopen: (() throws -> PagedCatalog)?
    /// Makes a paged catalog's field provider from its rows: at open, and again for the
    /// catalog ``reload()`` opens, from the rows that one reads (review PR9).
    private let headerFields: HeaderFieldsFromRows?
    /// Called when a paged catalog could not be opened again after a failed commit (the
    /// container needs recovery): the session can no longer match its slot.
    package var onLost: (() -> Void)?

    /// The passkey fields a paged catalog's commits draw, made from its `passkey` rows
    /// (docs/FORMAT.md §9.8) and the layout its block 0 holds, which must agree with
    /// them; see ``paged(_:reopen:headerFields:)``.
    package typealias HeaderFieldsFromRows = ([SecureBytes], HeaderLayout) throws -> (@Sendable () throws -> [UInt8]?)

    private init(storage: Storage, reopen: (() throws -> PagedCatalog)? = nil, headerFields: HeaderFieldsFromRows? = nil) throws {
        self.storage = storage
        self.reopen = reopen
        self.headerFields = headerFields
        // Before the migrations: a migration's commit rewrites block 0, and one made
        // without the vault's fields would drop its passkeys (or, in layout B, be refused).
        if case let .paged(paged) = storage { try Self.provide(paged, from: headerFields) }
        try CatalogSchema.migrator.migrate(database)
        // After the migrations (the triggers name item_index), before any write.
        try database.writeWithoutTransaction { try Self.prepareWordIndex($0) }
    }

    /// Gives `paged` the field provider `headerFields` makes from the rows it holds.
    private static func provide(_ paged: PagedCatalog, from headerFields: HeaderFieldsFromRows?) throws {
        guard let headerFields else { return }
        let rows = try paged.read { db in try passkeyRows(in: db) }
        paged.setHeaderFields(try headerFields(rows ?? [], paged.headerLayout))
    }

    private static func memoryQueue() throws -> DatabaseQueue {
        var config = Configuration()
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            // Freed cells are zeroed, so a deleted or replaced value (a plain content hash,
            // §6.7) leaves the next image; Debian's SQLite does this by default, macOS's not.
            try db.execute(sql: "PRAGMA secure_delete = ON")
            // As on a paged catalog (CatalogSettings): the index triggers assume it.
            try db.execute(sql: "PRAGMA recursive_triggers = OFF")
        }
        return try DatabaseQueue(configuration: config)
    }

    /// A new in-memory catalog with the current schema and no rows.
    package static func empty() throws -> Catalog { try Catalog(storage: .image(memoryQueue())) }

    /// Restores an in-memory catalog from a serialized image, applying newer migrations.
    package static func restore(image: [UInt8]) throws -> Catalog {
        do {
            let queue = try memoryQueue()
            try queue.inDatabase { db in try Self.load(image, into: db, schema: "main") }
            return try Catalog(storage: .image(queue))
        } catch let error as CatalogError {
            throw error
        } catch {
            throw CatalogError.invalidImage
        }
    }

    /// A catalog over a paged database (docs/FORMAT.md §9), applying the schema's
    /// migrations; `reopen` opens it again from its store after a failed commit.
    ///
    /// `headerFields` makes, from the `passkey` rows (none before migration v11), the
    /// provider of the passkey fields every commit seals into block 0; it runs before
    /// any commit, and a catalog reopened after a failed commit keeps the provider.
    /// Without it, a catalog opened in layout B refuses to commit (its fields would be lost).
    package static func paged(
        _ catalog: PagedCatalog, reopen: (() throws -> PagedCatalog)? = nil, headerFields: HeaderFieldsFromRows? = nil
    ) throws -> Catalog {
        try Catalog(storage: .paged(catalog), reopen: reopen, headerFields: headerFields)
    }

    /// Whether the catalog is paged rather than an in-memory image.
    package var isPaged: Bool {
        if case .paged = state.withLock({ storage }) { return true }
        return false
    }

    /// The current connection: for the migrator and for tests, which may run SQL on it
    /// directly (a paged catalog commits each of their write transactions).
    package var database: DatabaseQueue {
        switch state.withLock({ storage }) {
        case let .image(queue): return queue
        case let .paged(paged): return paged.queue
        }
    }

    /// The paged connection, when the catalog is one.
    var pagedCatalog: PagedCatalog? {
        if case let .paged(paged) = state.withLock({ storage }) { return paged }
        return nil
    }

    /// The serialized database image (SQLite's own file format, held only in memory): what
    /// a version 3 slot seals, and what an export carries (§7).
    package func image() throws -> [UInt8] {
        try withConnection { try Self.serialize($0) }
    }

    /// The image of `db`'s main database; SQLite's copy is zeroed before it is freed.
    static func serialize(_ db: Database) throws -> [UInt8] {
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

    /// Makes a paged catalog what its store holds now: the last committed state. After a
    /// failed commit, and when a session resynchronises with its slot.
    func reload() throws {
        guard let reopen, case let .paged(old) = try current() else { return }
        let fresh: PagedCatalog
        do {
            fresh = try reopen()
            // The fields follow the rows the store holds now, read again: a commit that
            // landed and still threw (a resynchronisation after it) changed them.
            try Self.provide(fresh, from: headerFields)
            // A new connection has no temp objects: the word index is made again, empty.
            try fresh.queue.writeWithoutTransaction { try Self.prepareWordIndex($0) }
        } catch {
            close()
            let lost = state.withLock { onLost }
            lost?()
            throw error
        }
        let replaced = state.withLock { () -> Bool in
            guard !closed else { return false }
            storage = .paged(fresh)
            return true
        }
        if replaced { wordIndexLock.withLock { wordIndexGeneration += 1 } }
        try? (replaced ? old : fresh).close()
    }

    /// Runs `body`, which takes the catalog's queue, in the lock order's place for a
    /// catalog (docs/ARCHITECTURE.md, "Locks, outermost first"). Only a vault's catalog,
    /// committed to its slot and reopened from it, takes part: one built in memory (a
    /// new slot, a conversion's copy) belongs to the thread building it, which may hold
    /// the slot store's write lock meanwhile, and no other thread can wait on it.
    private func ordered<T>(_ body: () throws -> T) rethrows -> T {
        guard reopen != nil else { return try body() }
        return try LockOrder.holding(.catalog, self, body)
    }

    /// Runs `body` in a read-only transaction. Throws ``CatalogError/closed`` after ``close()``.
    ///
    /// For the catalog's typed queries and the package's low-level tools (obscura-bench,
    /// obscura-fuzz); the rest of Sources runs no SQL.
    package func read<T>(_ body: (Database) throws -> T) throws -> T {
        try ordered {
            switch try current() {
            case let .image(queue):
                return try queue.read { db in
                    try checkOpen()
                    return try body(db)
                }
            case let .paged(paged):
                return try closedAware {
                    try paged.read { db in
                        try checkOpen()
                        return try body(db)
                    }
                }
            }
        }
    }

    /// Runs `body` in a write transaction. Throws ``CatalogError/closed`` after ``close()``.
    ///
    /// A paged catalog has committed to its slot when this returns; a commit that failed
    /// leaves it reopened from the slot (the state before this write), or closed when the
    /// slot cannot be read back.
    ///
    /// For the catalog's typed queries and the package's low-level tools, as ``read(_:)``.
    ///
    /// `minimumBucket` is the writer's floor on a paged catalog's container commit
    /// (docs/FORMAT.md §8.12): ``dropFloor(items:)`` for a change whose triggers may drop
    /// picture index rows, so that its bucket does not tell whether they did.
    package func write<T>(minimumBucket: Int = 0, _ body: (Database) throws -> T) throws -> T {
        try ordered {
            switch try current() {
            case let .image(queue):
                return try queue.write { db in
                    try checkOpen()
                    return try body(db)
                }
            case let .paged(paged):
                return try committing(paged) {
                    try paged.write(minimumBucket: minimumBucket) { db in
                        try checkOpen()
                        return try body(db)
                    }
                }
            }
        }
    }

    /// §8.12's writer's floor for a user's change of `items` items whose triggers may drop
    /// picture index rows (§3.3, "The picture index"): a delete for good, an end in views
    /// set or cleared, a move across the protection boundary, an import that pairs with
    /// stored halves. Measured at 100,000 items (docs/BENCHMARKS.md, `obscura-bench
    /// index-ops`), one item's delete needs 27–56 blocks without a row and 34–50 with one,
    /// either side of the first bucket. The floor is the smallest bucket that holds
    /// ``dropNeedPerItem`` blocks an item, decided from the number of items alone, so the
    /// bucket tells nothing of how many of them were indexed (review of step 1, M2).
    package static func dropFloor(items: Int) -> Int {
        let worst = max(1, items) * dropNeedPerItem
        var bucket = ContainerFormat.bucket
        while bucket < worst { bucket *= ContainerFormat.bucketGrowth }
        return bucket
    }

    /// The most blocks one item's change of that kind was measured to need with an index
    /// row at 100,000 items (65: a move into a protected folder), and some margin.
    static let dropNeedPerItem = 72

    /// Runs `body` in a write transaction of a paged catalog whose commit also seals the
    /// root under `headerPrefix` (a password change, docs/FORMAT.md §9.5), and with
    /// `headerFields`, block 0's passkey fields from that provider from then on (§9.7).
    func write<T>(
        headerPrefix: [UInt8], headerFields: (@Sendable () throws -> [UInt8]?)? = nil, _ body: (Database) throws -> T
    ) throws -> T {
        try ordered {
            guard case let .paged(paged) = try current() else { throw CatalogError.closed }
            return try committing(paged) {
                try paged.write(headerPrefix: headerPrefix, headerFields: headerFields) { db in
                    try checkOpen()
                    return try body(db)
                }
            }
        }
    }

    /// Runs `body` on the connection outside any transaction.
    func withConnection<T>(_ body: (Database) throws -> T) throws -> T {
        try ordered {
            switch try current() {
            case let .image(queue):
                return try queue.inDatabase { db in
                    try checkOpen()
                    return try body(db)
                }
            case let .paged(paged):
                return try committing(paged) {
                    try paged.queue.writeWithoutTransaction { db in
                        try checkOpen()
                        return try body(db)
                    }
                }
            }
        }
    }

    /// Number of items and folders.
    public func counts() throws -> (items: Int, folders: Int) {
        try read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item") ?? 0,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM folder") ?? 0)
        }
    }

    /// Ends access: every later read or write throws. An in-memory connection closes, and
    /// its memory is released, when the last reference to the catalog goes (closing it
    /// here could pull it from under a reader that still holds this catalog); a paged one
    /// closes now, dropping its page cache, and a reader still holding it gets an error.
    package func close() {
        let toClose = state.withLock { () -> PagedCatalog? in
            closed = true
            if case let .paged(paged) = storage { return paged }
            return nil
        }
        try? toClose?.close()
    }

    private func current() throws -> Storage {
        try state.withLock {
            guard !closed else { throw CatalogError.closed }
            return storage
        }
    }

    private func checkOpen() throws {
        if state.withLock({ closed }) { throw CatalogError.closed }
    }

    /// Reports a closed catalog as ``CatalogError/closed`` whatever SQLite said.
    private func closedAware<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            if state.withLock({ closed }) { throw CatalogError.closed }
            throw error
        }
    }

    /// Runs a write of `paged`; when its commit failed, reopens the catalog from the store
    /// so that the session matches the slot again.
    private func committing<T>(_ paged: PagedCatalog, _ body: () throws -> T) throws -> T {
        do {
            return try closedAware(body)
        } catch {
            // Only while `paged` is still current: a writer queued behind the failed one
            // must not close the catalog another reload just opened.
            if paged.isBroken, pagedCatalog === paged {
                // The store holds the state before this write, or after it if the commit
                // got that far; either is whole. A reopen that fails closes the catalog.
                try? reload()
            }
            throw error
        }
    }

    /// Loads `image` into schema `schema` of `db` and checks it.
    static func load(_ image: [UInt8], into db: Database, schema: String) throws {
        guard !image.isEmpty, let buffer = sqlite3_malloc64(sqlite3_uint64(image.count)) else {
            throw CatalogError.invalidImage
        }
        image.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: image.count) }
        // SQLite owns the buffer from here, and frees it on close or on failure.
        let flags = UInt32(SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE)
        let rc = sqlite3_deserialize(
            db.sqliteConnection, schema, buffer.assumingMemoryBound(to: UInt8.self),
            sqlite3_int64(image.count), sqlite3_int64(image.count), flags)
        guard rc == SQLITE_OK else { throw CatalogError.invalidImage }
        db.clearSchemaCache()
        // Secure delete belongs to the database the image replaced: set it again, or a
        // SQLite built without it on (macOS's) keeps freed cells in the next image.
        try db.execute(sql: "PRAGMA \(schema).secure_delete = ON")
        // A sealed image that authenticated can still be damaged SQLite (a bug, or a
        // writer of another implementation): check before trusting it.
        guard try String.fetchOne(db, sql: "PRAGMA \(schema).quick_check") == "ok" else {
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
    /// A row failed a check (said as the vault's own ``corrupt`` error says it).
    case corrupt(String)

    public var description: String {
        switch self {
        case .invalidImage: return "the vault catalog is not a valid database"
        case .serializeFailed: return "could not serialize the vault catalog"
        case .closed: return "the vault is locked"
        case let .corrupt(why): return "vault data is corrupt: \(why)"
        }
    }
}
