/// Where a catalog's logical blocks live: a slot of the V4 container, or memory in tests.
///
/// Block 0 is the header; the others hold sealed pages and tag-tree nodes at the ids of
/// ``PageLayout`` (docs/FORMAT.md §9.4 "Logical ids"). The store knows which slot it
/// serves; the catalog never sees physical positions.
public protocol PageStore: AnyObject {
    /// Returns the 4068-byte payload of logical block `index` as last committed.
    func readBlock(_ index: Int) throws -> [UInt8]

    /// Replaces the given logical blocks (id → 4068-byte payload) atomically and durably:
    /// on return every block is committed, on a throw none is.
    /// - Parameter logicalCount: the logical blocks the slot uses after this commit
    ///   (ids `0..<logicalCount`); blocks at or past it may be dropped.
    func commit(_ blocks: [Int: [UInt8]], logicalCount: Int) throws

    /// ``commit(_:logicalCount:)`` as one bucket of at least `minimumBucket` blocks where
    /// the store writes buckets (a container of inner format 2, docs/FORMAT.md §8.12's
    /// writer's floor); other stores commit as ``commit(_:logicalCount:)``.
    func commit(_ blocks: [Int: [UInt8]], logicalCount: Int, minimumBucket: Int) throws
}

extension PageStore {
    public func commit(_ blocks: [Int: [UInt8]], logicalCount: Int, minimumBucket: Int) throws {
        try commit(blocks, logicalCount: logicalCount)
    }
}
