import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraPages
import ObscuraStore

/// The container of the paged-catalog vector (docs/FORMAT.md §5, §8.12, §9): two slots of
/// inner format 2, the first holding a paged catalog that two commits wrote, the second
/// only the cover every commit re-seals. It records what the readers check: the logical
/// blocks of the catalog at both commits, and the plan of the last block commit.
///
/// Every random byte comes from seeded streams. Creation opens the directory, whose
/// recovery draws from its source only when the slots' times differ (§8.8 R10), which
/// the clock decides; so the generator reopens the container under a second stream once
/// the times agree, and every later draw is the same at every run. Commits stamp the
/// clock's time into the superblocks, which the generator re-seals with fixed times.
final class PagedVectorContainer {
    /// The catalog's database at one commit, and its logical blocks.
    struct Commit {
        let image: [UInt8]
        let blocks: [Int: [UInt8]]
    }

    /// The plan of a block commit (§8.12), as read back from the maps and files.
    struct Plan {
        let sequence: Int
        let bucket: Int
        let changed: [Int]
        let cover: [Int]
        let nodes: [(level: Int, index: Int, position: Int)]
        let dataPositions: [(id: Int, position: Int)]
        let filler: [Int]
        let liveBefore: [Int]
    }

    /// The commit time of superblock k is this plus k nanoseconds.
    static let commitTimeBase: UInt64 = 1_700_000_000_000_000_000

    let directory: String
    let outer: SecureBytes
    private(set) var container: SlotContainer
    private let files: DiskSlotFiles
    private let key: OuterKey

    /// Creates the directory and switches it to inner format 2.
    init(seed: String) throws {
        let random = SeededRandom(seed: seed)
        outer = SecureBytes(randomCount: 32, using: random)
        key = try OuterKey(outer)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("obscura-vectors-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        _ = try SlotContainer.create(files: DiskSlotFiles(path: directory), key: key, streams: [[], []], random: random)
        files = DiskSlotFiles(path: directory)
        container = try SlotContainer.open(files: files, key: key, random: SeededRandom(seed: seed + " commits"))
        try container.commit(innerFormat: .blocks)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// The slot that holds the catalog, and the other one.
    var vaultSlot: SlotID { container.slots[0] }
    var otherSlot: SlotID { container.slots[1] }

    /// The store of the catalog's slot.
    func store() -> SlotPageStore { SlotPageStore(container: container, slot: vaultSlot) }

    /// Logical blocks 0 ..< `count` of the catalog's slot.
    func blocks(_ count: Int) throws -> [Int: [UInt8]] {
        try (0..<count).reduce(into: [:]) { out, j in out[j] = try container.readBlock(vaultSlot, j) }
    }

    /// Runs `commit` (one block commit through the catalog) and reads back its plan.
    func planOf(_ commit: () throws -> Void) throws -> Plan {
        let before = container.maps[vaultSlot]!
        let payloadsBefore = try blocks(Int(container.state.logicalCount))
        let fileBefore = try slotFile(vaultSlot)
        try commit()
        let after = container.maps[vaultSlot]!
        let payloadsAfter = try blocks(Int(container.state.logicalCount))
        let fileAfter = try slotFile(vaultSlot)

        let rewritten = (0..<after.data.count).filter { after.data[$0].position != before.data[$0].position }
        let changed = rewritten.filter { payloadsBefore[$0] != payloadsAfter[$0] }
        var nodes = [(level: Int, index: Int, position: Int)]()
        for (level, references) in after.nodes.enumerated() {
            for (index, reference) in references.enumerated() where reference.position != before.nodes[level][index].position {
                nodes.append((level + 1, index, Int(reference.position)))
            }
        }
        let dataPositions = rewritten.map { (id: $0, position: Int(after.data[$0].position)) }
        let placed = Set(dataPositions.map(\.position) + nodes.map(\.position))
        let block = ContainerFormat.blockSize
        let written = (ContainerFormat.firstData..<Int(container.state.blockCount)).filter {
            fileBefore[($0 * block)..<(($0 + 1) * block)] != fileAfter[($0 * block)..<(($0 + 1) * block)]
        }
        return Plan(
            sequence: Int(container.state.sequence), bucket: written.count, changed: changed,
            cover: rewritten.filter { !changed.contains($0) }, nodes: nodes, dataPositions: dataPositions,
            filler: written.filter { !placed.contains($0) }, liveBefore: before.positions.sorted())
    }

    /// Every slot file, name to bytes, with both superblocks re-sealed at fixed times.
    func slotFiles(resealingWith random: RandomSource) throws -> [String: [UInt8]] {
        var out = [String: [UInt8]]()
        for slot in container.slots {
            var bytes = try slotFile(slot)
            for position in 0..<2 {
                let range = (position * ContainerFormat.blockSize)..<((position + 1) * ContainerFormat.blockSize)
                guard var superblock = Superblock.open(
                    Array(bytes[range]), slot: slot, position: position, key: key.superblockKey(slot: slot))
                else { throw ContainerError.damaged("vector superblock") }
                superblock.commitTime = Self.commitTimeBase + superblock.sequence
                bytes.replaceSubrange(range, with: try superblock.sealed(slot: slot, key: key, using: random))
            }
            out[slot.fileName] = bytes
        }
        return out
    }

    private func slotFile(_ slot: SlotID) throws -> [UInt8] {
        try files.read(slot.fileName, at: 0, count: try files.size(slot.fileName))
    }
}
