import Foundation
import ObscuraCrypto
import ObscuraTestSupport
import ObscuraStoreTestSupport
import Testing
@testable import ObscuraStore

/// Crash consistency of the container (docs/FORMAT.md §8.6, §8.8): every operation runs
/// over the write recorder, and at every sync boundary the states a crash could leave
/// (prefixes, subsets and torn writes of what was not yet synced, and renames not yet
/// made durable) are opened again. Each must open to the old or the new contents as a
/// whole, with equal slot sizes, and a second open must find nothing to do.
@Suite struct ContainerCrashTests {
    typealias F = ContainerFixtures
    /// Contents the test knows, per slot: a whole directory state.
    typealias Contents = [SlotID: [UInt8]]

    /// Opens `image` and checks it holds one of `allowed` whole; then crashes the
    /// recovery itself at its own sync points (`depth` times over) and checks again.
    static func check(
        _ image: [String: [UInt8]], allowed: [Contents], emptyAllowed: Bool, depth: Int = 1,
        random: SeededRandom, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let files = RecordingSlotFiles(image)
        var recoveryImages = [[String: [UInt8]]]()
        if depth > 0 {
            // Recovery writes only when it rolls a commit forward; those writes are
            // crashed in turn.
            files.beforeSync = { recoveryImages += random.shuffled(CrashImages.crashImages($0, random: random)).prefix(6) }
        }
        let container: SlotContainer
        do {
            container = try SlotContainer.open(files: files, key: F.key())
        } catch ContainerError.damaged("no slot files") where emptyAllowed {
            #expect(try files.names().allSatisfy { SlotID(fileName: $0) == nil }, sourceLocation: sourceLocation)
            return
        }
        let lengths = allowed[0].mapValues(\.count)
        let found = try allowed.first { candidate in
            guard container.slots.count == candidate.count else { return false }
            for (slot, bytes) in candidate {
                guard container.slots.contains(slot) else { return false }
                guard try container.readStream(slot, count: bytes.count) == bytes else { return false }
            }
            return true
        }
        #expect(found != nil, "a crash image opened to neither state (\(lengths.count) slots known)", sourceLocation: sourceLocation)
        let sizes = Set(try container.slots.map { try files.size($0.fileName) })
        #expect(sizes.count == 1, sourceLocation: sourceLocation)

        let again = RecordingSlotFiles(files.snapshot)
        _ = try SlotContainer.open(files: again, key: F.key())
        #expect(again.writeCount == 0, "a second open still had work to do", sourceLocation: sourceLocation)

        for nested in recoveryImages {
            try check(nested, allowed: allowed, emptyAllowed: emptyAllowed, depth: depth - 1, random: random, sourceLocation: sourceLocation)
        }
    }

    /// Runs `operation` over a recorder that holds `start`, checking every crash image.
    static func crashEverywhere(
        _ start: [String: [UInt8]], allowed: [Contents], emptyAllowed: Bool = false, seed: String,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ operation: (RecordingSlotFiles) throws -> Void
    ) throws -> RecordingSlotFiles {
        let random = SeededRandom(seed: seed)
        let files = RecordingSlotFiles(start)
        var (_, images) = try CrashImages.imagesAtEverySync(files, random: random, operation)
        images += CrashImages.crashImages(files, random: random)
        #expect(images.count > 20, sourceLocation: sourceLocation)
        for image in sampled(images, name: seed) {
            try check(image, allowed: allowed, emptyAllowed: emptyAllowed, random: random, sourceLocation: sourceLocation)
        }
        return files
    }

    /// Images checked per operation in CI, each with its recovery cut in turn: the first
    /// and last four and others drawn from the run's seed. Every image at full size
    /// (`OBSCURA_HARDEN_FULL=1`, scripts/harden).
    static let ciImages = 48

    /// The images of `name` that this run checks (``ciImages``), said with the seed.
    static func sampled(_ images: [[String: [UInt8]]], name: String) -> [[String: [UInt8]]] {
        let picked = Hardening.sample(images.count, count: ciImages, edges: 4, name: "container/" + name)
        print("container crash: \(name): seed \(Hardening.seed) (OBSCURA_TEST_SEED), \(picked.count) of \(images.count) images")
        return picked.map { images[$0] }
    }

    @Test func aCrashAnywhereInACommitLeavesTheOldOrTheNewContents() throws {
        let (start, container, old) = try F.make()
        let written = container.slots[2]
        let new = SeededRandom(seed: "replacement").bytes(7000)
        var expected = old
        expected[written] = new
        _ = try Self.crashEverywhere(start.snapshot, allowed: [old, expected], seed: "commit") { files in
            let reopened = try SlotContainer.open(files: files, key: F.key())
            try reopened.commit(replacing: [written: new])
        }
    }

    /// Recovery crashed again and again: images of a commit cut short whose recovery has
    /// work to do (a roll forward), with that recovery cut at each of its sync points,
    /// the next recovery cut in turn, three levels deep.
    @Test func recoveryCutShortRepeatedlyStillEndsOldOrNew() throws {
        let (start, container, old) = try F.make()
        let written = container.slots[4]
        let new = SeededRandom(seed: "again").bytes(5000)
        var expected = old
        expected[written] = new
        let random = SeededRandom(seed: "repeatedly")
        let files = RecordingSlotFiles(start.snapshot)
        let (_, images) = try CrashImages.imagesAtEverySync(files, random: random) { files in
            try SlotContainer.open(files: files, key: F.key()).commit(replacing: [written: new])
        }
        // Images whose recovery writes: those are the ones a second crash can hurt.
        let working = images.filter { image in
            let probe = RecordingSlotFiles(image)
            _ = try? SlotContainer.open(files: probe, key: F.key())
            return probe.writeCount > 0
        }
        #expect(working.count >= 3, "\(working.count) images need recovery writes")
        for image in random.shuffled(working).prefix(2) {
            try Self.check(image, allowed: [old, expected], emptyAllowed: false, depth: 3, random: random)
        }
    }

    @Test func aCrashAnywhereInAGrowthLeavesTheOldOrTheNewContents() throws {
        let (start, container, old) = try F.make()
        let written = container.slots[7]
        let new = SeededRandom(seed: "grown").bytes(600_000)
        var expected = old
        expected[written] = new
        _ = try Self.crashEverywhere(start.snapshot, allowed: [old, expected], seed: "growth") { files in
            try SlotContainer.open(files: files, key: F.key()).commit(replacing: [written: new])
        }
    }

    @Test func aCrashAnywhereWhileAddingASlotLeavesTenOrElevenSlots() throws {
        let (start, _, old) = try F.make()
        let stream = SeededRandom(seed: "eleventh").bytes(3000)
        let random = SeededRandom(seed: "add")
        let (added, images) = try CrashImages.imagesAtEverySync(RecordingSlotFiles(start.snapshot), random: random) {
            try SlotContainer.open(files: $0, key: F.key()).commit(adding: [stream])[0]
        }
        var expected = old
        expected[added] = stream
        for image in Self.sampled(images, name: "add") {
            try Self.check(image, allowed: [old, expected], emptyAllowed: false, random: random)
        }
    }

    @Test func aCrashWhileCreatingLeavesNoSlotOrAWholeDirectory() throws {
        let streams = F.streams(10, size: 2000, seed: "create")
        var created: Contents = [:]
        let random = SeededRandom(seed: "create-images")
        let (container, images) = try CrashImages.imagesAtEverySync(RecordingSlotFiles(), random: random) {
            try SlotContainer.create(files: $0, key: F.key(), streams: streams)
        }
        for slot in container.slots {
            let stream = try container.readStream(slot, count: 2000)
            created[slot] = stream
        }
        #expect(Set(created.values) == Set(streams))
        #expect(!images.isEmpty)
        for image in images {
            try Self.check(image, allowed: [created], emptyAllowed: true, random: random)
        }
    }

    /// Review finding F1: a process that reopens before writeback reads superblocks only
    /// the page cache holds; its next commit must make them durable before it overwrites
    /// the blocks of the commit before them.
    @Test func aReopenBeforeWritebackThenACommitThenAPowerCutLosesNothingDurable() throws {
        let (start, container, first) = try F.make()
        let slotA = container.slots[1], slotB = container.slots[4]
        let second = SeededRandom(seed: "second").bytes(5000), third = SeededRandom(seed: "third").bytes(6000)
        var middle = first
        middle[slotA] = second
        var last = middle
        last[slotB] = third

        // Commit 2 is killed after its superblock writes, before their sync.
        let killed = RecordingSlotFiles(start.snapshot)
        struct Kill: Error {}
        var blocksSynced = false
        killed.beforeSync = { files in
            // The sync after the superblock writes: the one that follows the blocks'.
            if blocksSynced { throw Kill() }
            blocksSynced = files.unsynced.count > files.unsynced.filter({ $0.offset < 2 * ContainerFormat.blockSize }).count
        }
        let doomed = try SlotContainer.open(files: killed, key: F.key())
        #expect(throws: Kill.self) { try doomed.commit(replacing: [slotA: second]) }

        // The page cache still has all of it; the disk has none of the superblocks.
        let cache = RecordingSlotFiles(current: killed.current, durable: killed.durable, unsynced: killed.unsynced)
        let random = SeededRandom(seed: "writeback")
        let (_, images) = try CrashImages.imagesAtEverySync(cache, random: random) {
            try SlotContainer.open(files: $0, key: F.key()).commit(replacing: [slotB: third])
        }
        for image in images {
            try Self.check(image, allowed: [first, middle, last], emptyAllowed: false, random: random)
        }
    }

    @Test(arguments: [EIO, ENOSPC], [0, 1, 2])
    func aFailedSyncFailsTheCommitAndTheDiskHoldsTheOldOrTheNewContents(code: Int32, at countdown: Int) throws {
        let (start, container, old) = try F.make()
        let written = container.slots[0]
        let new = SeededRandom(seed: "eio").bytes(4000)
        var expected = old
        expected[written] = new
        let files = RecordingSlotFiles(start.snapshot)
        let reopened = try SlotContainer.open(files: files, key: F.key())
        files.failSync = (countdown, code)
        #expect(throws: StorageError.self) { try reopened.commit(replacing: [written: new]) }
        if countdown == 0 {
            // The barrier's sync: it rewrote bytes already there, so the handle still
            // reads the old contents and is not yet marked for recovery.
            #expect(try reopened.readStream(written, count: old[written]!.count) == old[written]!)
        } else {
            #expect(throws: ContainerError.needsRecovery) { try reopened.readStream(written) }
            #expect(throws: ContainerError.needsRecovery) { try reopened.commit() }
        }
        let random = SeededRandom(seed: "eio-images")
        // After a power cut, and in the running process that reopens the directory.
        try Self.check(files.durable, allowed: [old, expected], emptyAllowed: false, random: random)
        try Self.check(files.current, allowed: [old, expected], emptyAllowed: false, random: random)
    }
}
