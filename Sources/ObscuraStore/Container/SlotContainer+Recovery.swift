import Foundation
import ObscuraCrypto

extension SlotContainer {
    /// Opens the container in `files` with the outer key, running recovery first
    /// (docs/FORMAT.md §8.8): it needs no password, is idempotent, and leaves every slot
    /// at one agreed commit, with one size and one timestamp.
    ///
    /// - Throws: ``ContainerError/outerKeyMismatch`` when no superblock opens under
    ///   `key`; ``ContainerError/rollback`` when the slots share no commit;
    ///   ``ContainerError/damaged(_:)`` for a missing, short or failing slot.
    package static func open(files: SlotFiles, key: OuterKey, random: RandomSource = SystemRandom()) throws -> SlotContainer {
        try finishInstalls(files)
        let ids = try files.names().compactMap(SlotID.init(fileName:))
        guard !ids.isEmpty else { throw ContainerError.damaged("no slot files") }

        var valid = [SlotID: [Head]]()
        for slot in ids { valid[slot] = try heads(of: slot, files: files, key: key) }
        guard valid.values.contains(where: { !$0.isEmpty }) else { throw ContainerError.outerKeyMismatch }

        let (agreed, heads) = try agree(valid)
        let container = SlotContainer(files: files, key: key, random: random, state: agreed, maps: [:])
        container.superblockBytes = heads.mapValues(\.bytes)
        if let ahead = try newerCommit(than: agreed, in: valid) {
            try container.rollForward(to: ahead, agreed: heads)
        }
        let state = container.state

        // A slot file the agreed commit does not list: an added slot whose commit never
        // became durable holds no valid superblock, and an install mark. Anything else
        // (an older or a newer commit, say a file a sync service delivered early, or
        // another directory's slot copied in) is not ours to erase.
        let listed = Set(state.slots)
        let extra = ids.filter { !listed.contains($0) }
        for slot in extra where !valid[slot]!.isEmpty {
            throw ContainerError.damaged("data/\(slot.fileName) is outside the directory's slot set but holds a commit; move it out of data/")
        }
        for slot in extra where try !hasInstallMark(slot, files: files, key: key) {
            throw ContainerError.damaged(
                "data/\(slot.fileName) is not part of this directory (no commit and no install mark under its outer key; "
                    + "it may also be a slot an older version was adding when it stopped); move it out of data/")
        }
        for slot in extra { try files.remove(slot.fileName) }
        if !extra.isEmpty { try files.syncDirectory() }

        let size = Int(state.blockCount) * ContainerFormat.blockSize
        for slot in state.slots {
            let actual = try files.size(slot.fileName)
            // Longer: a growth whose commit never became durable.
            if actual > size { try files.truncate(slot.fileName, to: size) }
            if actual < size { throw ContainerError.damaged("a slot file is shorter than its container") }
        }

        if container.maps.isEmpty {
            // In parallel: at 100,000 items the ten maps are thousands of nodes to read and
            // open, which unlock waits for (docs/BENCHMARKS.md, "Paged catalog").
            // loadMap reads the files and the block-key cache, which is locked, only.
            nonisolated(unsafe) let reader = container
            let slots = state.slots
            let loaded = ConcurrentResults<SlotMap>(count: slots.count)
            DispatchQueue.concurrentPerform(iterations: slots.count) { i in
                loaded.set(i, Result { try reader.loadMap(slots[i], heads[slots[i]]!.superblock) })
            }
            container.maps = Dictionary(uniqueKeysWithValues: zip(slots, try loaded.values()))
        }
        guard Set(container.maps.values.map(\.layout)).count == 1 else {
            throw ContainerError.damaged("the slots' maps disagree")
        }

        // Only when the slots disagree: comparing with the commit time itself would set
        // times at every open on a file system that stores them coarser than nanoseconds.
        let times = try state.slots.map { try files.modificationTime($0.fileName) }
        if Set(times).count > 1 {
            // Not fatal: a directory whose files another user owns must still open.
            try? container.setTimes()
        }
        // A rotation cut short between its commit and step 2 leaves the old key's
        // superblock at the position the next commit writes (§8.11). A roll forward
        // writes only the agreed commit's own position, so what R3 read still holds there.
        let other = 1 - state.position
        container.otherPositionForeign = state.slots.contains { slot in
            !valid[slot, default: []].contains { $0.superblock.position == other }
        }
        return container
    }

    /// A valid superblock and its sealed bytes.
    struct Head {
        let superblock: Superblock
        let bytes: [UInt8]
    }

    /// Whether either superblock position of `slot` holds its install mark (§8.6).
    static func hasInstallMark(_ slot: SlotID, files: SlotFiles, key: OuterKey) throws -> Bool {
        let subkey = key.superblockKey(slot: slot)
        return try ContainerFormat.superblockPositions.contains { position in
            let raw = try files.read(slot.fileName, at: position * ContainerFormat.blockSize, count: ContainerFormat.blockSize)
            return (try? OuterBlock.open(raw, key: subkey, associatedData: OuterBlock.installMarkAssociatedData(slot: slot, position: position))) != nil
        }
    }

    /// The valid superblocks of `slot` (§8.4): those that open under its subkey at their
    /// position, sit at the position their sequence number gives, and list the slot.
    static func heads(of slot: SlotID, files: SlotFiles, key: OuterKey) throws -> [Head] {
        let subkey = key.superblockKey(slot: slot)
        return try ContainerFormat.superblockPositions.compactMap { position in
            let raw = try files.read(slot.fileName, at: position * ContainerFormat.blockSize, count: ContainerFormat.blockSize)
            guard raw.count == ContainerFormat.blockSize,
                  let superblock = Superblock.open(raw, slot: slot, position: position, key: subkey),
                  superblock.position == position, superblock.slots.contains(slot)
            else { return nil }
            return Head(superblock: superblock, bytes: raw)
        }
    }

    /// The newest commit every slot it lists holds (§8.8), with each slot's head of it.
    private static func agree(_ valid: [SlotID: [Head]]) throws -> (Superblock, [SlotID: Head]) {
        let candidates = valid.values.flatMap { $0 }.map(\.superblock).sorted { $0.sequence > $1.sequence }
        for candidate in candidates {
            let heads = holders(of: candidate, in: valid)
            guard heads.count == candidate.slots.count else { continue }
            let newest = candidate.slots.flatMap { valid[$0]! }.map(\.superblock.sequence).max()!
            guard newest <= candidate.sequence + 1 else { throw ContainerError.rollback }
            var agreed = candidate
            agreed.roots = heads[candidate.slots[0]]!.superblock.roots
            return (agreed, heads)
        }
        let listedMissing = candidates.contains { $0.slots.contains { valid[$0] == nil } }
        throw listedMissing ? ContainerError.damaged("a slot file is missing") : ContainerError.rollback
    }

    /// The slots of `commit`'s slot set that hold it, with their heads.
    private static func holders(of commit: Superblock, in valid: [SlotID: [Head]]) -> [SlotID: Head] {
        var heads = [SlotID: Head]()
        for slot in commit.slots {
            if let head = valid[slot]?.first(where: {
                $0.superblock.sequence == commit.sequence && $0.superblock.commitID == commit.commitID
                    && $0.superblock.sameCommit(as: commit)
            }) {
                heads[slot] = head
            }
        }
        return heads
    }

    /// The commit after `agreed` that some slots hold and others lack: an interrupted
    /// commit whose superblocks were cut short (§8.8). More than one is damage.
    private static func newerCommit(than agreed: Superblock, in valid: [SlotID: [Head]]) throws -> (Superblock, [SlotID: Head])? {
        let newer = valid.values.flatMap { $0 }.map(\.superblock).filter { $0.sequence == agreed.sequence + 1 }
        guard let first = newer.first else { return nil }
        guard newer.allSatisfy({ $0.commitID == first.commitID && $0.sameCommit(as: first) }) else {
            throw ContainerError.damaged("two interrupted commits")
        }
        return (first, holders(of: first, in: valid))
    }

    /// Finishes an interrupted commit that some slots already hold (§8.8, roll forward).
    ///
    /// Superblocks are written only after every slot's blocks are durable, so a slot that
    /// lacks the commit's superblock still has its blocks: its roots are rebuilt from the
    /// blocks at the commit's root positions, and its whole map must verify and carry the
    /// commit id. A slot without them was not part of that commit — it was rolled back or
    /// replaced — and the directory is refused rather than repaired by a guess.
    private func rollForward(to ahead: (Superblock, [SlotID: Head]), agreed: [SlotID: Head]) throws {
        let (commit, holders) = ahead
        guard let model = holders.values.first?.superblock, let shape = commit.shape else { throw ContainerError.rollback }
        var superblocks = [SlotID: Superblock]()
        for slot in commit.slots {
            if let head = holders[slot] {
                superblocks[slot] = head.superblock
                continue
            }
            var rebuilt = commit
            do {
                rebuilt.roots = try model.roots.enumerated().map { index, root in
                    let raw = try files.read(
                        slot.fileName, at: Int(root.position) * ContainerFormat.blockSize, count: ContainerFormat.blockSize)
                    let reference = MapReference(position: root.position, generation: root.generation, tag: OuterBlock.tag(of: raw))
                    _ = try openBlock(slot, reference, kind: .mapNode, level: shape.depth, logicalID: index, directoryID: commit.directoryID)
                    return reference
                }
                superblocks[slot] = rebuilt
                // In inner format 2 a node the commit did not rewrite keeps the agreed
                // commit's reference; every other node, and every node of a slot the
                // commit adds, must be the commit's own.
                let previous = try agreed[slot].map { try loadMap(slot, $0.superblock) } ?? SlotMap(data: [], nodes: [])
                maps[slot] = try loadMap(slot, rebuilt, previous: previous)
            } catch {
                throw ContainerError.rollback
            }
        }
        for slot in commit.slots where maps[slot] == nil {
            maps[slot] = try loadMap(slot, superblocks[slot]!)
        }
        // Every slot gets the commit's superblock afresh, so the writes are the same in all.
        broken = true
        for slot in random.shuffled(commit.slots) {
            superblockBytes[slot] = try writeSuperblock(superblocks[slot]!, of: slot)
        }
        try files.sync(commit.slots.map(\.fileName))
        state = commit
        state.roots = superblocks[commit.slots[0]]!.roots
        barrierDone = true
        broken = false
    }

    /// Finishes or undoes slot installations (§8.8). Pending files are renamed into place
    /// only once some slot exists: installation renames after every pending file is whole
    /// and durable, so a directory with slots has only whole pending files to finish,
    /// and a directory without any was interrupted before its first rename.
    private static func finishInstalls(_ files: SlotFiles) throws {
        let names = try files.names()
        let present = Set(names.filter { SlotID(fileName: $0) != nil })
        let pending = names.filter { $0.hasPrefix(pendingPrefix) && SlotID(fileName: String($0.dropFirst(pendingPrefix.count))) != nil }
        guard !pending.isEmpty else { return }
        for name in pending {
            let target = String(name.dropFirst(pendingPrefix.count))
            if !present.isEmpty && !present.contains(target) {
                try files.rename(name, to: target)
            } else {
                try files.remove(name)
            }
        }
        try files.syncDirectory()
    }
}
