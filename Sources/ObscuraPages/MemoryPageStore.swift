import Foundation

/// A ``PageStore`` in memory: where a new slot's catalog is built before one container
/// commit installs it (ObscuraKit's `PagedSlot`), and, recording every commit and able to
/// fail the next, the store of the package's tests and fuzz targets.
package final class MemoryPageStore: PageStore, @unchecked Sendable {
    // @unchecked: every property is used under `lock` only.
    /// The error an injected failure throws.
    package struct Injected: Error, Equatable {
        /// The error, for tests to compare with.
        package init() {}
    }

    private let lock = NSLock()
    private var storage: [Int: [UInt8]] = [:]
    private var log: [[Int: [UInt8]]] = []
    private var counts: [Int] = []
    private var count = 0
    private var failNext = false
    /// Whether commits are kept in ``commits`` and ``logicalCounts`` (a slot being built
    /// keeps only its blocks).
    private let recording: Bool

    /// An empty store; with `recording`, every commit is kept for tests to look at.
    package init(recording: Bool = true) {
        self.recording = recording
    }

    /// The blocks as committed (tests may alter them to play an attacker).
    package var blocks: [Int: [UInt8]] {
        get { lock.withLock { storage } }
        set { lock.withLock { storage = newValue } }
    }
    /// Every commit's blocks, in order.
    package var commits: [[Int: [UInt8]]] { lock.withLock { log } }
    /// Every commit's logical count, in order.
    package var logicalCounts: [Int] { lock.withLock { counts } }
    /// The logical count of the last commit.
    package var logicalCount: Int { lock.withLock { count } }
    /// The committed header block.
    package var header: [UInt8] { lock.withLock { storage[0]! } }

    /// Makes the next commit throw `Injected` and commit nothing.
    package func failNextCommit() { lock.withLock { failNext = true } }

    /// Whether a failure is set and no commit has taken it yet.
    package var failurePending: Bool { lock.withLock { failNext } }

    /// The block as last committed; a missing one is damage.
    package func readBlock(_ index: Int) throws -> [UInt8] {
        try lock.withLock {
            guard let block = storage[index] else { throw PagesError.damagedRoot("test store: no block \(index)") }
            return block
        }
    }

    /// Applies `blocks` and drops those at or past `logicalCount`, or throws an injected failure.
    package func commit(_ blocks: [Int: [UInt8]], logicalCount: Int) throws {
        try lock.withLock {
            if failNext {
                failNext = false
                throw Injected()
            }
            precondition(blocks.values.allSatisfy { $0.count == PagesFormat.blockPayload }, "block payload size")
            precondition(blocks.keys.allSatisfy { $0 < logicalCount }, "block past the logical count")
            storage.merge(blocks) { $1 }
            storage = storage.filter { $0.key < logicalCount }
            count = logicalCount
            if recording {
                log.append(blocks)
                counts.append(logicalCount)
            }
        }
    }
}
