/// The shape of a block map over L logical blocks (docs/FORMAT.md §8.5): how many map
/// nodes each level has. Level 1 nodes (leaves) reference data blocks 169·k … 169·k + 168,
/// a level h node references level h − 1 nodes, and the superblock's root references
/// point at the nodes of the top level, of which there are at most 123.
package struct MapShape: Equatable {
    /// Logical blocks (data) per slot.
    let logicalCount: Int
    /// Node counts of levels 1 … depth.
    package let nodeCounts: [Int]

    /// The map over `logicalCount` blocks; nil when it would need more than
    /// ``ContainerFormat/maximumDepth`` levels or has no blocks.
    package init?(logicalCount: Int) {
        // Beyond the largest container no shape exists; the bound also keeps the
        // arithmetic below from overflowing on a superblock's UInt64 L.
        guard logicalCount >= 1, logicalCount <= ContainerFormat.maximumBlocks else { return nil }
        var counts = [Int]()
        var below = logicalCount
        repeat {
            below = (below + ContainerFormat.fanout - 1) / ContainerFormat.fanout
            counts.append(below)
        } while below > ContainerFormat.rootReferences
        guard counts.count <= ContainerFormat.maximumDepth else { return nil }
        self.logicalCount = logicalCount
        self.nodeCounts = counts
    }

    /// Map levels (1 … 3).
    package var depth: Int { nodeCounts.count }
    /// Map nodes, all levels.
    package var nodeCount: Int { nodeCounts.reduce(0, +) }
    /// Blocks a full rewrite writes per slot: every data block and every node.
    var blockCount: Int { logicalCount + nodeCount }
    /// Root references the superblock uses.
    var rootCount: Int { nodeCounts.last! }

    /// How many blocks (or nodes) of the level below node `index` of `level` references.
    func childCount(level: Int, index: Int) -> Int {
        let below = level == 1 ? logicalCount : nodeCounts[level - 2]
        return min(ContainerFormat.fanout, below - index * ContainerFormat.fanout)
    }

    /// Inner format 1 (§8.9): the most logical blocks a container of `blocks` blocks
    /// carries, so that a full rewrite always finds room beside the live copy:
    /// 2 · (L + M(L)) + 2 ≤ N.
    package static func streamCapacity(blocks: Int) -> Int {
        var low = 0, high = blocks / 2
        while low < high {
            let mid = (low + high + 1) / 2
            if let shape = MapShape(logicalCount: mid), 2 * shape.blockCount + ContainerFormat.firstData <= blocks {
                low = mid
            } else {
                high = mid - 1
            }
        }
        return low
    }

    /// The smallest container (a power of two, at least the minimum) whose stream
    /// capacity holds `logicalCount` blocks, or nil beyond the largest.
    static func blocksFitting(logicalCount: Int, atLeast minimum: Int = ContainerFormat.minimumBlocks) -> Int? {
        var blocks = max(minimum, ContainerFormat.minimumBlocks)
        while streamCapacity(blocks: blocks) < logicalCount {
            blocks *= 2
            if blocks > ContainerFormat.maximumBlocks { return nil }
        }
        return blocks
    }
}
