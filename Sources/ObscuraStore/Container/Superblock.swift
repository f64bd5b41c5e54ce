import ObscuraCrypto

/// One superblock's plaintext (docs/FORMAT.md §8.4). Every field but the root references
/// is the same in every slot of one commit; a commit with sequence number k writes
/// superblock position k mod 2.
package struct Superblock: Equatable {
    typealias Field = ContainerFormat.SuperblockField

    /// Random at creation; the same in every slot, bound into every block.
    package var directoryID: [UInt8]
    /// The directory's commit sequence number.
    package var sequence: UInt64
    /// Random per commit, the same in every slot.
    package var commitID: [UInt8]
    /// N: blocks per slot file, a power of two.
    package var blockCount: UInt32
    /// The key generation new blocks are sealed under.
    package var generation: UInt32
    /// The oldest generation a live block may have (generation or generation − 1).
    var oldestGeneration: UInt32
    /// Blocks sealed under the current generation so far, per slot.
    package var sealedUnderGeneration: UInt64
    /// L: logical blocks per slot.
    package var logicalCount: UInt64
    /// What the logical blocks hold.
    package var innerFormat: ContainerFormat.InnerFormat
    /// The directory's slots, ascending.
    var slots: [SlotID]
    /// References to the top map level's nodes; this slot's own tags.
    var roots: [MapReference]
    /// Nanoseconds since 1970 UTC; every slot file's access and modification time.
    package var commitTime: UInt64

    /// The superblock position this commit is written at: its sequence number mod 2.
    var position: Int { Int(sequence % 2) }

    /// The trailer every map node this commit writes carries (§8.5).
    var nodeTrailer: [UInt8] { Array(commitID.prefix(ContainerFormat.nodeTrailerSize)) }

    /// The map shape L implies.
    var shape: MapShape? { MapShape(logicalCount: Int(clamping: logicalCount)) }

    /// The fields every slot of one commit shares: everything but the roots.
    func sameCommit(as other: Superblock) -> Bool {
        var a = self, b = other
        a.roots = []
        b.roots = []
        return a == b
    }

    /// The 4068-byte plaintext.
    func encoded() -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(ContainerFormat.payloadSize)
        out.appendBigEndian(ContainerFormat.version)
        out += directoryID
        out.appendBigEndian(sequence)
        out += commitID
        out.appendBigEndian(blockCount)
        out.appendBigEndian(generation)
        out.appendBigEndian(oldestGeneration)
        out.appendBigEndian(sealedUnderGeneration)
        out.appendBigEndian(logicalCount)
        out.append(UInt8(shape?.depth ?? 0))
        out.append(innerFormat.rawValue)
        out.appendBigEndian(UInt16(slots.count))
        for slot in slots { out += slot.bytes }
        out += [UInt8](repeating: 0, count: 16 * (ContainerFormat.maximumSlots - slots.count))
        for root in roots { root.encode(into: &out) }
        out += [UInt8](repeating: 0, count: ContainerFormat.referenceSize * (ContainerFormat.rootReferences - roots.count))
        out.appendBigEndian(commitTime)
        out += [UInt8](repeating: 0, count: 8)
        precondition(out.count == ContainerFormat.payloadSize, "superblock size")
        return out
    }

    /// Decodes and range-checks a plaintext; nil when any field is out of range (a
    /// superblock that opens but is malformed counts as not valid, §8.8).
    init?(decoding bytes: [UInt8]) {
        guard bytes.count == ContainerFormat.payloadSize,
              bytes.readBigEndian(UInt32.self, at: Field.version) == ContainerFormat.version,
              let inner = ContainerFormat.InnerFormat(rawValue: bytes[Field.innerFormat]),
              bytes[Field.reserved..<Field.end].allSatisfy({ $0 == 0 })
        else { return nil }
        directoryID = Array(bytes[Field.directoryID..<(Field.directoryID + 16)])
        sequence = bytes.readBigEndian(UInt64.self, at: Field.sequence)
        commitID = Array(bytes[Field.commitID..<(Field.commitID + 16)])
        blockCount = bytes.readBigEndian(UInt32.self, at: Field.blockCount)
        generation = bytes.readBigEndian(UInt32.self, at: Field.generation)
        oldestGeneration = bytes.readBigEndian(UInt32.self, at: Field.oldestGeneration)
        sealedUnderGeneration = bytes.readBigEndian(UInt64.self, at: Field.sealedUnderGeneration)
        logicalCount = bytes.readBigEndian(UInt64.self, at: Field.logicalCount)
        innerFormat = inner
        commitTime = bytes.readBigEndian(UInt64.self, at: Field.commitTime)

        let n = Int(bytes.readBigEndian(UInt16.self, at: Field.slotCount))
        guard (1...ContainerFormat.maximumSlots).contains(n) else { return nil }
        slots = (0..<n).map { SlotID(bytes: Array(bytes[(Field.slotSet + 16 * $0)..<(Field.slotSet + 16 * $0 + 16)])) }
        guard zip(slots, slots.dropFirst()).allSatisfy({ $0 < $1 }),
              bytes[(Field.slotSet + 16 * n)..<Field.roots].allSatisfy({ $0 == 0 })
        else { return nil }

        let blocks = Int(blockCount)
        guard blocks >= ContainerFormat.minimumBlocks, blocks <= ContainerFormat.maximumBlocks,
              blocks & (blocks - 1) == 0,
              generation >= 1, oldestGeneration >= 1,
              oldestGeneration == generation || oldestGeneration == generation - 1,
              let shape = MapShape(logicalCount: Int(clamping: logicalCount)),
              Int(bytes[Field.depth]) == shape.depth,
              shape.blockCount + ContainerFormat.firstData <= blocks
        else { return nil }
        roots = (0..<shape.rootCount).map { MapReference(decoding: bytes, at: Field.roots + ContainerFormat.referenceSize * $0) }
        let unusedRoots = (Field.roots + ContainerFormat.referenceSize * shape.rootCount)..<Field.commitTime
        guard bytes[unusedRoots].allSatisfy({ $0 == 0 }),
              roots.allSatisfy({ Int($0.position) >= ContainerFormat.firstData && Int($0.position) < blocks })
        else { return nil }
    }

    init(
        directoryID: [UInt8], sequence: UInt64, commitID: [UInt8], blockCount: UInt32, generation: UInt32,
        oldestGeneration: UInt32, sealedUnderGeneration: UInt64, logicalCount: UInt64,
        innerFormat: ContainerFormat.InnerFormat, slots: [SlotID], roots: [MapReference], commitTime: UInt64
    ) {
        self.directoryID = directoryID
        self.sequence = sequence
        self.commitID = commitID
        self.blockCount = blockCount
        self.generation = generation
        self.oldestGeneration = oldestGeneration
        self.sealedUnderGeneration = sealedUnderGeneration
        self.logicalCount = logicalCount
        self.innerFormat = innerFormat
        self.slots = slots
        self.roots = roots
        self.commitTime = commitTime
    }

    /// Seals this superblock for `slot` at its position.
    package func sealed(slot: SlotID, key: OuterKey, using random: RandomSource) throws -> [UInt8] {
        try OuterBlock.seal(
            encoded(), key: key.superblockKey(slot: slot),
            associatedData: OuterBlock.superblockAssociatedData(slot: slot, position: position), using: random)
    }

    /// Opens superblock `position` of `slot`; nil when it does not open or is malformed.
    package static func open(_ block: [UInt8], slot: SlotID, position: Int, key: SecureBytes) -> Superblock? {
        guard let plain = try? OuterBlock.open(
            block, key: key, associatedData: OuterBlock.superblockAssociatedData(slot: slot, position: position))
        else { return nil }
        return Superblock(decoding: plain)
    }
}
