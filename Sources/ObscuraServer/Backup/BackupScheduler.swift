import Foundation
import Logging
import ObscuraCrypto
import ObscuraKit
import ObscuraStore

/// The gallery's automatic backups (docs/BACKUP.md, "Automatic backups"): watches the
/// directory's writes and backs it up a set time after the last one, or when asked;
/// keeps the state the page shows. One backup runs at a time, on a thread of its own.
final class BackupScheduler: @unchecked Sendable {
    // @unchecked: every mutable field is read and written under `lock`.
    private let lock = NSLock()
    let directory: VaultDirectory
    let store: BackupConfigurationStore
    private let clock: @Sendable () -> Double
    private let logger = Logger(label: "obscura.backup")

    private var seenWrites: UInt64
    /// When a write was last seen and not yet backed up; nil when the last backup holds
    /// every write.
    private var lastChange: Double?
    private var requested = false
    private var running: BackupCancellation?
    private var progress: BackupProgress?
    private var runningSince: Double?

    init(directory: VaultDirectory, store: BackupConfigurationStore, clock: @escaping @Sendable () -> Double) {
        self.directory = directory
        self.store = store
        self.clock = clock
        seenWrites = directory.writeCount
        // Changes made while no gallery ran (the command line's) count as made now.
        let path = BackupConfigurationStore.canonical(directory.path)
        let last = store.lastBackup(directory: path)
        if last?.succeeded != true || Self.newestSlotChange(path) > (last?.finished ?? 0) { lastChange = clock() }
    }

    /// The latest modification time of a slot file, in seconds since 1970.
    private static func newestSlotChange(_ path: String) -> Double {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path + "/data")) ?? []
        return names.compactMap { name in
            (try? FileManager.default.attributesOfItem(atPath: path + "/data/" + name))?[.modificationDate] as? Date
        }.map(\.timeIntervalSince1970).max() ?? 0
    }

    /// The directory's backup set-up, if it has one.
    var configuration: BackupConfiguration? {
        try? store.load(directory: BackupConfigurationStore.canonical(directory.path))
    }

    /// Notes new writes, and starts a backup when one is due. Called about once a second.
    func tick() {
        let writes = directory.writeCount
        let now = clock()
        guard let configuration else { return }
        let due: Bool = lock.withLock {
            if writes != seenWrites {
                seenWrites = writes
                lastChange = now
            }
            guard running == nil else { return false }
            if requested { return true }
            guard configuration.afterSeconds > 0, let lastChange else { return false }
            return now - lastChange >= Double(configuration.afterSeconds)
        }
        if due { start(configuration) }
    }

    /// Asks for a backup now. False when one is already running.
    func requestNow() -> Bool {
        lock.withLock {
            guard running == nil else { return false }
            requested = true
            return true
        }
    }

    /// Stops a running backup (the server is stopping) and waits up to `seconds` for it.
    func stop(waiting seconds: Double = 10) {
        lock.withLock { running }?.cancel()
        let deadline = Date().addingTimeInterval(seconds)
        while lock.withLock({ running != nil }) && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
    }

    private func start(_ configuration: BackupConfiguration) {
        let cancel = BackupCancellation()
        lock.withLock {
            running = cancel
            requested = false
            progress = nil
            runningSince = clock()
            // Writes from here on are after this backup's start: they bring the next.
            lastChange = nil
        }
        WorkerThread().start(name: "obscura.backup") { [self] in
            let record = backUp(configuration, cancel: cancel)
            try? store.saveLastBackup(record, directory: configuration.directory)
            lock.withLock {
                running = nil
                progress = nil
                runningSince = nil
                // A failed backup is tried again after the same wait.
                if !record.succeeded && lastChange == nil { lastChange = clock() }
            }
        }
    }

    private func backUp(_ configuration: BackupConfiguration, cancel: BackupCancellation) -> BackupRecord {
        let started = clock()
        do {
            let engine = BackupEngine(repository: configuration.repository, password: try configuration.loadPassword())
            let summary = try directory.backUp(to: engine, progress: { [self] report in lock.withLock { progress = report } }, cancel: cancel)
            logger.info("backup done", metadata: ["snapshot": "\(summary.snapshot)", "added": "\(summary.addedBytes)", "second_pass": "\(summary.secondPass)"])
            return BackupRecord(finished: clock(), succeeded: true, snapshot: summary.snapshot, addedBytes: summary.addedBytes, seconds: summary.seconds)
        } catch {
            logger.warning("backup failed", metadata: ["error": "\(error)"])
            return BackupRecord(finished: clock(), succeeded: false, seconds: clock() - started, message: "\(error)")
        }
    }

    /// What the page shows.
    struct Status: Encodable {
        struct Progress: Encodable {
            var bytesDone: Int64, totalBytes: Int64, filesDone: Int64, totalFiles: Int64, secondsRemaining: Int64?
        }
        struct Last: Encodable {
            var finished: Double, succeeded: Bool, snapshot: String?, addedBytes: Int64?, seconds: Double?, message: String?
        }
        var configured: Bool
        var repository: String?
        var passwordIn: String?
        var afterSeconds: Int?
        var running: Bool
        var runningSince: Double?
        var progress: Progress?
        var last: Last?
        /// When the next automatic backup is due, in seconds since 1970; nil when none is.
        var nextAt: Double?
    }

    func status() -> Status {
        let configuration = self.configuration
        let last = configuration.flatMap { store.lastBackup(directory: $0.directory) }
        return lock.withLock {
            let nextAt = configuration.flatMap { c -> Double? in
                guard running == nil, c.afterSeconds > 0, let lastChange else { return nil }
                return lastChange + Double(c.afterSeconds)
            }
            return Status(
                configured: configuration != nil, repository: configuration?.repository.shown,
                passwordIn: configuration.map { if case .keyring = $0.password { "keyring" } else { "file" } },
                afterSeconds: configuration?.afterSeconds, running: running != nil, runningSince: runningSince,
                progress: progress.map { Status.Progress(bytesDone: $0.bytesDone, totalBytes: $0.totalBytes, filesDone: $0.filesDone,
                                                          totalFiles: $0.totalFiles, secondsRemaining: $0.secondsRemaining) },
                last: last.map { Status.Last(finished: $0.finished, succeeded: $0.succeeded, snapshot: $0.snapshot,
                                             addedBytes: $0.addedBytes, seconds: $0.seconds, message: $0.message) },
                nextAt: nextAt)
        }
    }

    /// Sets how long after the last change a backup starts (0: only when asked).
    func setAfterSeconds(_ seconds: Int) throws -> BackupConfiguration {
        guard var configuration else { throw BackupError.notConfigured(directory: BackupConfigurationStore.canonical(directory.path)) }
        configuration.afterSeconds = seconds
        try store.save(configuration)
        return configuration
    }
}
