// One run of the vfs fuzz target: a catalog, its store and the model it must match.
import Foundation
import GRDB
import ObscuraCrypto
import ObscuraPages

/// Weak references to every pager file a run opened, to find leaks once it is over.
final class OpenedFiles {
    private var files: [() -> PagedFile?] = []

    func add(_ file: PagedFile) { files.append { [weak file] in file } }

    /// How many are still alive.
    var alive: Int { files.filter { $0() != nil }.count }
}

/// A catalog over a memory store, the rows committed so far, and the operations the
/// vfs target applies.
struct VFSRun {
    private let store = MemoryPageStore()
    private let budget: UInt64
    private(set) var catalog: PagedCatalog
    /// Whether a failed commit broke `catalog` (it must then refuse everything).
    private var broken = false
    /// The rows as last committed: id → body.
    private var model: [Int: [UInt8]] = [:]
    private var bodies = 0
    let opened: OpenedFiles

    init(budget: UInt64, opened: OpenedFiles) throws {
        self.budget = budget
        self.opened = opened
        catalog = try PagedCatalog.create(
            store: store, mek: fuzzKey, headerPrefix: pagesPrefix, random: SeededRandom(seed: "obscura fuzz vfs"))
        try catalog.write { db in try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, body BLOB NOT NULL)") }
        configure()
    }

    /// Lowers the seal budget so that new generations come often (§9.6).
    private func configure() {
        catalog.backend.sealBudget = budget
        opened.add(catalog.backend)
    }

    /// Applies the operation at the front of `input`, then checks the store.
    mutating func step(_ input: inout FuzzInput) throws {
        let op = input.byte() % 9
        var rows = model
        var writes: [(String, StatementArguments)] = []
        func put(_ id: Int, _ size: Int) {
            let body = nextBody(size)
            rows[id] = body
            writes.append(("INSERT OR REPLACE INTO t(id, body) VALUES (?, ?)", [id, Data(body)]))
        }
        switch op {
        case 0: put(Int(input.byte() % 64), input.size())
        case 1:
            let id = Int(input.byte() % 64)
            let body = nextBody(input.size())
            if rows[id] != nil { rows[id] = body }
            writes.append(("UPDATE t SET body = ? WHERE id = ?", [Data(body), id]))
        case 2:
            let id = Int(input.byte() % 64)
            rows[id] = nil
            writes.append(("DELETE FROM t WHERE id = ?", [id]))
        case 3:
            let first = Int(input.byte() % 64)
            rows = rows.filter { $0.key < first }
            writes.append(("DELETE FROM t WHERE id >= ?", [first]))
        case 4:
            let catalog = self.catalog
            broken = try !attempt { try catalog.queue.writeWithoutTransaction { db in try db.execute(sql: "VACUUM") } }
        case 5:
            // A transaction that writes and then fails: nothing of it may reach the store.
            let arguments: StatementArguments = [Int(input.byte() % 64), Data(nextBody(input.size()))]
            struct Abandon: Error {}
            do {
                try catalog.write { db in
                    try db.execute(sql: "INSERT OR REPLACE INTO t(id, body) VALUES (?, ?)", arguments: arguments)
                    throw Abandon()
                }
            } catch is Abandon {}
        case 6: try reopen()
        case 7:
            // The next store commit fails, whatever operation comes next.
            store.failNextCommit()
        default:
            // Several changes in one transaction: one commit.
            for _ in 0..<(1 + Int(input.byte() % 4)) { put(Int(input.byte() % 64), input.size()) }
            let gone = Int(input.byte() % 64)
            rows[gone] = nil
            writes.append(("DELETE FROM t WHERE id = ?", [gone]))
        }
        if !writes.isEmpty {
            let catalog = self.catalog
            let committed = try attempt {
                try catalog.write { db in for (sql, arguments) in writes { try db.execute(sql: sql, arguments: arguments) } }
            }
            broken = !committed
            if committed { model = rows }
        }
        try check()
    }

    /// Runs a write and returns whether it committed. It may fail only by the store
    /// failure the run set up, which breaks the catalog (it must then refuse reads).
    private func attempt(_ body: () throws -> Void) throws -> Bool {
        let armed = store.failurePending
        do {
            try body()
            return true
        } catch {
            guard armed, !store.failurePending else { throw error }
            return false
        }
    }

    /// The store must hold exactly the model; the live catalog too unless it is broken.
    private mutating func check() throws {
        let fresh = try PagedCatalog.open(store: store, mek: fuzzKey, headerBlock: store.header)
        opened.add(fresh.backend)
        defer { try? fresh.close() }
        guard try rowsOf(fresh) == model else { fatalError("vfs: the store does not hold the last committed rows") }
        if broken {
            guard (try? rowsOf(catalog)) == nil else { fatalError("vfs: a broken catalog still reads") }
            try reopen()
        } else if try rowsOf(catalog) != model {
            fatalError("vfs: the live catalog does not read its last commit")
        }
    }

    /// Closes the catalog and opens it again from the store's header.
    private mutating func reopen() throws {
        try? catalog.close()
        catalog = try PagedCatalog.open(store: store, mek: fuzzKey, headerBlock: store.header)
        broken = false
        configure()
    }

    /// Closes the catalog after a last integrity check.
    mutating func finish() throws {
        if !broken {
            let result = try catalog.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
            guard result == ["ok"] else { fatalError("vfs: integrity_check says \(result)") }
        }
        try catalog.close()
    }

    private func rowsOf(_ catalog: PagedCatalog) throws -> [Int: [UInt8]] {
        try catalog.read { db in
            try Row.fetchAll(db, sql: "SELECT id, body FROM t").reduce(into: [:]) { rows, row in
                rows[row[0]] = [UInt8](row[1] as Data)
            }
        }
    }

    /// A body of `size` bytes that differs from every other body of the run.
    private mutating func nextBody(_ size: Int) -> [UInt8] {
        bodies += 1
        let salt = bodies
        return (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ salt &* 7) }
    }
}
