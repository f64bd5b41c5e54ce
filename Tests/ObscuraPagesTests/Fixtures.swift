import GRDB
import ObscuraCrypto
import ObscuraPages

/// Shared keys, prefixes and a table of many rows for the catalog tests.
enum Fixture {
    static let mek = SecureBytes(copying: (0..<32).map { UInt8($0) })
    static let otherMEK = SecureBytes(copying: (0..<32).map { UInt8(255 - $0) })
    static let prefix = [UInt8](repeating: 0xA5, count: 136)
    /// Every row carries it in clear inside SQLite, so the store must never see it.
    static let marker = "PLAINTEXT-MARKER"

    /// A new catalog over a new store.
    static func create(seed: String = #function) throws -> (MemoryPageStore, PagedCatalog) {
        let store = MemoryPageStore()
        let catalog = try PagedCatalog.create(
            store: store, mek: mek, headerPrefix: prefix, random: SeededRandom(seed: seed))
        return (store, catalog)
    }

    /// Reopens from the store's committed header.
    static func reopen(_ store: MemoryPageStore, mek: SecureBytes = Fixture.mek) throws -> PagedCatalog {
        try PagedCatalog.open(store: store, mek: mek, headerBlock: store.header)
    }

    /// Creates table t and inserts `count` rows of about 2.9 KB each (one page apiece).
    static func fill(_ catalog: PagedCatalog, rows count: Int, from first: Int = 0) throws {
        try catalog.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS t(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            let statement = try db.makeStatement(
                sql: "INSERT INTO t(id, body) VALUES (?, printf('%s-%06d-', ?, ?) || hex(randomblob(1400)))")
            for i in first..<(first + count) {
                try statement.execute(arguments: [i, marker, i])
            }
        }
    }

    /// Reads every row back: count and the sum of lengths, which touches every page.
    static func summary(_ catalog: PagedCatalog) throws -> [Int] {
        try catalog.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT count(*), sum(length(body)), sum(id) FROM t")!
            return [row[0], row[1], row[2]]
        }
    }
}
