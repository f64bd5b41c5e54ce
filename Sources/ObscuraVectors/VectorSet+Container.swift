import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraStore
import ObscuraKeys

extension VectorSet {
    // MARK: Slot container, version 4 (§8)

    /// The commit time the vector container's superblocks carry. Creation stamps the
    /// clock's time, which no rerun reproduces, so the generator re-seals both
    /// superblocks with this one (nanoseconds since 1970: 2023-11-14T22:13:20Z).
    package static let containerCommitTime: UInt64 = 1_700_000_000_000_000_000

    /// The password of the container's real vault; the other slot is a decoy.
    static let containerPassword = "container pw"

    /// `testdata/container/`: `container.json` and the two slot files of a whole
    /// container (docs/FORMAT.md §5, §8). The JSON gives the outer key, the subkeys of a
    /// fixed slot id, one sealed data block with its associated data, map shapes, and
    /// what each slot's inner stream holds.
    static func containerVectors() throws -> [String: [UInt8]] {
        let random = SeededRandom(seed: "obscura container vectors v1")
        let outer = SecureBytes(randomCount: 32, using: random)
        let key = try OuterKey(outer)

        // Subkeys and one sealed data block, for a slot id of their own.
        let keySlot = SlotID.random(using: random)
        let blockDirectory = random.bytes(16)
        let address = BlockAddress(position: 77, generation: 1, kind: .data, level: 0, logicalID: 5)
        let associatedData = OuterBlock.associatedData(directory: blockDirectory, slot: keySlot, address: address)
        let payload = random.bytes(ContainerFormat.payloadSize)
        let sealedBlock = try OuterBlock.seal(
            payload, key: key.blockKey(slot: keySlot, generation: 1), associatedData: associatedData, using: random)

        // Two slots of version 3 contents (§8.9): a vault and a decoy.
        let deviceSecret = SecureBytes(randomCount: DeviceSecretStore.size, using: random)
        let catalogs = [random.bytes(300), random.bytes(200)]
        let contents = [
            try SlotCodec.seal(
                password: SecureBytes(copying: Array(containerPassword.utf8)), iterations: iterations,
                key: SecureBytes(randomCount: 32, using: random), catalog: catalogs[0], using: random),
            try SlotCodec.seal(
                password: DeviceSecretStore.credential(from: deviceSecret), iterations: iterations,
                key: SecureBytes(randomCount: 32, using: random), catalog: catalogs[1], using: random),
        ]

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("obscura-vectors-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = DiskSlotFiles(path: directory)
        // Every byte of the files comes from `random`; opening after creation may draw
        // from it again (to set times), so nothing below draws from it.
        let container = try SlotContainer.create(files: files, key: key, streams: contents, random: random)
        let resealing = SeededRandom(seed: "obscura container vectors v1 superblocks")
        let position = Int(container.state.sequence % 2)
        let superblockRange = (position * ContainerFormat.blockSize)..<((position + 1) * ContainerFormat.blockSize)

        var out = [String: [UInt8]]()
        var slots = [JSONText]()
        var state = container.state
        for slot in container.slots {
            var bytes = try files.read(slot.fileName, at: 0, count: try files.size(slot.fileName))
            guard var superblock = Superblock.open(
                Array(bytes[superblockRange]), slot: slot, position: position, key: key.superblockKey(slot: slot))
            else { throw ContainerError.damaged("vector superblock") }
            superblock.commitTime = containerCommitTime
            state.commitTime = containerCommitTime
            bytes.replaceSubrange(
                superblockRange, with: try superblock.sealed(slot: slot, key: key, using: resealing))
            out["container/" + slot.fileName] = bytes

            let stream = try container.readStream(slot)
            guard let index = contents.firstIndex(where: { stream.starts(with: $0) }) else {
                throw ContainerError.damaged("vector stream")
            }
            var fields: [(String, JSONText)] = [
                ("file", .string(slot.fileName)),
                ("slot_id", .string(hex(slot.bytes))),
                ("superblock_key", .string(hex(key.superblockKey(slot: slot).withUnsafeBytes { Array($0) }))),
                ("block_key_1", .string(hex(key.blockKey(slot: slot, generation: 1).withUnsafeBytes { Array($0) }))),
                ("contents_length", .int(contents[index].count)),
                ("contents_sha256", .string(hex(SHA256Digest.hash(contents[index])))),
                ("stream_sha256", .string(hex(SHA256Digest.hash(stream)))),
            ]
            fields.append(index == 0
                ? ("password", .string(containerPassword))
                : ("device_secret", .string(hex(deviceSecret.withUnsafeBytes { Array($0) }))))
            fields.append(("catalog_sha256", .string(hex(SHA256Digest.hash(catalogs[index])))))
            slots.append(.object(fields))
        }

        let shapes: [JSONText] = [8, 9, 10, 14, 16, 24, 31].map { exponent in
            let blocks = 1 << exponent
            let logical = MapShape.streamCapacity(blocks: blocks)
            let shape = MapShape(logicalCount: logical)!
            return .object([
                ("blocks", .int(blocks)), ("logical_blocks", .int(logical)), ("map_nodes", .int(shape.nodeCount)),
                ("depth", .int(shape.depth)), ("node_counts", .array(shape.nodeCounts.map { .int($0) })),
            ])
        }

        let json = JSONText.object([
            ("comment", .string(
                "docs/FORMAT.md §8: a slot container of two slots under outer_key, and the pieces it is made of. "
                    + "Every random byte comes from SeededRandom (FORMAT.md §5)")),
            ("outer_key", .string(hex(outer.withUnsafeBytes { Array($0) }))),
            ("subkeys", .object([
                ("comment", .string("HKDF-SHA256 subkeys of outer_key for slot_id (§8.3)")),
                ("slot_id", .string(hex(keySlot.bytes))),
                ("superblock_key", .string(hex(key.superblockKey(slot: keySlot).withUnsafeBytes { Array($0) }))),
                ("block_key_1", .string(hex(key.blockKey(slot: keySlot, generation: 1).withUnsafeBytes { Array($0) }))),
                ("block_key_2", .string(hex(key.blockKey(slot: keySlot, generation: 2).withUnsafeBytes { Array($0) }))),
            ])),
            ("block", .object([
                ("comment", .string("one data block of subkeys.slot_id, sealed under its block_key_1 (§8.2, §8.3)")),
                ("directory_id", .string(hex(blockDirectory))),
                ("position", .int(Int(address.position))),
                ("generation", .int(Int(address.generation))),
                ("kind", .int(Int(address.kind.rawValue))),
                ("level", .int(Int(address.level))),
                ("logical_id", .int(Int(address.logicalID))),
                ("associated_data", .string(hex(associatedData))),
                ("payload_sha256", .string(hex(SHA256Digest.hash(payload)))),
                ("sealed", .string(hex(sealedBlock))),
            ])),
            ("shapes", .array(shapes)),
            ("container", .object([
                ("comment", .string(
                    "the first commit of a directory of two slots (§8.6): a vault opened by password and a decoy "
                        + "opened by the credential of device_secret (§4.1); each stream holds version 3 slot "
                        + "contents (§8.9), and catalog_sha256 is SHA-256 of the catalog they seal")),
                ("iterations", .int(iterations)),
                ("blocks", .int(Int(state.blockCount))),
                ("logical_blocks", .int(Int(state.logicalCount))),
                ("depth", .int(MapShape(logicalCount: Int(state.logicalCount))!.depth)),
                ("sequence", .int(Int(state.sequence))),
                ("directory_id", .string(hex(state.directoryID))),
                ("commit_id", .string(hex(state.commitID))),
                ("generation", .int(Int(state.generation))),
                ("sealed_under_generation", .int(Int(state.sealedUnderGeneration))),
                ("commit_time", .int(Int(state.commitTime))),
                ("slots", .array(slots)),
            ])),
        ])
        out["container/container.json"] = Array((json.rendered() + "\n").utf8)
        return out
    }
}

/// A JSON value written in one fixed form — keys in the order given, two spaces an
/// indent level — so that a vector's JSON is the same bytes on every platform.
indirect enum JSONText {
    case string(String)
    case int(Int)
    case array([JSONText])
    case object([(String, JSONText)])

    func rendered(indent: String = "") -> String {
        let inner = indent + "  "
        switch self {
        case let .string(text):
            precondition(!text.contains("\"") && !text.contains("\\") && text.unicodeScalars.allSatisfy { $0.value >= 0x20 },
                         "vector strings need no escapes")
            return "\"" + text + "\""
        case let .int(value):
            return String(value)
        case let .array(items):
            guard !items.isEmpty else { return "[]" }
            if items.allSatisfy({ if case .int = $0 { return true } else { return false } }) {
                return "[" + items.map { $0.rendered() }.joined(separator: ", ") + "]"
            }
            return "[\n" + items.map { inner + $0.rendered(indent: inner) }.joined(separator: ",\n") + "\n" + indent + "]"
        case let .object(pairs):
            return "{\n" + pairs.map { inner + "\"" + $0.0 + "\": " + $0.1.rendered(indent: inner) }.joined(separator: ",\n")
                + "\n" + indent + "}"
        }
    }
}
