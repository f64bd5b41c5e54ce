import Foundation
import ObscuraCrypto

/// What one commit of inner format 2 wrote (docs/FORMAT.md §8.12), per slot; package
/// access for the benchmarks.
package struct BlockCommitReport: Equatable {
    /// Logical blocks some slot changed.
    package let changed: Int
    /// The commit's need: the changed blocks and the map nodes over them, before cover
    /// (what chose the bucket, with the writer's floor).
    package let need: Int
    /// Logical blocks re-sealed unchanged as cover.
    package let cover: Int
    /// Map nodes rewritten.
    package let nodes: Int
    /// Blocks written per slot, the superblock not counted: the bucket, or every block
    /// of a whole rewrite.
    package let written: Int
    /// Whether the commit rewrote every block (growth, or a new key generation).
    package let whole: Bool
}

extension SlotContainer {
    /// A map node: its level (1 for leaves) and its index within the level.
    struct NodeID: Hashable, Comparable {
        let level: Int
        let index: Int
        static func < (a: NodeID, b: NodeID) -> Bool { (a.level, a.index) < (b.level, b.index) }
    }

    /// Commits new payloads for some logical blocks of some slots (inner format 2,
    /// docs/FORMAT.md §8.12). Every slot writes the same positions: the changed blocks,
    /// the map nodes over them, and cover blocks drawn at random and re-sealed unchanged,
    /// to a bucket of a fixed size, so the commit's size says nothing of which slot
    /// changed or of how many blocks it changed within the bucket.
    ///
    /// A commit that needs more than L logical blocks, or a new key generation, rewrites
    /// every block instead (§8.7). Durable when this returns, or a crash leaves the
    /// commit before it for recovery.
    ///
    /// - Parameters:
    ///   - changes: per slot, new 4068-byte payloads by logical id.
    ///   - needed: logical blocks the slots' contents now use; more than L grows.
    ///   - minimumBucket: the writer's floor (§8.12): the bucket is the smallest of the
    ///     sizes that holds the need and is at least this.
    @discardableResult
    package func commit(
        blocks changes: [SlotID: [Int: [UInt8]]], logicalCount needed: Int = 0, minimumBucket: Int = 0
    ) throws -> BlockCommitReport {
        guard !broken else { throw ContainerError.needsRecovery }
        precondition(state.innerFormat == .blocks, "block commits are inner format 2")
        guard changes.keys.allSatisfy(slots.contains) else { throw ContainerError.damaged("no such slot") }
        let ids = Set(changes.values.flatMap(\.keys))
        precondition(ids.allSatisfy { $0 >= 0 }, "logical ids are not negative")
        precondition(changes.values.allSatisfy { $0.values.allSatisfy { $0.count == ContainerFormat.payloadSize } }, "payload size")

        let logicalCount = Int(state.logicalCount)
        let shape = state.shape!
        var data = ids
        var nodes = Set(data.flatMap { Self.path(of: $0, shape: shape) })
        let need = data.count + nodes.count
        var bucket = ContainerFormat.bucket
        while need > bucket || bucket < minimumBucket { bucket *= ContainerFormat.bucketGrowth }
        // A bucket as large as the map is a whole rewrite anyway, which also keeps every
        // partial bucket within the free half of the container (§8.9: L + M ≤ free).
        let rekey = state.sealedUnderGeneration + UInt64(2 * bucket) >= ContainerFormat.rekeyAfter
        let used = max(needed, (ids.max() ?? -1) + 1)
        if used > logicalCount || rekey || bucket >= shape.blockCount {
            return try wholeCommit(changes, needed: used)
        }

        // Cover: logical blocks drawn uniformly, each with the nodes over it, until the
        // next would overflow the bucket; filler makes up the rest.
        var cover = 0
        while data.count < logicalCount {
            let j = random.uniform(in: 0..<logicalCount)
            guard !data.contains(j) else { continue }
            let extra = Self.path(of: j, shape: shape).filter { !nodes.contains($0) }
            guard data.count + nodes.count + 1 + extra.count <= bucket else { break }
            data.insert(j)
            nodes.formUnion(extra)
            cover += 1
        }

        var next = state
        next.sequence += 1
        next.commitID = random.bytes(16)
        // The first commit of a handle also counts a bucket for an attempt a crash may
        // have cut short before it (§8.7).
        next.sealedUnderGeneration += UInt64(barrierDone ? bucket : 2 * bucket)
        next.commitTime = Self.now()

        let live = Set(maps.values.first?.positions ?? [])
        let positions = drawPositions(bucket, below: Int(state.blockCount), avoiding: live)
        let dataIDs = data.sorted()
        // Leaves first, so a node is sealed after the children it references.
        let nodeIDs = nodes.sorted()
        let dataPositions = Array(positions[0..<dataIDs.count])
        let nodePositions = Array(positions[dataIDs.count..<(dataIDs.count + nodeIDs.count)])
        let filler = positions[(dataIDs.count + nodeIDs.count)...]

        try prepareToWrite()
        var newMaps = [SlotID: SlotMap]()
        for slot in random.shuffled(next.slots) {
            var map = maps[slot]!
            var writes = [(Int, [UInt8])]()
            for (j, position) in zip(dataIDs, dataPositions) {
                let payload = try changes[slot]?[j] ?? readVerifiedBlock(slot, j)
                let (block, reference) = try sealBlock(payload, slot: slot, at: position, next: next, kind: .data, level: 0, id: j)
                writes.append((position, block))
                map.data[j] = reference
            }
            for (node, position) in zip(nodeIDs, nodePositions) {
                let children = node.level == 1 ? map.data : map.nodes[node.level - 2]
                let first = node.index * ContainerFormat.fanout
                let body = Self.nodeBody(children[first..<min(first + ContainerFormat.fanout, children.count)], trailer: next.nodeTrailer)
                let (block, reference) = try sealBlock(
                    body, slot: slot, at: position, next: next, kind: .mapNode, level: node.level, id: node.index)
                writes.append((position, block))
                map.nodes[node.level - 1][node.index] = reference
            }
            for position in filler { writes.append((position, random.bytes(ContainerFormat.blockSize))) }
            for (position, block) in writes.sorted(by: { $0.0 < $1.0 }) {
                try files.write(slot.fileName, at: position * ContainerFormat.blockSize, block)
            }
            newMaps[slot] = map
        }
        try publish(next, maps: newMaps)
        try? setTimes()
        return BlockCommitReport(changed: ids.count, need: need, cover: cover, nodes: nodeIDs.count, written: bucket, whole: false)
    }

    /// The nodes over logical block `j`, one per level (§8.5).
    static func path(of j: Int, shape: MapShape) -> [NodeID] {
        var out = [NodeID]()
        var index = j
        for level in 1...shape.depth {
            index /= ContainerFormat.fanout
            out.append(NodeID(level: level, index: index))
        }
        return out
    }

    /// A block commit that has to rewrite everything (growth past L, or a new key
    /// generation): the changed slots' streams with the changes in place, through the
    /// whole-rewrite commit (§8.6).
    private func wholeCommit(_ changes: [SlotID: [Int: [UInt8]]], needed: Int) throws -> BlockCommitReport {
        let payload = ContainerFormat.payloadSize
        let size = max(needed, Int(state.logicalCount)) * payload
        var streams = [SlotID: [UInt8]]()
        for (slot, blocks) in changes {
            var stream = try readStream(slot)
            if stream.count < size { stream += random.bytes(size - stream.count) }
            for (j, bytes) in blocks { stream.replaceSubrange((j * payload)..<((j + 1) * payload), with: bytes) }
            streams[slot] = stream
        }
        try commit(replacing: streams)
        let shape = state.shape!
        let changed = Set(changes.values.flatMap(\.keys)).count
        return BlockCommitReport(
            changed: changed, need: changed + shape.nodeCount, cover: 0, nodes: shape.nodeCount,
            written: Int(state.blockCount) - ContainerFormat.firstData, whole: true)
    }
}
