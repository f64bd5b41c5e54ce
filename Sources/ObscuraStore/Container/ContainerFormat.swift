/// Byte layout of the slot container, version 4 (docs/FORMAT.md §8).
///
/// Every slot file is an array of 4096-byte blocks, each an AES-256-GCM seal under a
/// per-slot subkey of the directory's outer key. Two of them are superblocks (the commit
/// point); the rest are data blocks, map nodes and spares at positions that are the same
/// in every slot. All integers are big-endian.
public enum ContainerFormat {
    /// §8.1: the container version in every superblock.
    public static let version: UInt32 = 4
    /// §8.2: size of a physical block, bytes.
    public static let blockSize = 4096
    /// §8.2: plaintext bytes per block (block size less nonce and tag).
    public static let payloadSize = blockSize - 28
    /// §8.4: physical indices of the two superblocks.
    public static let superblockPositions = 0..<2
    /// §8.4: the first physical index a data block or map node may take.
    public static let firstData = 2
    /// §8.6: the smallest container, in blocks (1 MiB).
    public static let minimumBlocks = 256
    /// §8.6: the largest container, in blocks (positions are UInt32).
    public static let maximumBlocks = 1 << 31

    // §8.5 map references and nodes.
    /// Size of one map reference: UInt32 position, UInt32 key generation, 16-byte tag.
    public static let referenceSize = 24
    /// References per map node: ⌊4068 / 24⌋.
    public static let fanout = payloadSize / referenceSize
    /// References to top-level map nodes held by a superblock.
    public static let rootReferences = 123
    /// Offset of a map node's trailer: the first 12 bytes of the id of the commit that
    /// wrote the node, which lets recovery tell a slot that missed only its superblock
    /// from a slot that was rolled back (§8.8).
    public static let nodeTrailerOffset = fanout * referenceSize
    /// Size of a map node's trailer.
    public static let nodeTrailerSize = payloadSize - nodeTrailerOffset
    /// The deepest map this version writes or reads.
    public static let maximumDepth = 3

    // §8.4 superblock.
    /// The most slots a directory can have (the slot set's room in a superblock).
    public static let maximumSlots = 64
    /// Offsets of the superblock's plaintext fields.
    enum SuperblockField {
        static let version = 0
        static let directoryID = 4
        static let sequence = 20
        static let commitID = 28
        static let blockCount = 44
        static let generation = 48
        static let oldestGeneration = 52
        static let sealedUnderGeneration = 56
        static let logicalCount = 64
        static let depth = 72
        static let innerFormat = 73
        static let slotCount = 74
        static let slotSet = 76
        static let roots = slotSet + 16 * maximumSlots
        static let commitTime = roots + 24 * rootReferences
        static let reserved = commitTime + 8
        static let end = reserved + 8
    }

    // §8.3 associated data labels.
    /// The first 8 bytes of every data block's and map node's associated data.
    static let blockLabel: [UInt8] = Array("obsv4blk".utf8)
    /// The first 8 bytes of every superblock's associated data.
    static let superblockLabel: [UInt8] = Array("obsv4sb".utf8) + [0]
    /// The first 8 bytes of an install mark's associated data (§8.6 step I, "install marks").
    static let installLabel: [UInt8] = Array("obsv4in".utf8) + [0]

    /// §8.3: what a sealed block holds, in its associated data.
    package enum BlockKind: UInt8 {
        /// Logical block payload of the slot's inner contents.
        case data = 1
        /// A node of the block map.
        case mapNode = 2
    }

    /// §8.7: blocks sealed under one block subkey before a new key generation starts.
    /// With random 96-bit nonces, q seals collide with probability at most q²/2^97.
    public static let rekeyAfter: UInt64 = 1 << 31

    /// §8.9, §8.12: the inner formats a superblock can name.
    public enum InnerFormat: UInt8, Sendable {
        /// Version 3 slot contents as one byte stream (docs/FORMAT.md §3); every commit
        /// rewrites every logical block.
        case slotStream = 1
        /// Logical blocks committed one by one (§8.12): a commit writes the blocks some
        /// slot changes, and cover blocks, in a bucket of a fixed size.
        case blocks = 2
    }

    /// §8.12: the smallest bucket, in blocks written per slot by a commit of inner
    /// format 2 (data blocks, map nodes and filler; the superblock not counted).
    public static let bucket = 32
    /// §8.12: a larger commit takes the smallest bucket of `bucket · bucketGrowth^k`
    /// blocks that holds it.
    public static let bucketGrowth = 4
    /// §8.12, the writer's floor: the second bucket size, which a writer asks for a
    /// commit whose need would otherwise tell something a copy holder must not learn
    /// (a user's change that may drop picture index rows, docs/FORMAT.md §3.3).
    public static let floorBucket = bucket * bucketGrowth
}
