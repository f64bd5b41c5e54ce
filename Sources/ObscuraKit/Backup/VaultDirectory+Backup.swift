import Foundation
import ObscuraCrypto
import ObscuraStore

extension VaultDirectory {
    /// Backs up this directory while this process holds it and may write to it (the
    /// gallery): a snapshot never holds a torn slot (docs/BACKUP.md, "Consistency").
    ///
    /// The first pass runs beside the gallery's writes, under the tag
    /// ``BackupEngine/unverifiedTag``, which nothing restores. If no write began during
    /// it, it is accepted (tagged `obscura`). Otherwise it may mix states: a second pass
    /// runs with every slot write and read held back, reading again only what changed,
    /// and the first is forgotten, as are first passes an interrupted backup left.
    public func backUp(
        to engine: BackupEngine, progress: ((BackupProgress) -> Void)? = nil, cancel: BackupCancellation? = nil
    ) throws -> BackupSummary {
        let directory = BackupConfigurationStore.canonical(path)
        try? engine.forgetUnverified()
        // Read with no write under way: any write that overlaps the pass moves the count.
        let before = store.serialized { store.writeCount }
        let first = try engine.snapshot(
            directory: directory, tag: BackupEngine.unverifiedTag, vanishedPoolFilesAllowed: true, progress: progress, cancel: cancel)
        guard store.writeCount != before else { return try engine.accept(first, directory: directory) }
        logger.debug("a write committed during the backup; taking it again with writes held")
        defer { try? engine.forget(snapshot: first.snapshot) }
        // Every slot request of the gallery waits for this pass: a repository that stops
        // answering gets a short time, not the usual give-up time.
        var second = try store.serialized {
            try engine.withGiveUp(seconds: Self.heldPassGiveUpSeconds).snapshot(
                directory: directory, vanishedPoolFilesAllowed: true, progress: progress, cancel: cancel)
        }
        second.seconds += first.seconds
        second.secondPass = true
        return second
    }

    /// How long the second pass, with writes held, waits on a repository that stopped
    /// answering.
    static let heldPassGiveUpSeconds: Double = 20

    /// The number of writes to the slots begun so far; it never waits on one. The
    /// gallery's backup schedule watches it for changes.
    public var writeCount: UInt64 { store.writeCount }

    /// Backs up the vault directory at `path`, which no process holds: its lock is taken
    /// for the run (`obscura backup run`), so nothing writes to it meanwhile; neither the
    /// outer key nor a password is needed.
    ///
    /// - Throws: ``VaultError/inUse(_:)`` when another process holds it (`obscura serve`
    ///   backs up by itself), ``VaultError/notInitialized(_:)`` when it holds no slots.
    /// - Parameter engine: makes the engine once the lock is held (reading the password
    ///   only then: a held directory answers at once, whatever the keyring's state).
    public static func backUp(
        path: String, engine makeEngine: () throws -> BackupEngine, progress: ((BackupProgress) -> Void)? = nil,
        cancel: BackupCancellation? = nil
    ) throws -> BackupSummary {
        let directory = BackupConfigurationStore.canonical(path)
        let lock = try DirectoryLock(path: directory)
        defer { withExtendedLifetime(lock) {} }
        guard (try? SlotStore(path: directory + "/data", random: SystemRandom()).names().isEmpty == false) == true else {
            throw VaultError.notInitialized(directory)
        }
        let engine = try makeEngine()
        // Alone with the directory: a pool file that vanished is a real fault.
        return try engine.snapshot(directory: directory, vanishedPoolFilesAllowed: false, progress: progress, cancel: cancel)
    }
}
