import Foundation
import ObscuraCrypto
import ObscuraStore

/// The slot files of one vault directory (`<vault>/data/{uuid}.db.enc`) and the single
/// way they are written (docs/FORMAT.md §3.4, §4).
///
/// A directory sealed under an outer key is a version 4 container (docs/FORMAT.md §8):
/// once one is attached, every read and commit goes through it, and each slot's bytes
/// are its container stream. Otherwise the version 3 files are used as they are:
///
/// Every commit rewrites every slot: each file's new bytes go to a temporary file that is
/// fsynced, then all temporaries are renamed over their slots in a random order, then all
/// slots get one access and modification time. So after any write all slots have fresh
/// inodes allocated in random order, fully written blocks and equal timestamps, and a
/// crash at any step leaves each slot with its old or its new bytes.
final class SlotStore {
    /// The slot file suffix.
    static let slotSuffix = ".db.enc"
    /// Temporary files start with this; they are swept when a directory is opened.
    static let temporaryPrefix = ".pending-"
    /// A removed slot on its way out starts with this; swept (overwritten, then unlinked)
    /// when a directory is opened.
    static let erasingPrefix = ".erasing-"

    /// One step of a commit, named for fault injection in tests.
    typealias Step = WriteStep

    /// What one commit changes: new unpadded contents for existing slots, new slots, and
    /// slots to erase.
    struct Change {
        var replace: [String: [UInt8]] = [:]
        var add: [[UInt8]] = []
        var remove: Set<String> = []
        /// In a container, what the slots hold from this commit on (docs/FORMAT.md §8.12):
        /// the first paged slot switches the container to inner format 2.
        var innerFormat: ContainerFormat.InnerFormat? = nil
    }

    let path: String
    let random: RandomSource
    /// Where commits report their steps; shared with the directory's media pool.
    let steps: WriteSteps
    /// Called at each step of every write to the directory (commits, pool, exports);
    /// tests throw from it to simulate a crash there.
    var faultInjector: ((Step) throws -> Void)? {
        get { steps.faultInjector }
        set { steps.faultInjector = newValue }
    }
    /// Held by every commit, and by callers around a read-decide-commit sequence: a commit
    /// rewrites every slot, so two at once would put back each other's old bytes.
    private let writeLock = NSRecursiveLock()
    /// The version 4 container, when the directory is one. Guarded by `writeLock`: the
    /// container's maps change at every commit.
    private var container: SlotContainer?
    /// How many writes (commits, block commits, rotations, attachments) this store has
    /// begun, counted under `writeLock` as each begins. Guarded by its own `writesLock`,
    /// so that a reader never waits on a commit: a backup read while the count moved may
    /// hold a torn slot (docs/BACKUP.md, "Consistency").
    private var writes: UInt64 = 0
    private let writesLock = NSLock()

    init(path: String, random: RandomSource, steps: WriteSteps = WriteSteps()) {
        self.path = path
        self.random = random
        self.steps = steps
    }

    /// Makes `container` the way slots are read and written from now on.
    func attach(_ container: SlotContainer) {
        serialized {
            self.container = container
            countWrite()
        }
    }

    /// The number of writes begun so far. Read under ``serialized(_:)``, no write is
    /// under way, so every write after that read moves it.
    var writeCount: UInt64 { writesLock.withLock { writes } }

    private func countWrite() { writesLock.withLock { writes += 1 } }

    /// What the slot files on disk are.
    enum Layout {
        /// Version 3 slot files, each starting with the magic.
        case version3
        /// A version 4 container: no slot has a valid version 3 header.
        case container
        /// Both: a migration to the container was interrupted.
        case migrating
    }

    /// What the slot files on disk are, from their first bytes. A migration temporary
    /// left beside them means a migration to finish, whatever the slots begin with: the
    /// last slot's overwrite may have been torn after its first bytes.
    func layout() throws -> Layout {
        let all = try FileManager.default.contentsOfDirectory(atPath: path)
        if all.contains(where: { $0.hasPrefix(SlotContainer.migratingPrefix) }) { return .migrating }
        let slots = all.filter { SlotID(fileName: $0) != nil }
        let heads = try slots.map { try FileIO.read(file($0), limit: SlotFormat.headerSize) }
        // Every slot with the magic: version 3, even if one header is damaged (that vault
        // alone is lost, as before version 4).
        if heads.allSatisfy({ $0.starts(with: SlotFormat.magic) }) { return .version3 }
        // Otherwise a slot counts as version 3 only with a whole, valid header: a
        // container slot begins with random bytes, which are the magic once in 2^32.
        // (A paged header, version 4, only ever exists inside a container's blocks.)
        return heads.contains { (try? SlotHeader.decode($0))?.version == SlotFormat.version } ? .migrating : .container
    }

    /// Whether the slots are a version 4 container.
    var isContainer: Bool { serialized { container != nil } }

    /// Slot file names, sorted.
    func names() throws -> [String] {
        try serialized {
            if let container { return container.slots.map(\.fileName) }
            return try FileManager.default.contentsOfDirectory(atPath: path)
                .filter { $0.hasSuffix(Self.slotSuffix) && !$0.hasPrefix(".") }
                .sorted()
        }
    }

    /// Runs `body` on the container's stream reader for slot `name`, under the lock.
    private func containerRead(_ name: String, count: Int?) throws -> [UInt8]? {
        try serialized {
            guard let container else { return nil }
            return try container.readStream(try slotID(name), count: count)
        }
    }

    /// The full path of slot `name`.
    func file(_ name: String) -> String { path + "/" + name }

    /// The whole file of slot `name`.
    func read(_ name: String) throws -> [UInt8] {
        try containerRead(name, count: nil) ?? FileIO.read(file(name))
    }

    /// The header bytes of slot `name`.
    func readHeader(_ name: String) throws -> [UInt8] {
        try containerRead(name, count: SlotFormat.headerSize) ?? FileIO.read(file(name), limit: SlotFormat.headerSize)
    }

    /// Removes temporaries left by an interrupted commit. Their slots still hold the old
    /// or the new bytes, whole, because temporaries only ever replace slots by rename.
    /// A slot an interrupted destroy was erasing is overwritten before it goes.
    func sweepTemporaries() throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: path) {
            if name.hasPrefix(Self.erasingPrefix) {
                try? FileIO.overwriteInPlace(file(name), with: random.bytes(try FileIO.size(file(name))))
            }
            if name.hasPrefix(Self.temporaryPrefix) || name.hasPrefix(Self.erasingPrefix) {
                unlink(file(name))
            }
        }
    }

    /// The tier all slots are in: the largest tier any slot file is in.
    func currentTier(_ names: [String]) throws -> Int {
        try names.map { SlotSizing.tier(containing: try FileIO.size(file($0))) }.max() ?? 0
    }

    /// Applies `change`, rewriting every slot as described on the type.
    /// Runs `body` holding the directory's write lock: the slots it reads cannot change
    /// before the commit it makes (persists from two sessions, two vault creations).
    func serialized<T>(_ body: () throws -> T) rethrows -> T {
        writeLock.lock()
        defer { writeLock.unlock() }
        return try body()
    }

    func commit(_ change: Change) throws {
        try serialized {
            countWrite()
            guard let container else { return try commitLocked(change) }
            // A container never removes a slot file: a destroyed vault's slot becomes a decoy.
            precondition(change.remove.isEmpty, "a container keeps every slot")
            var replacing = [SlotID: [UInt8]]()
            for (name, contents) in change.replace {
                replacing[try slotID(name)] = contents
            }
            try container.commit(replacing: replacing, adding: change.add, innerFormat: change.innerFormat)
        }
    }

    /// Whether the slots are a container of inner format 2 (docs/FORMAT.md §8.12), whose
    /// slots may hold paged catalogs.
    var holdsBlocks: Bool { serialized { container?.state.innerFormat == .blocks } }

    /// Logical block `index` of slot `name` in the container (a paged catalog's block).
    func readBlock(_ name: String, _ index: Int) throws -> [UInt8] {
        try serialized { try requireContainer(name).readBlock(try slotID(name), index) }
    }

    /// Commits new payloads for logical blocks of slot `name` (inner format 2): one
    /// commit that writes the same bucket of positions in every slot (§8.12).
    @discardableResult
    func commitBlocks(_ name: String, _ blocks: [Int: [UInt8]], logicalCount: Int) throws -> BlockCommitReport {
        try serialized {
            countWrite()
            return try requireContainer(name).commit(blocks: [try slotID(name): blocks], logicalCount: logicalCount)
        }
    }

    /// The container slot named `name`; a name the container cannot hold is no file of it.
    private func slotID(_ name: String) throws -> SlotID {
        guard let slot = SlotID(fileName: name) else { throw StorageError.io(file(name), ENOENT) }
        return slot
    }

    /// The container, for block reads and commits of slot `name`: a version 3 directory
    /// has no logical blocks.
    private func requireContainer(_ name: String) throws -> SlotContainer {
        guard let container else { throw StorageError.io(file(name), ENOENT) }
        return container
    }

    /// Slot `name` as a paged catalog's store: reads and commits go through the
    /// container under the directory's write lock.
    func pageStore(_ name: String) -> SlotPageStore {
        SlotPageStore(
            read: { try self.readBlock(name, $0) },
            commit: { try self.commitBlocks(name, $0, logicalCount: $1) })
    }

    /// Re-seals every slot of the container under `key` (docs/FORMAT.md §8.11): one
    /// commit under the new key, then a cover commit that first overwrites the previous
    /// commit's superblocks, then its blocks.
    func rotate(to key: OuterKey) throws {
        try serialized {
            countWrite()
            guard let container else { throw VaultError.outerKeyRequired }
            try container.commit(rekeyingTo: key)
            // Begins by overwriting the old key's superblocks (§8.11 step 2).
            try container.commit()
        }
    }

    private func commitLocked(_ change: Change) throws {
        let kept = try names().filter { !change.remove.contains($0) }
        var tier = try currentTier(kept)
        var sizes = [String: Int]()
        for name in kept { sizes[name] = try FileIO.size(file(name)) }

        // Grow every slot when one must: a replaced slot outgrowing its pinned size, or a
        // new slot that might not fit a size drawn from the current tier.
        let outgrown = change.replace.contains { $0.value.count > sizes[$0.key, default: 0] }
            || change.add.contains { $0.count > SlotSizing.range(ofTier: tier).lowerBound }
        if outgrown {
            let needed = (change.replace.values.map(\.count) + change.add.map(\.count)).max() ?? 0
            tier = SlotSizing.tier(fitting: needed, atLeast: tier + 1)
            for name in kept { sizes[name] = SlotSizing.drawSize(inTier: tier, using: random) }
        }

        var plan: [(target: String, contents: [UInt8]?, size: Int)] = kept.map {
            ($0, change.replace[$0], sizes[$0]!)
        }
        for contents in change.add {
            let name = UUID().uuidString.lowercased() + Self.slotSuffix
            plan.append((name, contents, SlotSizing.drawSize(inTier: tier, using: random)))
        }

        var temporaries = [(temporary: String, target: String)]()
        do {
            // Random order, so inode numbers say nothing about which slot was written.
            for (n, entry) in random.shuffled(plan).enumerated() {
                let bytes = try entry.contents ?? read(entry.target)
                precondition(bytes.count <= entry.size, "slot contents exceed the slot size")
                let temporary = file(Self.temporaryPrefix + UUID().uuidString.lowercased())
                try FileIO.createDurably(temporary, parts: [bytes, random.bytes(entry.size - bytes.count)])
                temporaries.append((temporary, file(entry.target)))
                try steps.reached(.wroteTemporary(n))
            }
            for (n, entry) in random.shuffled(temporaries).enumerated() {
                try FileIO.rename(entry.temporary, entry.target)
                try steps.reached(.renamed(n))
            }
            try FileIO.syncDirectory(path)
            try steps.reached(.syncedDirectory)
        } catch {
            if !(error is InjectedCrash) {
                for entry in temporaries { unlink(entry.temporary) }
            }
            throw error
        }

        for name in change.remove.sorted() {
            try erase(name)
        }
        // In random order too: each call also sets the file's change time, and in plan
        // order (names, then new slots) a file system with fine-grained change times
        // would show which slots this commit added.
        try FileIO.setTimes(random.shuffled(plan.map { file($0.target) }), to: FileIO.now())
        try steps.reached(.setTimes)
    }

    /// Overwrites slot `name` with random bytes of its size, then unlinks it. The slot
    /// is first renamed out of the slot names, so that a crash mid-way never leaves a
    /// file of random bytes among the slots (where it would be an eleventh, broken slot);
    /// the next open finishes the erasure (``sweepTemporaries()``).
    private func erase(_ name: String) throws {
        let target = file(Self.erasingPrefix + UUID().uuidString.lowercased())
        try FileIO.rename(file(name), target)
        do {
            try FileIO.syncDirectory(path)
            try steps.reached(.erased(name))
            try FileIO.overwriteInPlace(target, with: random.bytes(try FileIO.size(target)))
        } catch {
            // Out of the slot names already: better unlinked unerased than left behind.
            if !(error is InjectedCrash) { unlink(target) }
            throw error
        }
        guard unlink(target) == 0 else { throw StorageError.io(target, errno) }
        try FileIO.syncDirectory(path)
        try steps.reached(.unlinked(name))
    }
}

/// Thrown by a test's fault injector to stop a commit as a crash would: with no cleanup.
struct InjectedCrash: Error {}
