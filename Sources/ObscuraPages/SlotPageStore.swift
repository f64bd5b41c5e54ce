import ObscuraStore

/// One slot of a container of inner format 2, as the paged catalog's store
/// (docs/FORMAT.md §8.12, §9): its logical blocks are read through the slot's map, and
/// each catalog commit is one container commit, which writes the same bucket of
/// positions in every slot.
package final class SlotPageStore: PageStore {
    private let reader: (Int) throws -> [UInt8]
    private let committer: ([Int: [UInt8]], Int, Int) throws -> BlockCommitReport
    /// What the last commit wrote; for benchmarks and tests.
    package private(set) var lastCommit: BlockCommitReport?

    /// The store of `slot` in `container`, which the caller serialises (a commit is not
    /// thread-safe).
    package convenience init(container: SlotContainer, slot: SlotID) {
        self.init(
            read: { try container.readBlock(slot, $0) },
            commit: { try container.commit(blocks: [slot: $0], logicalCount: $1, minimumBucket: $2) })
    }

    /// A store over two operations: reading logical block j, and committing blocks with
    /// the logical count they need and the writer's floor on the bucket.
    package init(read: @escaping (Int) throws -> [UInt8], commit: @escaping ([Int: [UInt8]], Int, Int) throws -> BlockCommitReport) {
        reader = read
        committer = commit
    }

    package func readBlock(_ index: Int) throws -> [UInt8] { try reader(index) }

    package func commit(_ blocks: [Int: [UInt8]], logicalCount: Int) throws {
        try commit(blocks, logicalCount: logicalCount, minimumBucket: 0)
    }

    package func commit(_ blocks: [Int: [UInt8]], logicalCount: Int, minimumBucket: Int) throws {
        lastCommit = try committer(blocks, logicalCount, minimumBucket)
    }
}

extension SlotStore {
    /// Slot `name` as a paged catalog's store: reads and commits go through the
    /// container under the directory's write lock.
    package func pageStore(_ name: String) -> SlotPageStore {
        SlotPageStore(
            read: { try self.readBlock(name, $0) },
            commit: { try self.commitBlocks(name, $0, logicalCount: $1, minimumBucket: $2) })
    }
}
