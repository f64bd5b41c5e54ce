/// One slot's block map as read from disk (docs/FORMAT.md §8.5): the references to its
/// data blocks and to its map nodes, level by level. Positions and generations are the
/// same in every slot of a directory; tags are each slot's own.
package struct SlotMap: Equatable {
    /// References to logical blocks 0 … L − 1.
    package var data: [MapReference]
    /// References to the nodes of levels 1 … depth (index 0 is level 1, the leaves).
    package var nodes: [[MapReference]]

    /// Where each block sits and which generation it has, without the tags: what every
    /// slot of one directory must agree on.
    var layout: [UInt64] {
        (data + nodes.flatMap { $0 }).map { UInt64($0.position) << 32 | UInt64($0.generation) }
    }

    /// Every physical position in use.
    package var positions: [Int] {
        data.map { Int($0.position) } + nodes.flatMap { $0.map { Int($0.position) } }
    }
}

/// Where a commit puts each block of a full rewrite: one position per data block and per
/// map node, the same in every slot (docs/FORMAT.md §8.6).
struct WritePlan {
    /// New positions of logical blocks 0 … L − 1.
    let data: [Int]
    /// New positions of the nodes of levels 1 … depth.
    let nodes: [[Int]]

    /// Splits `positions` (drawn in random order) over the blocks of `shape`.
    init(shape: MapShape, positions: [Int]) {
        precondition(positions.count == shape.blockCount, "one position per block")
        data = Array(positions[0..<shape.logicalCount])
        var next = shape.logicalCount
        var nodes = [[Int]]()
        for count in shape.nodeCounts {
            nodes.append(Array(positions[next..<(next + count)]))
            next += count
        }
        self.nodes = nodes
    }
}
