import Foundation
import ObscuraCrypto

extension SlotContainer {
    /// Creates a container in the empty directory `files` with one slot per stream
    /// (docs/FORMAT.md §8.8), then opens it.
    ///
    /// Every slot file is written whole, with its first commit at superblock position 1
    /// and random bytes everywhere else, under a pending name; once all are durable they
    /// are renamed into place. A crash before the first rename leaves no slot (the
    /// pending files are removed at the next open); after it, recovery finishes the rest.
    static func create(
        files: SlotFiles, key: OuterKey, streams: [[UInt8]], random: RandomSource = SystemRandom()
    ) throws -> SlotContainer {
        precondition(!streams.isEmpty && streams.count <= ContainerFormat.maximumSlots, "slot count")
        let payload = ContainerFormat.payloadSize
        let needed = streams.map { ($0.count + payload - 1) / payload }.max()!
        guard let blocks = MapShape.blocksFitting(logicalCount: needed) else { throw ContainerError.tooLarge }
        let shape = MapShape(logicalCount: MapShape.streamCapacity(blocks: blocks))!
        let slots = streams.map { _ in SlotID.random(using: random) }
        let first = Superblock(
            directoryID: random.bytes(16), sequence: 1, commitID: random.bytes(16), blockCount: UInt32(blocks),
            generation: 1, oldestGeneration: 1, sealedUnderGeneration: UInt64(shape.blockCount),
            logicalCount: UInt64(shape.logicalCount), innerFormat: .slotStream, slots: slots.sorted(), roots: [],
            commitTime: now())

        // An empty container whose only state is `first` without maps: the commit's
        // sealing code then places every block, and nothing here repeats it.
        let staging = SlotContainer(files: files, key: key, random: random, state: first, maps: [:])
        let plan = WritePlan(shape: shape, positions: staging.drawPositions(shape.blockCount, below: blocks, avoiding: []))
        for (slot, stream) in random.shuffled(Array(zip(slots, streams))) {
            var image = random.bytes(blocks * ContainerFormat.blockSize)
            let padded = stream + random.bytes(shape.logicalCount * payload - stream.count)
            let (writes, map) = try staging.sealSlot(slot, stream: padded, next: first, plan: plan, shape: shape)
            for (position, block) in writes {
                image.replaceSubrange((position * ContainerFormat.blockSize)..<((position + 1) * ContainerFormat.blockSize), with: block)
            }
            var superblock = first
            superblock.roots = map.nodes[shape.depth - 1]
            let position = Int(first.sequence % 2)
            image.replaceSubrange(
                (position * ContainerFormat.blockSize)..<((position + 1) * ContainerFormat.blockSize),
                with: try superblock.sealed(slot: slot, position: position, key: key, using: random))
            try files.create(pendingPrefix + slot.fileName, image)
        }
        for slot in random.shuffled(slots) {
            try files.rename(pendingPrefix + slot.fileName, to: slot.fileName)
        }
        try files.syncDirectory()
        return try open(files: files, key: key, random: random)
    }
}
