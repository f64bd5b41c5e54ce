import Foundation
import ObscuraCrypto

extension SlotContainer {
    /// Commits new inner streams for the slots in `replacing` and adds a slot for each of
    /// `adding`, re-sealing every other slot's stream unchanged (docs/FORMAT.md §8.6).
    ///
    /// A stream shorter than the slots' stream size is padded with random bytes; a longer
    /// one grows every slot first (§8.7). Either the whole commit is durable when this
    /// returns, or a crash at any point leaves the previous commit for recovery to find.
    ///
    /// - Returns: the ids of the added slots, in the order of `adding`.
    /// - Parameter newKey: seals the commit under this outer key instead (a rotation,
    ///   §8.11): every block and superblock it writes is under the new key's subkeys,
    ///   in a new key generation, and the container keeps the new key from then on.
    /// - Parameter innerFormat: what the slots hold from this commit on (§8.9, §8.12);
    ///   unchanged when nil.
    @discardableResult
    package func commit(
        replacing: [SlotID: [UInt8]] = [:], adding: [[UInt8]] = [], rekeyingTo newKey: OuterKey? = nil,
        innerFormat: ContainerFormat.InnerFormat? = nil
    ) throws -> [SlotID] {
        guard !broken else { throw ContainerError.needsRecovery }
        precondition(newKey == nil || adding.isEmpty, "a rotation adds no slot")
        guard replacing.keys.allSatisfy(slots.contains) else { throw ContainerError.damaged("no such slot") }
        guard slots.count + adding.count <= ContainerFormat.maximumSlots else { throw ContainerError.tooLarge }

        let payload = ContainerFormat.payloadSize
        let needed = (Array(replacing.values) + adding).map { ($0.count + payload - 1) / payload }.max() ?? 0
        guard let blocks = MapShape.blocksFitting(
            logicalCount: max(needed, Int(state.logicalCount)), atLeast: Int(state.blockCount))
        else { throw ContainerError.tooLarge }
        let logicalCount = MapShape.streamCapacity(blocks: blocks)
        let shape = MapShape(logicalCount: logicalCount)!
        let grows = blocks > Int(state.blockCount)

        // A new generation at growth (every block is rewritten anyway) and before the
        // nonce budget of the current one runs out (§8.7).
        let rekey = grows || newKey != nil
            || state.sealedUnderGeneration + UInt64(2 * shape.blockCount) >= ContainerFormat.rekeyAfter
        let generation = rekey ? state.generation + 1 : state.generation
        // The first commit of a handle also counts one commit's seals for an attempt a
        // crash may have cut short before it (its seals may have reached the disk).
        let attempted = UInt64(barrierDone ? shape.blockCount : 2 * shape.blockCount)
        let sealed = (rekey ? 0 : state.sealedUnderGeneration) + attempted

        let added = adding.map { _ in SlotID.random(using: random) }
        var next = state
        next.sequence += 1
        next.commitID = random.bytes(16)
        next.blockCount = UInt32(blocks)
        next.generation = generation
        next.oldestGeneration = generation
        next.sealedUnderGeneration = sealed
        next.logicalCount = UInt64(logicalCount)
        next.slots = (slots + added).sorted()
        next.innerFormat = innerFormat ?? state.innerFormat
        next.commitTime = Self.now()

        let live = Set(maps.values.first?.positions ?? [])
        let plan = WritePlan(shape: shape, positions: drawPositions(shape.blockCount, below: blocks, avoiding: live))
        // Every free position the plan leaves gets random bytes: a commit writes all of
        // the free space, so no older block outlives the commit after the one that freed it.
        let placed = Set(plan.data + plan.nodes.flatMap { $0 })
        let filler = (ContainerFormat.firstData..<blocks).filter { !live.contains($0) && !placed.contains($0) }
        var streams = replacing
        for (id, stream) in zip(added, adding) { streams[id] = stream }
        if newKey != nil {
            // Read under the old key before anything is sealed under the new one.
            for slot in slots where streams[slot] == nil { streams[slot] = try readVerifiedStream(slot) }
        }

        try prepareToWrite()
        if !added.isEmpty { try install(added, blocks: blocks) }
        if grows { try grow(to: blocks) }
        if let newKey { switchKey(to: newKey) }
        let newMaps = try writeBlocks(next, plan: plan, filler: filler, shape: shape, streams: streams)
        try publish(next, maps: newMaps)
        // The other position still holds the commit before, under the old key.
        if newKey != nil { otherPositionForeign = true }
        // The commit is durable whatever happens here; times left unequal are set again by
        // recovery at the next open (§8.8).
        try? setTimes()
        return added
    }

    /// Steps C0 and C0′ (§8.6), then marks the handle for recovery until the commit is
    /// durable: from here a failed write leaves the page cache unknown.
    func prepareToWrite() throws {
        // The barrier rewrites bytes already on disk: its failure (a read-only mount, a
        // full or failing disk) leaves the container as it was, still readable.
        if !barrierDone { try writeBarrier() }
        if otherPositionForeign { try retireOtherSuperblocks() }
        broken = true
    }

    /// Steps C2–C4 (§8.6): syncs the blocks already written, writes every slot's
    /// superblock of `next` with its roots from `newMaps`, syncs, and takes the commit as
    /// the agreed one.
    func publish(_ next: Superblock, maps newMaps: [SlotID: SlotMap]) throws {
        try files.sync(next.slots.map(\.fileName))
        var sealedSuperblocks = [SlotID: [UInt8]]()
        for slot in random.shuffled(next.slots) {
            var superblock = next
            superblock.roots = newMaps[slot]!.nodes.last!
            sealedSuperblocks[slot] = try writeSuperblock(superblock, of: slot)
        }
        try files.sync(next.slots.map(\.fileName))
        // Durable: memory follows the disk from here.
        state = next
        state.roots = newMaps[next.slots[0]]!.nodes.last!
        maps = newMaps
        superblockBytes = sealedSuperblocks
        broken = false
    }

    /// Step C0′ (§8.6, §8.11), when ``otherPositionForeign``: overwrites every slot's
    /// other superblock position, which may hold the previous commit under another outer
    /// key, with random bytes, and syncs, before any block is written. From here on that
    /// key opens nothing, rather than a commit whose blocks are being overwritten.
    func retireOtherSuperblocks() throws {
        guard !broken else { throw ContainerError.needsRecovery }
        let other = 1 - state.position
        // A failed write or sync leaves the page cache unknown, as in a commit.
        broken = true
        for slot in random.shuffled(slots) {
            try files.write(slot.fileName, at: other * ContainerFormat.blockSize, random.bytes(ContainerFormat.blockSize))
        }
        try files.sync(slots.map(\.fileName))
        broken = false
        otherPositionForeign = false
    }

    /// Step C0 (§8.6): writes every slot's current superblock back, byte for byte, and
    /// syncs. An open may have read superblocks that a crashed or failed writer left only
    /// in the page cache; the next commit overwrites the blocks of the commit before
    /// them, so they must be durable first. The bytes are the same: nothing is revealed.
    private func writeBarrier() throws {
        for slot in random.shuffled(slots) {
            try files.write(slot.fileName, at: state.position * ContainerFormat.blockSize, superblockBytes[slot]!)
        }
        try files.sync(slots.map(\.fileName))
        barrierDone = true
    }

    /// Seals `superblock` for `slot` afresh and writes it at its position; returns the
    /// sealed bytes.
    func writeSuperblock(_ superblock: Superblock, of slot: SlotID) throws -> [UInt8] {
        let bytes = try superblock.sealed(slot: slot, key: key, using: random)
        try files.write(slot.fileName, at: superblock.position * ContainerFormat.blockSize, bytes)
        return bytes
    }

    /// Sets every slot's access and modification times to the commit time, in a random
    /// order: each call also sets the change time (§8.8).
    func setTimes() throws {
        for slot in random.shuffled(slots) {
            try files.setTimes(slot.fileName, to: state.commitTime)
        }
    }

    /// Seals and writes every slot's blocks at the plan's positions; returns the new maps.
    private func writeBlocks(
        _ next: Superblock, plan: WritePlan, filler: [Int], shape: MapShape, streams: [SlotID: [UInt8]]
    ) throws -> [SlotID: SlotMap] {
        var newMaps = [SlotID: SlotMap]()
        let size = shape.logicalCount * ContainerFormat.payloadSize
        for slot in random.shuffled(next.slots) {
            var stream = try streams[slot] ?? readVerifiedStream(slot)
            if stream.count < size { stream += random.bytes(size - stream.count) }
            var (writes, map) = try sealSlot(slot, stream: stream, next: next, plan: plan, shape: shape)
            for position in filler { writes.append((position, random.bytes(ContainerFormat.blockSize))) }
            for (position, block) in writes.sorted(by: { $0.0 < $1.0 }) {
                try files.write(slot.fileName, at: position * ContainerFormat.blockSize, block)
            }
            newMaps[slot] = map
        }
        return newMaps
    }

    /// Seals `stream` into data blocks and the map over them, under the next commit's
    /// generation, at the plan's positions.
    func sealSlot(
        _ slot: SlotID, stream: [UInt8], next: Superblock, plan: WritePlan, shape: MapShape
    ) throws -> (writes: [(Int, [UInt8])], map: SlotMap) {
        let payload = ContainerFormat.payloadSize
        var writes = [(Int, [UInt8])]()
        writes.reserveCapacity(shape.blockCount)

        func seal(_ bytes: [UInt8], at position: Int, kind: ContainerFormat.BlockKind, level: Int, id: Int) throws -> MapReference {
            let (block, reference) = try sealBlock(bytes, slot: slot, at: position, next: next, kind: kind, level: level, id: id)
            writes.append((position, block))
            return reference
        }

        var data = [MapReference]()
        data.reserveCapacity(shape.logicalCount)
        for j in 0..<shape.logicalCount {
            data.append(try seal(Array(stream[(j * payload)..<((j + 1) * payload)]), at: plan.data[j], kind: .data, level: 0, id: j))
        }
        var nodes = [[MapReference]]()
        var below = data
        for level in 1...shape.depth {
            var references = [MapReference]()
            for index in 0..<shape.nodeCounts[level - 1] {
                let first = index * ContainerFormat.fanout
                let body = Self.nodeBody(below[first..<min(first + ContainerFormat.fanout, below.count)], trailer: next.nodeTrailer)
                references.append(try seal(body, at: plan.nodes[level - 1][index], kind: .mapNode, level: level, id: index))
            }
            nodes.append(references)
            below = references
        }
        return (writes, SlotMap(data: data, nodes: nodes))
    }

    /// Seals one data block or map node of `slot` for the commit `next` at `position`
    /// (§8.3); returns the block and the reference its parent records.
    func sealBlock(
        _ payload: [UInt8], slot: SlotID, at position: Int, next: Superblock, kind: ContainerFormat.BlockKind,
        level: Int, id: Int
    ) throws -> ([UInt8], MapReference) {
        let address = BlockAddress(
            position: UInt32(position), generation: next.generation, kind: kind, level: UInt8(level), logicalID: UInt64(id))
        let block = try OuterBlock.seal(
            payload, key: blockKey(slot, next.generation),
            associatedData: OuterBlock.associatedData(directory: next.directoryID, slot: slot, address: address),
            using: random)
        return (block, MapReference(position: UInt32(position), generation: next.generation, tag: OuterBlock.tag(of: block)))
    }

    /// A map node's plaintext (§8.5): its children's references, zeros, then `trailer`,
    /// the id of the commit that writes it.
    static func nodeBody(_ children: ArraySlice<MapReference>, trailer: [UInt8]) -> [UInt8] {
        var body = [UInt8]()
        body.reserveCapacity(ContainerFormat.payloadSize)
        for child in children { child.encode(into: &body) }
        body += [UInt8](repeating: 0, count: ContainerFormat.nodeTrailerOffset - body.count)
        body += trailer
        return body
    }

    /// `count` distinct positions drawn uniformly from [firstData, blocks) outside `live`,
    /// in the order drawn.
    func drawPositions(_ count: Int, below blocks: Int, avoiding live: Set<Int>) -> [Int] {
        Self.draw(count, below: blocks, avoiding: live, using: random)
    }

    /// ``drawPositions(_:below:avoiding:)`` with an explicit source.
    static func draw(_ count: Int, below blocks: Int, avoiding live: Set<Int>, using random: RandomSource) -> [Int] {
        precondition(blocks - ContainerFormat.firstData - live.count >= count, "not enough free blocks")
        var taken = Set<Int>()
        var out = [Int]()
        out.reserveCapacity(count)
        while out.count < count {
            let position = random.uniform(in: ContainerFormat.firstData..<blocks)
            if !live.contains(position), taken.insert(position).inserted { out.append(position) }
        }
        return out
    }

    /// Extends every slot to `blocks` blocks of random bytes, written whole (no holes),
    /// and makes the new size durable before any block is placed there (§8.7).
    private func grow(to blocks: Int) throws {
        let end = blocks * ContainerFormat.blockSize
        let piece = 1 << 20
        for slot in random.shuffled(slots) {
            var offset = try files.size(slot.fileName)
            while offset < end {
                let count = min(piece, end - offset)
                try files.write(slot.fileName, at: offset, random.bytes(count))
                offset += count
            }
        }
        try files.sync(slots.map(\.fileName))
    }

    /// Creates slot files of `blocks` random blocks for `added` (§8.8): each is written
    /// whole under a pending name, then renamed into place. Until the commit that lists
    /// them is durable, recovery removes them again.
    private func install(_ added: [SlotID], blocks: Int) throws {
        for slot in added {
            // Install marks at both superblock positions: until a commit lists the slot,
            // they are what tells recovery that this writer made the file (R7).
            var bytes = [UInt8]()
            bytes.reserveCapacity(blocks * ContainerFormat.blockSize)
            for position in ContainerFormat.superblockPositions {
                bytes += try OuterBlock.seal(
                    [UInt8](repeating: 0, count: ContainerFormat.payloadSize), key: key.superblockKey(slot: slot),
                    associatedData: OuterBlock.installMarkAssociatedData(slot: slot, position: position), using: random)
            }
            bytes += random.bytes(blocks * ContainerFormat.blockSize - bytes.count)
            try files.create(Self.pendingPrefix + slot.fileName, bytes)
        }
        for slot in added {
            try files.rename(Self.pendingPrefix + slot.fileName, to: slot.fileName)
        }
        try files.syncDirectory()
    }

    /// Now, in nanoseconds since 1970.
    static func now() -> UInt64 {
        let time = FileIO.now()
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
