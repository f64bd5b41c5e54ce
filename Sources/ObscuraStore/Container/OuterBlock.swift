import ObscuraCrypto

/// Where a sealed data block or map node sits and what it is: all of it goes into the
/// block's associated data (docs/FORMAT.md §8.3), so a block moved to another slot,
/// position, generation, kind or logical id fails its tag.
package struct BlockAddress: Equatable {
    /// Physical index in the slot file.
    package var position: UInt32
    /// The key generation the block is sealed under.
    package var generation: UInt32
    /// Data block or map node.
    package var kind: ContainerFormat.BlockKind
    /// 0 for data, 1 for a leaf map node, and so on up.
    package var level: UInt8
    /// The logical block number (data), or the node's number within its level.
    package var logicalID: UInt64

    /// The address of one block, for the package's vectors and tests.
    package init(position: UInt32, generation: UInt32, kind: ContainerFormat.BlockKind, level: UInt8, logicalID: UInt64) {
        self.position = position
        self.generation = generation
        self.kind = kind
        self.level = level
        self.logicalID = logicalID
    }
}

/// Sealing and opening of one 4096-byte outer block: nonce (12) ‖ ciphertext (4068) ‖
/// tag (16), with a fresh random nonce at every write (docs/FORMAT.md §8.2, §8.3).
package enum OuterBlock {
    /// The associated data of a data block or map node (§8.3): 58 bytes.
    package static func associatedData(directory: [UInt8], slot: SlotID, address: BlockAddress) -> [UInt8] {
        var ad = ContainerFormat.blockLabel
        ad.reserveCapacity(58)
        ad += directory
        ad += slot.bytes
        ad.appendBigEndian(address.position)
        ad.appendBigEndian(address.generation)
        ad.append(address.kind.rawValue)
        ad.append(address.level)
        ad.appendBigEndian(address.logicalID)
        return ad
    }

    /// The associated data of superblock `position` of `slot` (§8.4).
    static func superblockAssociatedData(slot: SlotID, position: Int) -> [UInt8] {
        ContainerFormat.superblockLabel + slot.bytes + [UInt8(position)]
    }

    /// The associated data of the install mark at superblock position `position` of a
    /// slot being added (§8.6): the superblock's, under another label.
    static func installMarkAssociatedData(slot: SlotID, position: Int) -> [UInt8] {
        ContainerFormat.installLabel + slot.bytes + [UInt8(position)]
    }

    /// Seals a 4068-byte payload into a 4096-byte block.
    package static func seal(_ payload: [UInt8], key: SecureBytes, associatedData: [UInt8], using random: RandomSource) throws -> [UInt8] {
        precondition(payload.count == ContainerFormat.payloadSize, "outer block payload size")
        return try AESGCM.seal(payload, key: key, authenticating: associatedData, using: random)
    }

    /// Opens a 4096-byte block; throws when its tag does not verify.
    static func open(_ block: some Collection<UInt8>, key: SecureBytes, associatedData: [UInt8]) throws -> [UInt8] {
        guard block.count == ContainerFormat.blockSize else { throw ContainerError.damaged("a block is short") }
        return try AESGCM.open(block, key: key, authenticating: associatedData)
    }

    /// The GCM tag of a sealed block: what a map reference records of it.
    static func tag(of block: [UInt8]) -> [UInt8] {
        Array(block[(ContainerFormat.blockSize - AESGCM.tagSize)...])
    }
}

/// A map reference (docs/FORMAT.md §8.5): where a block is, the generation it is sealed
/// under, and its tag. Checking a block against the tag binds its exact bytes, so an
/// older seal of the same block at the same position (which would open) is refused.
package struct MapReference: Equatable {
    /// Physical index of the referenced block.
    package var position: UInt32
    /// Key generation of the referenced block.
    var generation: UInt32
    // The tag's 16 bytes, big-endian, held inline: a container keeps every slot's map in
    // memory, ten times L references (2.6 million at 1,000,000 items), and an array per
    // tag cost a heap allocation each (hundreds of milliseconds and of MiB at open).
    private var tagHigh: UInt64
    private var tagLow: UInt64

    /// Whether `block` (a whole sealed block) ends with this reference's GCM tag.
    func isTag(of block: [UInt8]) -> Bool {
        let offset = block.count - AESGCM.tagSize
        return offset >= 0 && block.readBigEndian(UInt64.self, at: offset) == tagHigh
            && block.readBigEndian(UInt64.self, at: offset + 8) == tagLow
    }

    /// An all-zero reference: an unused root entry.
    static let unused = MapReference(position: 0, generation: 0, tag: [UInt8](repeating: 0, count: 16))

    /// Appends the 24-byte encoding.
    func encode(into out: inout [UInt8]) {
        out.appendBigEndian(position)
        out.appendBigEndian(generation)
        out.appendBigEndian(tagHigh)
        out.appendBigEndian(tagLow)
    }

    /// Decodes the reference at `offset`.
    init(decoding bytes: [UInt8], at offset: Int) {
        position = bytes.readBigEndian(UInt32.self, at: offset)
        generation = bytes.readBigEndian(UInt32.self, at: offset + 4)
        tagHigh = bytes.readBigEndian(UInt64.self, at: offset + 8)
        tagLow = bytes.readBigEndian(UInt64.self, at: offset + 16)
    }

    /// A reference to the block at `position` sealed under `generation` with the
    /// 16-byte `tag`.
    init(position: UInt32, generation: UInt32, tag: [UInt8]) {
        precondition(tag.count == AESGCM.tagSize, "a GCM tag is 16 bytes")
        self.position = position
        self.generation = generation
        tagHigh = tag.readBigEndian(UInt64.self, at: 0)
        tagLow = tag.readBigEndian(UInt64.self, at: 8)
    }
}
