import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraStore

extension VectorSet {
    // MARK: Recovery at open (§8.8)

    /// `recovery/`: whole directories of slot files, each a state that a crash, a sync
    /// service or a person can leave, with the outcome §8.8 gives it. Every reader opens
    /// the same bytes, so two readers cannot disagree about recovery unnoticed (the
    /// readers' own edits of `container/` remain tests of their own).
    ///
    /// Each case is a directory: its slot files, and `case`, a vector file of fields only
    /// (`expect`, `outer_key`, `files`: the slot files' names, comma-separated). On
    /// `success`, `sequence` is the agreed commit's k and `streams` each slot's stream
    /// hash (`NAME:SHA256`), unchanged since the first commit: a commit re-seals them.
    /// The cases share most slot files byte for byte, which git stores once.
    static func recoveryVectors() throws -> [String: [UInt8]] {
        let random = SeededRandom(seed: "obscura recovery vectors v1")
        let outer = SecureBytes(randomCount: 32, using: random)
        let key = try OuterKey(outer)
        let streams = [random.bytes(3000), random.bytes(2000)]

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("obscura-vectors-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = DiskSlotFiles(path: directory)
        let first = try SlotContainer.create(files: files, key: key, streams: streams, random: random)
        let slots = first.slots
        // Creation's own open may draw from `random` a number of times that depends on
        // the clock (§8.8 R10), so the second commit runs under a random of its own, on
        // files whose times are equal, which R10 leaves alone.
        for slot in slots { try files.setTimes(slot.fileName, to: containerCommitTime) }
        func image() throws -> [SlotID: [UInt8]] {
            try Dictionary(uniqueKeysWithValues: slots.map { ($0, try files.read($0.fileName, at: 0, count: try files.size($0.fileName))) })
        }
        let resealing = SeededRandom(seed: "obscura recovery vectors v1 superblocks")
        /// `bytes` with each valid superblock re-sealed with a commit time of its
        /// sequence number's: creation and commits stamp the clock's.
        func fixedTimes(_ bytes: [UInt8], _ slot: SlotID) throws -> [UInt8] {
            var out = bytes
            for position in 0..<2 {
                let range = (position * ContainerFormat.blockSize)..<((position + 1) * ContainerFormat.blockSize)
                guard var superblock = Superblock.open(
                    Array(out[range]), slot: slot, position: position, key: key.superblockKey(slot: slot))
                else { continue }
                superblock.commitTime = containerCommitTime + superblock.sequence * 1_000_000_000
                out.replaceSubrange(range, with: try superblock.sealed(slot: slot, key: key, using: resealing))
            }
            return out
        }
        let before = try image()
        // The streams as the container holds them: the contents and their random padding.
        let held = try slots.map { "\($0.fileName):" + hex(SHA256Digest.hash(try first.readStream($0))) }.joined(separator: ",")
        let second = try SlotContainer.open(files: files, key: key, random: SeededRandom(seed: "obscura recovery vectors v1 commit 2"))
        try second.commit()
        let after = try image()
        var one = [SlotID: [UInt8]](), two = [SlotID: [UInt8]]()
        for slot in slots {
            one[slot] = try fixedTimes(before[slot]!, slot)
            two[slot] = try fixedTimes(after[slot]!, slot)
        }
        let (a, b) = (slots[0], slots[1])

        var out = [String: [UInt8]]()
        func add(_ name: String, _ expect: String, _ directory: [(String, [UInt8])], sequence: Int? = nil, _ comment: String) {
            var fields = [("expect", expect), ("outer_key", outer.withUnsafeBytes { hex($0) }),
                          ("files", directory.map(\.0).joined(separator: ","))]
            if let sequence { fields += [("sequence", "\(sequence)"), ("streams", held)] }
            fields.append(("comment", comment))
            out["recovery/\(name)/case"] = file(fields, [])
            for (fileName, bytes) in directory { out["recovery/\(name)/\(fileName)"] = bytes }
        }
        /// `bytes` with the second half of commit 2's superblock block (commit k's sits at
        /// position k mod 2, §8.4: block 0) back to what was there before it: a 4 KiB
        /// write torn at a sector boundary.
        func torn(_ slot: SlotID) -> [UInt8] {
            var bytes = two[slot]!
            let secondHalf = (ContainerFormat.blockSize / 2)..<ContainerFormat.blockSize
            bytes.replaceSubrange(secondHalf, with: one[slot]![secondHalf])
            return bytes
        }

        add("first_commit", "success", [(a.fileName, one[a]!), (b.fileName, one[b]!)], sequence: 1,
            "the directory as created: commit 1, at superblock position 1 of each slot")
        add("second_commit", "success", [(a.fileName, two[a]!), (b.fileName, two[b]!)], sequence: 2,
            "commit 2 in every slot, at position 0; every stream re-sealed unchanged")
        add("torn_superblock_in_one_slot", "success", [(a.fileName, torn(a)), (b.fileName, two[b]!)], sequence: 2,
            "commit 2's superblock in the first slot torn halfway (its second half as before the commit): R6 finds "
                + "commit 2's blocks in that slot and rolls forward")
        add("torn_superblock_in_every_slot", "success", [(a.fileName, torn(a)), (b.fileName, torn(b))], sequence: 1,
            "commit 2's superblock torn in every slot: no slot holds commit 2, so commit 1, whose blocks commit 2 "
                + "left in place, is agreed")
        add("stale_slot", "rollback", [(a.fileName, one[a]!), (b.fileName, two[b]!)],
            "the first slot put back to its copy from before commit 2 (a restored file, a sync service's older "
                + "version): the second holds commit 2, and the first has none of commit 2's blocks at its positions")
        let copyName = SlotID.random(using: random).fileName
        add("slot_copied_under_new_name", "damaged",
            [(a.fileName, one[a]!), (b.fileName, one[b]!), (copyName, one[a]!)],
            "a copy of the first slot under another slot name: its superblocks name the slot in their associated "
                + "data, so none opens under the new name, and it has no install mark (R7)")
        add("slot_missing", "damaged", [(b.fileName, two[b]!)],
            "the first slot file is gone: the second's commits list it (R5)")
        return out
    }
}
