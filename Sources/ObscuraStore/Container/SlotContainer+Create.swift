import Foundation
import ObscuraCrypto

extension SlotContainer {
    /// Creates a container in the empty directory `files` with one slot per stream
    /// (docs/FORMAT.md §8.6, "Creation"), then opens it.
    ///
    /// Every slot file is written whole, with its first commit at superblock position 1
    /// and random bytes everywhere else, under a pending name; once all are durable they
    /// are renamed into place. A crash before the first rename leaves no slot (the
    /// pending files are removed at the next open); after it, recovery finishes the rest.
    /// `innerFormat` is what the streams are (§8.9, §8.12).
    package static func create(
        files: SlotFiles, key: OuterKey, streams: [[UInt8]], innerFormat: ContainerFormat.InnerFormat = .slotStream,
        random: RandomSource = SystemRandom()
    ) throws -> SlotContainer {
        precondition(!streams.isEmpty && streams.count <= ContainerFormat.maximumSlots, "slot count")
        let payload = ContainerFormat.payloadSize
        let needed = streams.map { ($0.count + payload - 1) / payload }.max()!
        guard let blocks = MapShape.blocksFitting(logicalCount: needed) else { throw ContainerError.tooLarge }
        let slots = streams.map { _ in SlotID.random(using: random) }
        let (first, plan) = firstCommit(slots: slots, blocks: blocks, innerFormat: innerFormat, random: random)
        for (slot, stream) in random.shuffled(Array(zip(slots, streams))) {
            try files.create(
                pendingPrefix + slot.fileName,
                image(of: slot, stream: stream, first: first, plan: plan, files: files, key: key, random: random))
        }
        for slot in random.shuffled(slots) {
            try files.rename(pendingPrefix + slot.fileName, to: slot.fileName)
        }
        try files.syncDirectory()
        return try open(files: files, key: key, random: random)
    }

    /// The first commit of a directory of `slots` in containers of `blocks` blocks, and
    /// where it puts every block (the same in every slot).
    static func firstCommit(
        slots: [SlotID], blocks: Int, innerFormat: ContainerFormat.InnerFormat = .slotStream, random: RandomSource
    ) -> (Superblock, WritePlan) {
        let shape = MapShape(logicalCount: MapShape.streamCapacity(blocks: blocks))!
        let first = Superblock(
            directoryID: random.bytes(16), sequence: 1, commitID: random.bytes(16), blockCount: UInt32(blocks),
            generation: 1, oldestGeneration: 1, sealedUnderGeneration: UInt64(shape.blockCount),
            logicalCount: UInt64(shape.logicalCount), innerFormat: innerFormat, slots: slots.sorted(), roots: [],
            commitTime: now())
        let plan = WritePlan(shape: shape, positions: draw(shape.blockCount, below: blocks, avoiding: [], using: random))
        return (first, plan)
    }

    /// The whole file of a slot whose only commit is `first`: its blocks at the plan's
    /// positions, its superblock at position 1, random bytes everywhere else (§8.8).
    static func image(
        of slot: SlotID, stream: [UInt8], first: Superblock, plan: WritePlan, files: SlotFiles, key: OuterKey,
        random: RandomSource
    ) throws -> [UInt8] {
        let shape = first.shape!
        let block = ContainerFormat.blockSize
        let size = shape.logicalCount * ContainerFormat.payloadSize
        precondition(stream.count <= size, "stream larger than the container's")
        // A container holding only `first`, so the commit's sealing code places every block.
        let staging = SlotContainer(files: files, key: key, random: random, state: first, maps: [:])
        let (writes, map) = try staging.sealSlot(slot, stream: stream + random.bytes(size - stream.count), next: first, plan: plan, shape: shape)
        var image = random.bytes(Int(first.blockCount) * block)
        for (position, sealed) in writes {
            image.replaceSubrange((position * block)..<((position + 1) * block), with: sealed)
        }
        var superblock = first
        superblock.roots = map.nodes[shape.depth - 1]
        let position = first.position
        image.replaceSubrange(
            (position * block)..<((position + 1) * block),
            with: try superblock.sealed(slot: slot, key: key, using: random))
        return image
    }
}
