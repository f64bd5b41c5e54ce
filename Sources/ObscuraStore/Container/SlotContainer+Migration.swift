import Foundation
import ObscuraCrypto

extension SlotContainer {
    /// Prefix of a slot's finished container image, kept until the slot holds it.
    package static let migratingPrefix = ".migrating-"
    /// Prefix of a slot's container image while it is being written, before it is
    /// renamed to ``migratingPrefix``; removed by recovery and by the version 3 sweep.
    static let scratchPrefix = ".pending-migrating-"

    /// Wraps every version 3 slot of `files` in the container (docs/FORMAT.md §8.10,
    /// phase A), then opens it. Needs the outer key only: no password, no decoy secret.
    ///
    /// All slots share one plan (directory id, first commit, size, block positions), so
    /// the result is exactly what ``create(files:key:streams:random:)`` would have made
    /// around the same streams. Each slot's stream is its whole version 3 file. Per slot:
    /// the container image is written whole under a temporary name and made durable, the
    /// slot is overwritten with it in place (same inode: no version 3 copy is left in the
    /// file system's free blocks by this step), synced, and the temporary removed.
    ///
    /// Idempotent: after a crash, a temporary is copied over its slot again (the slot may
    /// be torn), one still being written is removed (its slot was not touched yet), and
    /// the version 3 slots left are wrapped with the plan read from a wrapped one.
    ///
    /// - Throws: ``ContainerError/outerKeyMismatch``, touching nothing, when a migration
    ///   is under way under another key.
    package static func migrate(files: SlotFiles, key: OuterKey, random: RandomSource = SystemRandom()) throws -> SlotContainer {
        let names = try files.names()
        let slots = names.compactMap(SlotID.init(fileName:))
        guard !slots.isEmpty else { throw ContainerError.damaged("no slot files") }

        // A `.migrating-` temporary is whole (it is renamed to that name only once
        // durable), and its slot may be torn. One that does not open under this key
        // means the key is not the directory's: nothing may be touched then.
        let temporaries = names.filter { $0.hasPrefix(migratingPrefix) }
        var images = [(SlotID, [UInt8])]()
        for name in temporaries {
            guard let slot = SlotID(fileName: String(name.dropFirst(migratingPrefix.count))), slots.contains(slot) else {
                throw ContainerError.damaged("a migration temporary names no slot")
            }
            let image = try files.read(name, at: 0, count: try files.size(name))
            guard (try? wrapped(image, slot: slot, files: files, key: key)) != nil else { throw ContainerError.outerKeyMismatch }
            images.append((slot, image))
        }
        var wrappedSlots = [SlotID]()
        for slot in slots where try !isVersion3(slot, files: files, key: key) {
            wrappedSlots.append(slot)
        }
        if temporaries.isEmpty, !wrappedSlots.isEmpty,
           try !wrappedSlots.contains(where: { try !heads(of: $0, files: files, key: key).isEmpty }) {
            throw ContainerError.outerKeyMismatch
        }

        for name in names where name.hasPrefix(scratchPrefix) { try files.remove(name) }
        for (slot, image) in images {
            // A slot that already holds a later commit makes the temporary stale.
            if try !heads(of: slot, files: files, key: key).contains(where: { $0.superblock.sequence > 1 }) {
                try overwrite(slot, with: image, files: files)
            }
            try files.remove(migratingPrefix + slot.fileName)
        }
        try files.syncDirectory()

        // Only version 3 slots are read whole.
        var remaining = [(SlotID, [UInt8])]()
        wrappedSlots = []
        for slot in slots {
            if try isVersion3(slot, files: files, key: key) {
                remaining.append((slot, try files.read(slot.fileName, at: 0, count: try files.size(slot.fileName))))
            } else {
                wrappedSlots.append(slot)
            }
        }
        if !remaining.isEmpty {
            // The plan is read back from a wrapped slot, and only when there is something
            // left to wrap: a finished migration has had commits since, and its slots are
            // no longer first images.
            let (first, layout) = try wrappedSlots.first.map { slot in
                try wrapped(try files.read(slot.fileName, at: 0, count: try files.size(slot.fileName)), slot: slot, files: files, key: key)
            } ?? {
                let payload = ContainerFormat.payloadSize
                let needed = remaining.map { ($0.1.count + payload - 1) / payload }.max()!
                guard let blocks = MapShape.blocksFitting(logicalCount: needed) else { throw ContainerError.tooLarge }
                return firstCommit(slots: slots, blocks: blocks, random: random)
            }()
            guard first.slots == slots.sorted(),
                  remaining.allSatisfy({ $0.1.count <= Int(first.logicalCount) * ContainerFormat.payloadSize })
            else { throw ContainerError.damaged("the slots do not match the migration under way") }
            for (slot, bytes) in random.shuffled(remaining) {
                let image = try image(of: slot, stream: bytes, first: first, plan: layout, files: files, key: key, random: random)
                let temporary = migratingPrefix + slot.fileName
                try files.create(scratchPrefix + slot.fileName, image)
                try files.rename(scratchPrefix + slot.fileName, to: temporary)
                try files.syncDirectory()
                try overwrite(slot, with: image, files: files)
                try files.remove(temporary)
                try files.syncDirectory()
            }
        }
        let container = try open(files: files, key: key, random: random)
        try? container.setTimes()
        return container
    }

    /// Whether `slot` is still a version 3 file: it starts with the version 3 magic and
    /// holds no superblock under the key. A wrapped slot begins with random bytes, which
    /// are the magic once in 2^32 slots; its superblock tells it apart.
    private static func isVersion3(_ slot: SlotID, files: SlotFiles, key: OuterKey) throws -> Bool {
        try files.read(slot.fileName, at: 0, count: SlotFormat.magic.count) == SlotFormat.magic
            && heads(of: slot, files: files, key: key).isEmpty
    }

    /// The first commit and plan of a wrapped slot image, after checking that it opens
    /// under the outer key and is a migration's first commit.
    private static func wrapped(_ image: [UInt8], slot: SlotID, files: SlotFiles, key: OuterKey) throws -> (Superblock, WritePlan) {
        let block = ContainerFormat.blockSize
        guard image.count >= 2 * block,
              let first = Superblock.open(Array(image[block..<(2 * block)]), slot: slot, position: 1, key: key.superblockKey(slot: slot)),
              first.sequence == 1, image.count == Int(first.blockCount) * block, let shape = first.shape
        else { throw ContainerError.damaged("data/\(slot.fileName) is not a whole migrated slot") }
        let reader = SlotContainer(files: ImageFiles(name: slot.fileName, bytes: image), key: key, random: SystemRandom(), state: first, maps: [:])
        let map = try reader.loadMap(slot, first)
        let plan = WritePlan(shape: shape, positions: map.positions)
        return (first, plan)
    }

    /// Writes `image` over the slot file from its start, cuts anything beyond, and syncs.
    private static func overwrite(_ slot: SlotID, with image: [UInt8], files: SlotFiles) throws {
        try files.write(slot.fileName, at: 0, image)
        if try files.size(slot.fileName) > image.count {
            try files.truncate(slot.fileName, to: image.count)
        } else {
            try files.sync([slot.fileName])
        }
    }
}

/// One file's bytes in memory, read-only: lets a migration check an image before it is
/// written anywhere.
private final class ImageFiles: SlotFiles {
    let name: String
    let bytes: [UInt8]
    init(name: String, bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
    }
    func names() throws -> [String] { [name] }
    func size(_ name: String) throws -> Int { bytes.count }
    func read(_ name: String, at offset: Int, count: Int) throws -> [UInt8] {
        guard offset < bytes.count else { return [] }
        return Array(bytes[offset..<min(bytes.count, offset + count)])
    }
    func write(_ name: String, at offset: Int, _ bytes: [UInt8]) throws { throw ContainerError.damaged("read-only") }
    func sync(_ names: [String]) throws {}
    func truncate(_ name: String, to size: Int) throws { throw ContainerError.damaged("read-only") }
    func create(_ name: String, _ bytes: [UInt8]) throws { throw ContainerError.damaged("read-only") }
    func rename(_ from: String, to: String) throws { throw ContainerError.damaged("read-only") }
    func remove(_ name: String) throws { throw ContainerError.damaged("read-only") }
    func syncDirectory() throws {}
    func modificationTime(_ name: String) throws -> UInt64 { 0 }
    func setTimes(_ name: String, to time: UInt64) throws {}
}
