import Foundation
import ObscuraCrypto

/// The slot files of one vault directory (`<vault>/data/{uuid}.db.enc`) and the single
/// way they are written (docs/FORMAT.md §8).
///
/// Once a version 4 container is attached, every read and commit goes through it, and
/// each slot's bytes are its container stream; every commit writes the same positions in
/// every slot (§8.6). Version 3 slot files (§3) are only read, to be migrated into a
/// container (§8.10): a commit without one is refused.
package final class SlotStore {
    /// The slot file suffix.
    package static let slotSuffix = ".db.enc"
    /// Temporary files start with this; they are swept when a directory is opened.
    package static let temporaryPrefix = ".pending-"
    /// A removed slot on its way out starts with this; swept (overwritten, then unlinked)
    /// when a directory is opened.
    package static let erasingPrefix = ".erasing-"

    /// One step of a commit, named for fault injection in tests.
    package typealias Step = WriteStep

    /// What one commit changes: new contents for existing slots, and new slots.
    package struct Change {
        package var replace: [String: [UInt8]] = [:]
        package var add: [[UInt8]] = []
        /// In a container, what the slots hold from this commit on (docs/FORMAT.md §8.12):
        /// the first paged slot switches the container to inner format 2.
        package var innerFormat: ContainerFormat.InnerFormat? = nil

        /// A change replacing `replace`'s slots and adding `add`'s, in `innerFormat`.
        package init(replace: [String: [UInt8]] = [:], add: [[UInt8]] = [], innerFormat: ContainerFormat.InnerFormat? = nil) {
            self.replace = replace
            self.add = add
            self.innerFormat = innerFormat
        }
    }

    package let path: String
    package let random: RandomSource
    /// Where commits report their steps; shared with the directory's media pool.
    package let steps: WriteSteps
    /// Called at each step of every write to the directory (commits, pool, exports);
    /// tests throw from it to simulate a crash there.
    package var faultInjector: ((Step) throws -> Void)? {
        get { steps.faultInjector }
        set { steps.faultInjector = newValue }
    }
    /// Held by every commit, and by callers around a read-decide-commit sequence: a commit
    /// rewrites every slot, so two at once would put back each other's old bytes.
    private let writeLock = OrderedLock(.slotWrites, recursive: true)
    /// The version 4 container, when the directory is one. Guarded by `writeLock`: the
    /// container's maps change at every commit.
    private var container: SlotContainer?
    /// See ``coverOwed``. Guarded by `writeLock`.
    private var coverIsOwed = false
    /// How many writes (commits, block commits, rotations, attachments) this store has
    /// begun, counted under `writeLock` as each begins. Guarded by its own `writesLock`,
    /// so that a reader never waits on a commit: a backup read while the count moved may
    /// hold a torn slot (docs/BACKUP.md, "Consistency").
    private var writes: UInt64 = 0
    private let writesLock = NSLock()

    package init(path: String, random: RandomSource, steps: WriteSteps = WriteSteps()) {
        self.path = path
        self.random = random
        self.steps = steps
    }

    /// Makes `container` the way slots are read and written from now on.
    package func attach(_ container: SlotContainer) {
        serialized {
            self.container = container
            countWrite()
        }
    }

    /// The number of writes begun so far. Read under ``serialized(_:)``, no write is
    /// under way, so every write after that read moves it.
    package var writeCount: UInt64 { writesLock.withLock { writes } }

    private func countWrite() { writesLock.withLock { writes += 1 } }

    /// What the slot files on disk are.
    package enum Layout {
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
    package func layout() throws -> Layout {
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
    package var isContainer: Bool { serialized { container != nil } }

    /// Slot file names, sorted.
    package func names() throws -> [String] {
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
    package func file(_ name: String) -> String { path + "/" + name }

    /// The whole file of slot `name`.
    package func read(_ name: String) throws -> [UInt8] {
        try containerRead(name, count: nil) ?? FileIO.read(file(name))
    }

    /// The header bytes of slot `name`.
    package func readHeader(_ name: String) throws -> [UInt8] {
        try containerRead(name, count: SlotFormat.headerSize) ?? FileIO.read(file(name), limit: SlotFormat.headerSize)
    }

    /// The container's directory id (docs/FORMAT.md §8.4), readable only under O.
    package func directoryID() throws -> [UInt8] {
        try serialized {
            guard let container else { throw ContainerError.notAContainer }
            return container.state.directoryID
        }
    }

    /// The container's directory id (docs/FORMAT.md §8.4), readable only under O, and for
    /// every slot the first `count` bytes of its stream: what the passkey sweep reads
    /// (§9.8). A slot whose stream cannot be read is nil there, as a slot without a
    /// readable header is to the password sweep.
    package func directoryHeads(count: Int) throws -> (directoryID: [UInt8], heads: [(name: String, slotID: [UInt8], head: [UInt8]?)]) {
        try serialized {
            guard let container else { throw ContainerError.notAContainer }
            let heads = container.slots.map { slot in
                (slot.fileName, slot.bytes, try? container.readStream(slot, count: count))
            }
            return (container.state.directoryID, heads)
        }
    }

    /// Removes temporaries left by an interrupted commit. Their slots still hold the old
    /// or the new bytes, whole, because temporaries only ever replace slots by rename.
    /// A slot an interrupted destroy was erasing is overwritten before it goes.
    package func sweepTemporaries() throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: path) {
            if name.hasPrefix(Self.erasingPrefix) {
                try? FileIO.overwriteInPlace(file(name), with: random.bytes(try FileIO.size(file(name))))
            }
            if name.hasPrefix(Self.temporaryPrefix) || name.hasPrefix(Self.erasingPrefix) {
                unlink(file(name))
            }
        }
    }

    /// Runs `body` holding the directory's write lock: the slots it reads cannot change
    /// before the commit it makes (commits from two sessions, two vault creations).
    package func serialized<T>(_ body: () throws -> T) rethrows -> T {
        try writeLock.withLock(body)
    }

    /// Applies `change`, rewriting every slot as described on the type.
    package func commit(_ change: Change) throws {
        try serialized {
            countWrite()
            // Version 3 slot files are only read now, for the migration (docs/FORMAT.md §8.10).
            guard let container else { throw ContainerError.notAContainer }
            var replacing = [SlotID: [UInt8]]()
            for (name, contents) in change.replace {
                replacing[try slotID(name)] = contents
            }
            try container.commit(replacing: replacing, adding: change.add, innerFormat: change.innerFormat)
            // A whole commit writes all of the free space (§8.12).
            coverIsOwed = false
        }
    }

    /// Whether a cover commit (a whole commit made to overwrite the free space) failed,
    /// also after ``cover()``'s recovery, so that blocks freed by an earlier commit (a
    /// credential commit's old block 0, docs/FORMAT.md §9.7) may still be there. Cleared
    /// by the next whole commit. Held in memory only: the caller reports it.
    package var coverOwed: Bool { serialized { coverIsOwed } }

    /// Makes a whole commit to overwrite the free space. When it fails, the container is
    /// opened again from its files (recovery, §8.8, finishes or undoes the torn commit, so
    /// the handle can write again), and the commit is tried once more; when that fails
    /// too, the cover is owed (``coverOwed``) and the error is thrown.
    package func cover() throws {
        try serialized {
            do {
                try commit(.init())
            } catch {
                do {
                    try recoverInPlace()
                    try commit(.init())
                } catch {
                    coverIsOwed = true
                    // Usable again for other writes, if the files can be read at all.
                    try? recoverInPlace()
                    throw error
                }
            }
        }
    }

    /// Opens the container again from its files, as the next open would: after a write
    /// that failed part-way, the handle refuses every write (``ContainerError/needsRecovery``)
    /// until then. Recovery leaves the last agreed commit, or the torn one finished.
    package func recoverInPlace() throws {
        try serialized {
            guard let current = container else { throw ContainerError.notAContainer }
            container = try SlotContainer.open(files: current.files, key: current.key, random: random)
            countWrite()
        }
    }

    /// Whether the slots are a container of inner format 2 (docs/FORMAT.md §8.12), whose
    /// slots may hold paged catalogs.
    package var holdsBlocks: Bool { serialized { container?.state.innerFormat == .blocks } }

    /// Logical block `index` of slot `name` in the container (a paged catalog's block).
    package func readBlock(_ name: String, _ index: Int) throws -> [UInt8] {
        try serialized { try requireContainer(name).readBlock(try slotID(name), index) }
    }

    /// Commits new payloads for logical blocks of slot `name` (inner format 2): one
    /// commit that writes the same bucket of positions in every slot (§8.12), of at least
    /// `minimumBucket` blocks (the writer's floor).
    @discardableResult
    package func commitBlocks(
        _ name: String, _ blocks: [Int: [UInt8]], logicalCount: Int, minimumBucket: Int = 0
    ) throws -> BlockCommitReport {
        try serialized {
            countWrite()
            return try requireContainer(name).commit(
                blocks: [try slotID(name): blocks], logicalCount: logicalCount, minimumBucket: minimumBucket)
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

    /// Re-seals every slot of the container under `key` (docs/FORMAT.md §8.11): one
    /// commit under the new key, then a cover commit that first overwrites the previous
    /// commit's superblocks, then its blocks.
    package func rotate(to key: OuterKey) throws {
        try serialized {
            countWrite()
            guard let container else { throw ContainerError.notAContainer }
            try container.commit(rekeyingTo: key)
            // Begins by overwriting the old key's superblocks (§8.11 step 2).
            try container.commit()
        }
    }
}

