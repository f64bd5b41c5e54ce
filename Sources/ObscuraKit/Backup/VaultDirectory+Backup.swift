import Foundation
import ObscuraCrypto

extension VaultDirectory {
    /// Backs up this directory while this process holds it and may write to it (the
    /// gallery): a snapshot never holds a torn slot (docs/BACKUP.md, "Consistency").
    ///
    /// The first pass runs beside the gallery's writes. If any write committed during
    /// it, the snapshot may mix states, so a second pass runs with every write held
    /// back (reads of slots wait too); it reads again only what changed, and the first
    /// pass's snapshot is forgotten.
    public func backUp(
        to engine: BackupEngine, progress: ((BackupProgress) -> Void)? = nil, cancel: BackupCancellation? = nil
    ) throws -> BackupSummary {
        let directory = BackupConfigurationStore.canonical(path)
        // Read with no write under way: any write that overlaps the pass moves the count.
        let before = store.serialized { store.writeCount }
        let first = try engine.snapshot(directory: directory, vanishedPoolFilesAllowed: true, progress: progress, cancel: cancel)
        guard store.writeCount != before else { return first }
        logger.debug("a write committed during the backup; taking it again with writes held")
        var second = try store.serialized {
            try engine.snapshot(directory: directory, vanishedPoolFilesAllowed: true, progress: progress, cancel: cancel)
        }
        try? engine.forget(snapshot: first.snapshot)
        second.seconds += first.seconds
        second.secondPass = true
        return second
    }

    /// The number of writes to the slots begun so far; it never waits on one. The
    /// gallery's backup schedule watches it for changes.
    public var writeCount: UInt64 { store.writeCount }

    /// Backs up the vault directory at `path`, which no process holds: its lock is taken
    /// for the run (`obscura backup run`), so nothing writes to it meanwhile; neither the
    /// outer key nor a password is needed.
    ///
    /// - Throws: ``VaultError/inUse(_:)`` when another process holds it (`obscura serve`
    ///   backs up by itself), ``VaultError/notInitialized(_:)`` when it holds no slots.
    public static func backUp(
        path: String, to engine: BackupEngine, progress: ((BackupProgress) -> Void)? = nil, cancel: BackupCancellation? = nil
    ) throws -> BackupSummary {
        let directory = BackupConfigurationStore.canonical(path)
        let lock = try DirectoryLock(path: directory)
        defer { withExtendedLifetime(lock) {} }
        guard (try? SlotStore(path: directory + "/data", random: SystemRandom()).names().isEmpty == false) == true else {
            throw VaultError.notInitialized(directory)
        }
        // Alone with the directory: a pool file that vanished is a real fault.
        return try engine.snapshot(directory: directory, vanishedPoolFilesAllowed: false, progress: progress, cancel: cancel)
    }
}
