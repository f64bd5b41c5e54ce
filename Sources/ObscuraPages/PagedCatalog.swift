import CObscuraPageVFS
import Foundation
import GRDB
import ObscuraCrypto

/// An SQLite database whose pages are sealed one by one under the vault's key, over the
/// logical blocks of a ``PageStore`` (docs/FORMAT.md §9).
///
/// One connection (a `DatabaseQueue`) through the "obscura-pages" VFS; one SQLite
/// transaction is one store commit. Use ``read(_:)`` and ``write(_:)``: they turn
/// SQLite's generic I/O errors back into the ``PagesError`` or store error behind them.
/// After a failed commit the catalog is broken (``PagesError/broken``): close it and
/// open it again from the store, which holds the last committed state.
public final class PagedCatalog: @unchecked Sendable {
    // @unchecked: the queue serialises the connection and PagedFile locks its state.

    /// The connection. Errors thrown through it directly are SQLite's; prefer ``read(_:)``
    /// and ``write(_:)``.
    public let queue: DatabaseQueue
    let file: PagedFile
    private let name: String

    /// The backend, for tests (commit sizes, the committed root, the seal budget).
    package var backend: PagedFile { file }

    private init(file: PagedFile, configuration: Configuration) throws {
        try PageVFS.register()
        self.file = file
        name = PageVFS.attach(file)
        var config = configuration
        config.readonly = false
        config.journalMode = .default
        // The reserve must be set before page 1 exists; a database without pages is
        // either new or one whose creation never committed. The closure keeps this value,
        // not the file: GRDB holds the configuration as long as anything holds the queue
        // or its connection, which can outlive close(), and the file holds the keys.
        let isNew = file.committedRoot.pageCount == 0
        config.prepareDatabase { db in
            try CatalogSettings.apply(db)
            if isNew {
                try db.execute(sql: "PRAGMA page_size = \(PagesFormat.pageSize)")
                let reserve = obscura_page_vfs_set_reserve(
                    UnsafeMutableRawPointer(db.sqliteConnection!), Int32(PagesFormat.reservedBytes))
                guard reserve == Int32(PagesFormat.reservedBytes) else {
                    throw PagesError.unsupported("SQLite refused \(PagesFormat.reservedBytes) reserved bytes per page")
                }
            }
        }
        do {
            queue = try DatabaseQueue(path: "file:\(name)?vfs=\(PageVFS.name)", configuration: config)
        } catch {
            PageVFS.detach(name)
            throw file.takeLastError() ?? error
        }
    }

    /// Creates an empty catalog and commits it: the header and page 1 (whose header
    /// records page size 4096 and 56 reserved bytes), in one store commit.
    /// - Parameters:
    ///   - store: where the blocks go; it should hold nothing yet.
    ///   - mek: the vault's 32-byte master key.
    ///   - headerPrefix: header bytes [0, 136), built by the vault layer.
    ///   - random: the source of the vault id and every nonce.
    ///   - configuration: GRDB settings; the pinned pragmas (``CatalogSettings``) win.
    public static func create(
        store: PageStore, mek: SecureBytes, headerPrefix: [UInt8], random: RandomSource = SystemRandom(),
        configuration: Configuration = Configuration()
    ) throws -> PagedCatalog {
        guard headerPrefix.count == HeaderFormat.prefixSize else {
            throw PagesError.unsupported("a header prefix of \(headerPrefix.count) bytes")
        }
        // Sequence 0 is never stored: the first commit, page 1's, carries sequence 1.
        let root = CatalogRoot(
            vaultID: random.bytes(PagesFormat.vaultIDSize), sequence: 0, generation: 1, seals: 0,
            pageCount: 0, upperTags: [])
        let file = PagedFile(store: store, keys: try PageKeys(mek: mek), prefix: headerPrefix, root: root, random: random)
        let catalog = try PagedCatalog(file: file, configuration: configuration)
        // Any write creates page 1 with the reserve set above; user_version is SQLite's own.
        try catalog.write { db in try db.execute(sql: "PRAGMA user_version = 0") }
        guard file.committedRoot.pageCount >= 1 else {
            try? catalog.close()
            throw PagesError.unsupported("SQLite wrote no page at creation")
        }
        return catalog
    }

    /// Opens a catalog from its header block: only the root is opened here (wrong key or
    /// altered header throw ``PagesError/damagedRoot(_:)``); pages are read and verified
    /// when SQLite asks for them.
    ///
    /// `headerFields` is set before SQLite opens the file, so that a commit made while
    /// opening (a migration) already writes the fields (``setHeaderFields(_:)``).
    public static func open(
        store: PageStore, mek: SecureBytes, headerBlock: [UInt8], random: RandomSource = SystemRandom(),
        configuration: Configuration = Configuration(), headerFields: (@Sendable () throws -> [UInt8]?)? = nil
    ) throws -> PagedCatalog {
        let keys = try PageKeys(mek: mek)
        let (prefix, root) = try CatalogRoot.openHeader(headerBlock, rootKey: keys.root)
        let file = PagedFile(store: store, keys: keys, prefix: prefix, root: root, random: random)
        file.headerFields = headerFields
        return try PagedCatalog(file: file, configuration: configuration)
    }

    /// Whether a failed commit left the connection unusable: open the catalog again from
    /// the store, which holds the last committed state.
    public var isBroken: Bool { file.lock.withLock { file.broken } }

    /// The header prefix the root is sealed under now.
    public var headerPrefix: [UInt8] { file.lock.withLock { file.prefix } }

    /// The layout of block 0 as last opened or committed (docs/FORMAT.md §9.5, §9.8).
    public var headerLayout: HeaderLayout { file.lock.withLock { file.root.layout } }

    /// Sets what every later commit writes between the prefix and the root: `provider`
    /// returns the 240 bytes of passkey fields, drawn afresh for that commit (layout B),
    /// or nil (layout A, explicitly). Without a provider a catalog opened in layout A
    /// commits layout A, and one opened in layout B refuses to commit, since its fields
    /// would be lost (docs/FORMAT.md §9.8). The provider runs inside the store commit,
    /// under the file's lock: it must not use this catalog.
    public func setHeaderFields(_ provider: (@Sendable () throws -> [UInt8]?)?) {
        file.lock.withLock { file.headerFields = provider }
    }

    /// The field provider later commits use (``setHeaderFields(_:)``), for whoever opens
    /// this catalog again from its store after a failed commit: the reopened catalog must
    /// write the same fields, or its next commit would drop them.
    public var headerFields: (@Sendable () throws -> [UInt8]?)? { file.lock.withLock { file.headerFields } }

    /// Runs `body` in a read transaction.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try queue.read { db in try mapErrors { try body(db) } }
    }

    /// Runs `updates` in a write transaction; the store has committed when it returns.
    /// With `minimumBucket`, a store that writes buckets makes that commit one of at least
    /// so many blocks (docs/FORMAT.md §8.12, the writer's floor).
    public func write<T>(minimumBucket: Int = 0, _ updates: (Database) throws -> T) throws -> T {
        try queue.writeWithoutTransaction { db in
            try mapErrors {
                file.lock.withLock { file.nextMinimumBucket = minimumBucket }
                defer { file.lock.withLock { file.nextMinimumBucket = 0 } }
                var result: T?
                try db.inTransaction {
                    result = try updates(db)
                    return .commit
                }
                return result!
            }
        }
    }

    /// Runs `updates` in a write transaction whose commit also seals the root under a new
    /// header prefix: a password change and the rows that go with it, in one store commit.
    /// When `updates` change no page, the header block is committed alone.
    ///
    /// With `headerFields`, that commit draws block 0's passkey fields from it instead of
    /// the current provider, which it replaces once the commit has landed: the rows that
    /// name the passkeys and the fields that seal the MEK for them change in one commit,
    /// and no other write, before or after it, seals one without the other.
    public func write<T>(
        headerPrefix prefix: [UInt8], headerFields: (@Sendable () throws -> [UInt8]?)? = nil,
        _ updates: (Database) throws -> T
    ) throws -> T {
        guard prefix.count == HeaderFormat.prefixSize else {
            throw PagesError.unsupported("a header prefix of \(prefix.count) bytes")
        }
        return try queue.writeWithoutTransaction { db in
            try mapErrors {
                file.lock.withLock {
                    file.nextPrefix = prefix
                    file.nextHeaderFields = headerFields
                }
                defer {
                    file.lock.withLock {
                        file.nextPrefix = nil
                        file.nextHeaderFields = nil
                    }
                }
                var result: T?
                try db.inTransaction {
                    result = try updates(db)
                    return .commit
                }
                try file.lock.withLock {
                    guard file.nextPrefix != nil else { return }
                    do {
                        try file.commitHeader(prefix: prefix)
                    } catch {
                        file.broken = true
                        throw error
                    }
                }
                return result!
            }
        }
    }

    /// Re-seals the root under a new header prefix (a password change) and commits the
    /// header block alone.
    public func replaceHeaderPrefix(_ prefix: [UInt8]) throws {
        guard prefix.count == HeaderFormat.prefixSize else {
            throw PagesError.unsupported("a header prefix of \(prefix.count) bytes")
        }
        try queue.writeWithoutTransaction { _ in
            try file.lock.withLock {
                guard !file.broken else { throw PagesError.broken }
                do {
                    try file.commitHeader(prefix: prefix)
                } catch {
                    // As after any failed commit, the owner reopens from the store.
                    file.broken = true
                    throw error
                }
            }
        }
    }

    /// Closes the connection; anything staged and not committed is dropped.
    public func close() throws {
        defer {
            PageVFS.detach(name)
            // After the connection: nothing reads a page once it is closed. The field
            // provider goes too: it holds the passkeys' wrap keys, each a way to the MEK
            // with block 0, and they are zeroed as they are released.
            file.lock.withLock {
                file.keys.zeroize()
                file.headerFields = nil
                file.nextHeaderFields = nil
            }
        }
        try queue.close()
    }

    deinit { PageVFS.detach(name) }

    /// How many opens the VFS has refused in this process (journals, temporary files).
    package static var refusedOpens: UInt64 { PageVFS.refusedOpens }

    private func mapErrors<T>(_ body: () throws -> T) throws -> T {
        if file.lock.withLock({ file.broken }) { throw PagesError.broken }
        _ = file.takeLastError()
        do {
            return try body()
        } catch let error as DatabaseError {
            throw file.takeLastError() ?? error
        }
    }
}
