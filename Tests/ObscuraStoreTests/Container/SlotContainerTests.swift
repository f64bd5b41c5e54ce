import Foundation
import ObscuraCrypto
import ObscuraStoreTestSupport
import Testing
@testable import ObscuraStore

@Suite struct SlotContainerTests {
    typealias F = ContainerFixtures

    @Test func aNewContainerReadsBackEveryStream() throws {
        let (files, container, streams) = try F.make()
        #expect(streams.count == 10 && streams.values.allSatisfy { !$0.isEmpty })
        let sizes = Set(try files.names().map { try files.size($0) })
        #expect(sizes == [ContainerFormat.minimumBlocks * ContainerFormat.blockSize])
        #expect(container.state.sequence == 1)
        // Reopened from the bytes alone: nothing in memory carried over, nothing written.
        let again = RecordingSlotFiles(files.snapshot)
        let reopened = try SlotContainer.open(files: again, key: F.key())
        #expect(again.writeCount == 0)
        for (slot, stream) in streams {
            #expect(try reopened.readStream(slot, count: stream.count) == stream)
        }
    }

    @Test func aCommitChangesOneStreamAndWritesTheSamePositionsInEverySlot() throws {
        let (files, container, streams) = try F.make()
        let before = files.snapshot
        let written = container.slots[3]
        let new = SeededRandom(seed: "new").bytes(12_000)
        try container.commit(replacing: [written: new])
        let after = files.snapshot

        let reopened = try SlotContainer.open(files: RecordingSlotFiles(after), key: F.key())
        #expect(try reopened.readStream(written, count: new.count) == new)
        for (slot, stream) in streams where slot != written {
            #expect(try reopened.readStream(slot, count: stream.count) == stream)
        }
        let changed = before.keys.map { F.changedBlocks(before[$0]!, after[$0]!) }
        #expect(Set(changed).count == 1, "every slot differs at the same blocks")
        let shape = MapShape(logicalCount: Int(container.state.logicalCount))!
        #expect(changed[0].count == shape.blockCount + 1, "every block and node, and one superblock")
        #expect(changed[0].contains(0) && !changed[0].contains(1), "sequence 2 writes superblock 0")
        #expect(Set(files.snapshot.keys.map { try! files.modificationTime($0) }) == [reopened.state.commitTime])
    }

    @Test func anotherOuterKeyOpensNothing() throws {
        let (files, _, _) = try F.make()
        let other = try OuterKey(SecureBytes(copying: [UInt8](repeating: 1, count: 32)))
        #expect(throws: ContainerError.outerKeyMismatch) {
            try SlotContainer.open(files: RecordingSlotFiles(files.snapshot), key: other)
        }
    }

    @Test func growthDoublesEverySlotKeepsEveryStreamAndStartsAKeyGeneration() throws {
        let (files, container, streams) = try F.make()
        let written = container.slots[0]
        let large = SeededRandom(seed: "large").bytes(700_000)
        try container.commit(replacing: [written: large])
        #expect(container.state.blockCount == 512)
        #expect(container.state.generation == 2)
        let sizes = Set(try files.names().map { try files.size($0) })
        #expect(sizes == [512 * ContainerFormat.blockSize])
        let reopened = try SlotContainer.open(files: RecordingSlotFiles(files.snapshot), key: F.key())
        #expect(try reopened.readStream(written, count: large.count) == large)
        for (slot, stream) in streams where slot != written {
            #expect(try reopened.readStream(slot, count: stream.count) == stream)
        }
    }

    @Test func anAddedSlotIsListedByEverySlotAndHasTheSameSize() throws {
        let (files, container, _) = try F.make()
        let stream = SeededRandom(seed: "eleventh").bytes(5000)
        let added = try container.commit(adding: [stream])
        #expect(container.slots.count == 11)
        let reopened = try SlotContainer.open(files: RecordingSlotFiles(files.snapshot), key: F.key())
        #expect(reopened.slots.count == 11)
        #expect(try reopened.readStream(added[0], count: stream.count) == stream)
        #expect(Set(try files.names().map { try files.size($0) }).count == 1)
    }

    @Test func slotFilesCarryNoPlaintextAndLookRandom() throws {
        let (files, container, _) = try F.make()
        try container.commit(replacing: [container.slots[0]: [UInt8](repeating: 0, count: 20_000)])
        for name in try files.names() {
            let bytes = files.snapshot[name]!
            #expect(!bytes.starts(with: SlotFormat.magic))
            // Chi-square of byte frequencies, 255 degrees of freedom: beyond 350 happens
            // by chance with probability below 0.01%.
            var counts = [Int](repeating: 0, count: 256)
            for byte in bytes { counts[Int(byte)] += 1 }
            let expected = Double(bytes.count) / 256
            let chi = counts.reduce(0.0) { $0 + pow(Double($1) - expected, 2) / expected }
            #expect(chi < 350, "slot \(name): chi-square \(chi)")
        }
    }

    @Test func onDiskTheSlotsShareOneSizeAndOneTimeAfterEachCommit() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("container-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let contents = F.streams(10)
        let container = try SlotContainer.create(files: DiskSlotFiles(path: path), key: F.key(), streams: contents)
        let written = container.slots[5]
        try container.commit(replacing: [written: Array("new contents".utf8)])
        let names = try FileManager.default.contentsOfDirectory(atPath: path)
        #expect(names.count == 10 && names.allSatisfy { SlotID(fileName: $0) != nil })
        var sizes = Set<Int>(), times = Set<Int>()
        for name in names {
            var st = stat()
            #expect(stat(path + "/" + name, &st) == 0)
            sizes.insert(Int(st.st_size))
            times.insert(Int(st.st_mtim.tv_sec) * 1_000_000_000 + Int(st.st_mtim.tv_nsec))
            #expect(st.st_atim.tv_sec == st.st_mtim.tv_sec && st.st_atim.tv_nsec == st.st_mtim.tv_nsec)
        }
        #expect(sizes.count == 1 && times.count == 1)
        let reopened = try SlotContainer.open(files: DiskSlotFiles(path: path), key: F.key())
        #expect(try reopened.readStream(written, count: 12) == Array("new contents".utf8))
    }
}
