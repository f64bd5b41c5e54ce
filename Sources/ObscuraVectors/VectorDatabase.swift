import Foundation
import GRDB
import GRDBSQLite
import ObscuraCrypto
import ObscuraKit
import ObscuraPages

/// The SQLite database of the paged-catalog vector (docs/FORMAT.md §5, §9), built in an
/// in-memory connection with the page size and reserve §9.2 requires.
///
/// The vector needs the same bytes from every SQLite library, so the generator hands
/// these images to the pager page by page instead of letting SQLite write through the
/// VFS: an in-memory database never stamps its change counter or SQLite's version number
/// into page 1 (bytes [24, 28) and [92, 100) stay zero), and the b-tree of a few fixed
/// statements is what every SQLite 3 writes.
final class VectorDatabase {
    /// The query the vector's readers run, and the rows it gives.
    static let query = "SELECT id, name, length(body) FROM item ORDER BY id"

    private let queue: DatabaseQueue

    /// An empty database with 4096-byte pages and 56 reserved bytes.
    init() throws {
        queue = try DatabaseQueue()
        try queue.inDatabase { db in
            try db.execute(sql: "PRAGMA page_size = \(PagesFormat.pageSize)")
            var reserve = Int32(PagesFormat.reservedBytes)
            guard sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve) == SQLITE_OK else {
                throw PagesError.unsupported("SQLite refused the reserve of the vector database")
            }
        }
    }

    /// Runs `sql` with `arguments` in one transaction.
    func execute(_ sql: String, _ arguments: StatementArguments = []) throws {
        try queue.inTransaction { db in
            try db.execute(sql: sql, arguments: arguments)
            return .commit
        }
    }

    /// The rows of ``query``: id, name and the body's length.
    func rows() throws -> [(Int, String, Int)] {
        try queue.inDatabase { db in
            try Row.fetchAll(db, sql: Self.query).map { ($0[0], $0[1], $0[2]) }
        }
    }

    /// The database file as SQLite's serialisation gives it, checked for what §9.2 and
    /// the vector need: 4096-byte pages, 56 reserved bytes (zero), no version stamp.
    func image() throws -> [UInt8] {
        let image = try queue.inDatabase { db -> [UInt8] in
            var size: sqlite3_int64 = 0
            guard let pointer = sqlite3_serialize(db.sqliteConnection, "main", &size, 0) else {
                throw PagesError.unsupported("SQLite did not serialise the vector database")
            }
            defer { sqlite3_free(pointer) }
            return Array(UnsafeRawBufferPointer(start: pointer, count: Int(size)))
        }
        let page = PagesFormat.pageSize
        guard image.count % page == 0, image.readBigEndian(UInt16.self, at: 16) == page,
              Int(image[20]) == PagesFormat.reservedBytes, image[92..<100].allSatisfy({ $0 == 0 }),
              stride(from: 0, to: image.count, by: page).allSatisfy({ image[($0 + PagesFormat.usableBytes)..<($0 + page)].allSatisfy { $0 == 0 } })
        else { throw PagesError.unsupported("the vector database is not what §9.2 needs") }
        return image
    }
}
