import Foundation
import ObscuraPages

/// A `PageStore` in memory that records every commit, and can be told to fail the next.
final class MemoryPageStore: PageStore, @unchecked Sendable {
    // @unchecked: every property is used under `lock` only.
    struct Injected: Error, Equatable {}

    private let lock = NSLock()
    private var storage: [Int: [UInt8]] = [:]
    private var log: [[Int: [UInt8]]] = []
    private var counts: [Int] = []
    private var failNext = false

    /// The blocks as committed (tests may alter them to play an attacker).
    var blocks: [Int: [UInt8]] {
        get { lock.withLock { storage } }
        set { lock.withLock { storage = newValue } }
    }
    /// Every commit's blocks, in order.
    var commits: [[Int: [UInt8]]] { lock.withLock { log } }
    /// Every commit's logical count, in order.
    var logicalCounts: [Int] { lock.withLock { counts } }
    /// The committed header block.
    var header: [UInt8] { lock.withLock { storage[0]! } }

    /// Makes the next commit throw `Injected` and commit nothing.
    func failNextCommit() { lock.withLock { failNext = true } }

    func readBlock(_ index: Int) throws -> [UInt8] {
        try lock.withLock {
            guard let block = storage[index] else { throw PagesError.damagedRoot("test store: no block \(index)") }
            return block
        }
    }

    func commit(_ blocks: [Int: [UInt8]], logicalCount: Int) throws {
        try lock.withLock {
            if failNext {
                failNext = false
                throw Injected()
            }
            precondition(blocks.values.allSatisfy { $0.count == 4068 }, "block payload size")
            precondition(blocks.keys.allSatisfy { $0 < logicalCount }, "block past the logical count")
            storage.merge(blocks) { $1 }
            storage = storage.filter { $0.key < logicalCount }
            log.append(blocks)
            counts.append(logicalCount)
        }
    }
}
