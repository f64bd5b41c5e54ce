import Foundation
import ObscuraCrypto

/// The slot files of one vault directory as a version 4 container (docs/FORMAT.md §8):
/// equal-sized files of sealed 4096-byte blocks, written only in place and only through
/// one commit protocol that touches the same positions in every slot.
///
/// Each slot carries an inner byte stream of L · 4068 bytes (inner format 1: version 3
/// slot contents, then random bytes). A commit replaces the streams of some slots and
/// re-seals every other slot's unchanged stream, so between two versions of the
/// directory every slot differs at the same positions, with fresh seals.
///
/// Opening runs recovery (``SlotContainer+Recovery``), which needs only the outer key.
/// Not thread-safe: the vault directory serialises commits.
package final class SlotContainer {
    /// Prefix of a slot file being installed (directory creation, an added slot).
    static let pendingPrefix = ".pending-"

    let files: SlotFiles
    /// The outer key the container is sealed under; replaced by a rotation (§8.11).
    private(set) var key: OuterKey
    let random: RandomSource
    /// The agreed commit: shared fields, with the first slot's roots.
    package var state: Superblock
    /// Each slot's map at the agreed commit.
    package var maps: [SlotID: SlotMap]
    /// Set when a write failed part-way: memory may no longer match the disk.
    var broken = false
    /// Each slot's current superblock, as sealed on disk.
    var superblockBytes: [SlotID: [UInt8]] = [:]
    /// Whether this handle has made the current superblocks durable itself (§8.6 C0):
    /// what an open reads may still sit only in the page cache of a crashed writer.
    var barrierDone = false
    /// Whether the superblock position the next commit writes may hold a superblock
    /// under another outer key (after a rotation's commit, §8.11): the next commit then
    /// overwrites it in every slot and syncs before it writes any block, so the other key
    /// never finds a commit whose blocks are being overwritten.
    var otherPositionForeign = false
    private var blockKeys: [SlotID: [UInt32: SecureBytes]] = [:]
    private let keyCacheLock = NSLock()

    /// Seals everything written from now on under `newKey` (a rotation's commit, §8.11).
    func switchKey(to newKey: OuterKey) {
        keyCacheLock.withLock {
            key = newKey
            blockKeys = [:]
        }
    }

    init(files: SlotFiles, key: OuterKey, random: RandomSource, state: Superblock, maps: [SlotID: SlotMap]) {
        self.files = files
        self.key = key
        self.random = random
        self.state = state
        self.maps = maps
    }

    /// The directory's slots, in id order.
    package var slots: [SlotID] { state.slots }

    /// Bytes in each slot's inner stream.
    var streamSize: Int { Int(state.logicalCount) * ContainerFormat.payloadSize }

    /// The block subkey of `slot` in `generation`, derived once.
    func blockKey(_ slot: SlotID, _ generation: UInt32) -> SecureBytes {
        // Locked: opening loads the slots' maps in parallel.
        keyCacheLock.withLock {
            if let cached = blockKeys[slot]?[generation] { return cached }
            let derived = key.blockKey(slot: slot, generation: generation)
            blockKeys[slot, default: [:]][generation] = derived
            return derived
        }
    }

    /// Reads the block `reference` points at and opens it as `kind` at `level`/`logicalID`;
    /// the block must carry exactly the referenced tag (§8.5).
    func openBlock(
        _ slot: SlotID, _ reference: MapReference, kind: ContainerFormat.BlockKind, level: Int, logicalID: Int,
        directoryID: [UInt8]
    ) throws -> [UInt8] {
        let raw = try files.read(
            slot.fileName, at: Int(reference.position) * ContainerFormat.blockSize, count: ContainerFormat.blockSize)
        guard raw.count == ContainerFormat.blockSize, reference.isTag(of: raw) else {
            throw ContainerError.damaged("a block of a slot does not match its map")
        }
        let address = BlockAddress(
            position: reference.position, generation: reference.generation, kind: kind, level: UInt8(level),
            logicalID: UInt64(logicalID))
        do {
            return try OuterBlock.open(
                raw, key: blockKey(slot, reference.generation),
                associatedData: OuterBlock.associatedData(directory: directoryID, slot: slot, address: address))
        } catch {
            throw ContainerError.damaged("a block of a slot failed authentication")
        }
    }

    /// Logical block `index` of `slot`'s inner stream.
    package func readBlock(_ slot: SlotID, _ index: Int) throws -> [UInt8] {
        guard !broken else { throw ContainerError.needsRecovery }
        return try readVerifiedBlock(slot, index)
    }

    /// ``readBlock(_:_:)`` without the broken check, for a commit re-sealing it.
    func readVerifiedBlock(_ slot: SlotID, _ index: Int) throws -> [UInt8] {
        guard let map = maps[slot], index < map.data.count else { throw ContainerError.damaged("no such block") }
        return try openBlock(slot, map.data[index], kind: .data, level: 0, logicalID: index, directoryID: state.directoryID)
    }

    /// The first `count` bytes of `slot`'s inner stream (at most the whole stream).
    package func readStream(_ slot: SlotID, count: Int? = nil) throws -> [UInt8] {
        guard !broken else { throw ContainerError.needsRecovery }
        return try readVerifiedStream(slot, count: count)
    }

    /// ``readStream(_:count:)`` without the broken check, for a commit re-sealing it.
    func readVerifiedStream(_ slot: SlotID, count: Int? = nil) throws -> [UInt8] {
        let wanted = min(count ?? streamSize, streamSize)
        let blocks = (wanted + ContainerFormat.payloadSize - 1) / ContainerFormat.payloadSize
        var out = [UInt8]()
        out.reserveCapacity(blocks * ContainerFormat.payloadSize)
        for index in 0..<blocks { out += try readVerifiedBlock(slot, index) }
        return Array(out.prefix(wanted))
    }

    /// Reads and verifies `slot`'s map from its superblock's roots, top level down. In
    /// inner format 1 every node is rewritten by every commit, so each must carry the
    /// superblock's commit id in its trailer. In inner format 2 a node keeps the id of
    /// the commit that last wrote it, so only a roll forward checks trailers (§8.8 R6):
    /// given `previous`, the slot's map at the agreed commit, a node must carry the
    /// superblock's commit id unless its reference is the one `previous` has.
    func loadMap(_ slot: SlotID, _ superblock: Superblock, previous: SlotMap? = nil) throws -> SlotMap {
        guard let shape = superblock.shape else { throw ContainerError.damaged("map shape") }
        var nodes = [[MapReference]](repeating: [], count: shape.depth)
        nodes[shape.depth - 1] = superblock.roots
        var data = [MapReference]()
        for level in stride(from: shape.depth, through: 1, by: -1) {
            var below = [MapReference]()
            for (index, reference) in nodes[level - 1].enumerated() {
                let payload = try openBlock(
                    slot, reference, kind: .mapNode, level: level, logicalID: index, directoryID: superblock.directoryID)
                let children = shape.childCount(level: level, index: index)
                for i in 0..<children {
                    below.append(MapReference(decoding: payload, at: ContainerFormat.referenceSize * i))
                }
                guard payload[(ContainerFormat.referenceSize * children)..<ContainerFormat.nodeTrailerOffset].allSatisfy({ $0 == 0 }) else {
                    throw ContainerError.damaged("a map node has trailing bytes")
                }
                let unchanged = previous.map { $0.nodes.count >= level && $0.nodes[level - 1].count > index
                    && $0.nodes[level - 1][index] == reference } ?? false
                let checked = previous != nil || superblock.innerFormat == .slotStream
                guard !checked || unchanged || Array(payload[ContainerFormat.nodeTrailerOffset...]) == superblock.nodeTrailer else {
                    throw ContainerError.damaged("a map node is from another commit")
                }
            }
            if level > 1 { nodes[level - 2] = below } else { data = below }
        }
        let map = SlotMap(data: data, nodes: nodes)
        let blocks = Int(superblock.blockCount)
        let positions = map.positions
        guard positions.allSatisfy({ $0 >= ContainerFormat.firstData && $0 < blocks }),
              Set(positions).count == positions.count,
              (data + nodes.flatMap { $0 }).allSatisfy({
                  $0.generation >= superblock.oldestGeneration && $0.generation <= superblock.generation })
        else { throw ContainerError.damaged("a map reference is out of range") }
        return map
    }
}
