// The paged catalog's VFS and commit path (docs/FORMAT.md §9.6) driven by fuzzed SQL.
import Foundation
import GRDB
import ObscuraCrypto
import ObscuraPages

/// The input is a seal budget, then operations on one table of a ``PagedCatalog`` over a
/// ``MemoryPageStore``: inserts, updates and deletes of rows of fuzzed sizes, several of
/// them in one transaction, VACUUM, a transaction rolled back, a reopen from the store,
/// and store commits made to fail. A model holds the rows as last committed. After every
/// operation a second catalog opened from the store must read exactly the model, and the
/// live one too unless a failed commit broke it (then it is reopened). At the end every
/// catalog must be gone (no leaked file or connection) and SQLite must never have asked
/// the VFS for another file.
let vfsTarget = FuzzTarget("vfs", seeds: vfsSeeds) { bytes in
    var input = FuzzInput(bytes)
    let refusedBefore = PagedCatalog.refusedOpens
    let opened = OpenedFiles()
    do {
        var run = try VFSRun(budget: input.budget(), opened: opened)
        var steps = 0
        while !input.atEnd, steps < 40 {
            try run.step(&input)
            steps += 1
        }
        try run.finish()
    } catch {
        fatalError("vfs: unexpected error \(error)")
    }
    guard opened.alive == 0 else { fatalError("vfs: \(opened.alive) closed catalogs' files are still alive") }
    guard PagedCatalog.refusedOpens == refusedBefore else { fatalError("vfs: SQLite asked for a file besides the database") }
}

/// Seeds that reach each operation: growth past one leaf, shrinking with VACUUM, a
/// failed commit, a rollback, a reopen.
func vfsSeeds() -> [[UInt8]] {
    [
        [0, 0, 1, 0x40, 0, 0, 2, 0x10, 0, 1, 1, 0x00, 0x20, 6, 2, 1, 4, 5, 3, 9, 0x30],
        [40] + (0..<40).flatMap { [0, UInt8($0), 0xE5, 0x00] } + [3, 5, 4, 6],
        [8, 0, 7, 0x20, 0, 7, 0, 7, 1, 4, 0, 9, 0x01, 0x00, 8, 3, 0, 2, 1, 2, 0x30, 0x30],
        [1, 5, 3, 1, 0x10, 0, 4, 5, 2, 6, 6, 0, 3, 0x00, 0x80, 4],
    ]
}

/// Reads bytes off the front of a fuzz input; past the end every read is zero.
struct FuzzInput {
    private let bytes: [UInt8]
    private var at = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { at >= bytes.count }

    mutating func byte() -> UInt8 {
        defer { at += 1 }
        return at < bytes.count ? bytes[at] : 0
    }

    /// A row size: mostly under 2 KiB, so that runs are fast; one in eight up to 20,000
    /// bytes, so that 64 rows can outgrow one leaf (252 pages).
    mutating func size() -> Int {
        let high = byte(), low = byte()
        return high < 0xE0 ? Int(low) << 3 : min(20_000, (Int(high & 0x1F) << 8 | Int(low)) * 3)
    }

    /// The seal budget: small for one input in eight, so that commits start new key
    /// generations (§9.6) often; otherwise the format's.
    mutating func budget() -> UInt64 {
        let value = byte()
        return value < 32 ? 24 + UInt64(value) * 8 : PagesFormat.sealBudget
    }
}
