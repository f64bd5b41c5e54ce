import Foundation
import ObscuraCrypto
import ObscuraStore

/// Backups of vault directories in one restic repository (docs/BACKUP.md): making the
/// repository, taking snapshots, listing, checking, restoring and thinning them.
///
/// A snapshot holds one vault directory whole, every slot and the pool, and nothing
/// else: restic runs in the directory and saves `.`, so a snapshot's root is the
/// directory's contents, and a restore gives back `data/` and `media/` as they were.
/// Each snapshot carries the tag ``tag``; listings, `latest` and retention look at those
/// alone.
public struct BackupEngine: Sendable {
    /// The tag on every snapshot Obscura takes and stands by.
    public static let tag = "obscura"
    /// The tag of a gallery backup's first pass until it is known to hold no torn slot
    /// (docs/BACKUP.md, "Consistency"): listings, `latest`, restores and retention never
    /// see such a snapshot, and the next gallery backup forgets any left behind.
    public static let unverifiedTag = "obscura-unverified"

    var restic: Restic

    /// An engine for `repository` under `password` (canonical, ``BackupPassword/canonical(_:)``).
    ///
    /// - Parameter giveUpSeconds: how long restic may keep retrying a repository that does
    ///   not answer before the run is stopped as unreachable.
    public init(repository: BackupRepository, password: SecureBytes, giveUpSeconds: Double = 120) {
        restic = Restic(repository: repository, password: password, giveUpSeconds: giveUpSeconds)
    }

    /// The repository.
    public var repository: BackupRepository { restic.repository }

    /// This engine, giving up on a repository that does not answer after `seconds`.
    func withGiveUp(seconds: Double) -> BackupEngine {
        var copy = self
        copy.restic.giveUpSeconds = seconds
        return copy
    }

    /// Makes a new repository.
    ///
    /// - Returns: false, making nothing, when a repository already exists there. Its
    ///   password is not checked here (this engine's is a new one, which cannot open it):
    ///   the caller asks for the repository's own and calls ``checkPassword()``.
    @discardableResult
    public func create() throws -> Bool {
        let output = try restic.run(["init"])
        if output.status == 0 { return true }
        guard output.stderr.contains("config file already exists") else { throw restic.classify(output.stderr, "init") }
        return false
    }

    /// Checks that the password opens the repository, reading only its config.
    public func checkPassword() throws {
        try restic.check(try restic.run(["cat", "config"]), "cat config")
    }

    /// Takes a snapshot of the vault directory at `directory` as it is now. The caller
    /// keeps writes away for the run (``VaultDirectory/backUp(to:progress:cancel:)``).
    ///
    /// A file restic could not read fails the backup (and its snapshot is forgotten),
    /// unless it is a pool file that no longer exists and `vanishedPoolFilesAllowed`: a
    /// file deleted after the commit that stopped naming it, which a consistent snapshot
    /// need not hold.
    func snapshot(
        directory: String, tag: String = Self.tag, vanishedPoolFilesAllowed: Bool, progress: ((BackupProgress) -> Void)?,
        cancel: BackupCancellation?
    ) throws -> BackupSummary {
        let run = { try self.snapshotOnce(directory: directory, tag: tag, vanishedPoolFilesAllowed: vanishedPoolFilesAllowed, progress: progress, cancel: cancel) }
        do {
            return try run()
        } catch BackupError.repositoryLocked {
            // A backup's lock is shared, so only an exclusive lock stops it: one that a
            // killed prune or check left, or a live one. Stale ones go, and it is tried
            // once more (a live one refuses again). Unlocking only then saves every other
            // run a restic start (its key derivation).
            try unlockStale()
            return try run()
        }
    }

    private func snapshotOnce(
        directory: String, tag: String, vanishedPoolFilesAllowed: Bool, progress: ((BackupProgress) -> Void)?,
        cancel: BackupCancellation?
    ) throws -> BackupSummary {
        var summary: ResticSummary?
        var unreadable = [String]()
        let output = try restic.run(["backup", "--json", "--tag", tag, "."], workingDirectory: directory, cancel: cancel) { line in
            switch ResticMessage(line: line) {
            case let .status(status)?: progress?(BackupProgress(status))
            case let .summary(s)?: summary = s
            case let .error(error)?: if let item = error.item { unreadable.append(item) }
            case nil: break
            }
        }
        for text in output.errorMessages {
            if case let .error(error)? = ResticMessage(line: text), let item = error.item { unreadable.append(item) }
        }
        // Exit 3: a snapshot was saved, but some files could not be read.
        guard output.status == 0 || output.status == 3, let summary else {
            throw output.status == 0 ? BackupError.resticFailed(command: "backup", detail: "no summary") : restic.classify(output.stderr, "backup")
        }
        let missing = unreadable.filter { item in
            let relative = Self.relative(item, to: directory)
            let vanished = relative.hasPrefix("media/") && !FileManager.default.fileExists(atPath: directory + "/" + relative)
            return !(vanished && vanishedPoolFilesAllowed)
        }
        if output.status == 3 && (!missing.isEmpty || unreadable.isEmpty) {
            try? forget(snapshot: summary.snapshotID)
            throw BackupError.incomplete(missing.isEmpty ? ["(restic named none)"] : missing)
        }
        return BackupSummary(summary)
    }

    /// `item`, a path restic named, relative to the backed-up `directory`: restic names
    /// files by absolute path even when it backs up `.`.
    static func relative(_ item: String, to directory: String) -> String {
        if item.hasPrefix(directory + "/") { return String(item.dropFirst(directory.count + 1)) }
        return String(item.drop { $0 == "/" || $0 == "." })
    }

    /// The snapshots Obscura took, oldest first.
    public func snapshots(path: String? = nil) throws -> [BackupSnapshot] {
        let output = try restic.run(Self.listing + ["--tag", Self.tag] + (path.map { ["--path", $0] } ?? []))
        try restic.check(output, "snapshots")
        do {
            return try JSONDecoder().decode([BackupSnapshot]?.self, from: Data(output.stdout)) ?? []
        } catch {
            throw BackupError.resticFailed(command: "snapshots", detail: "unreadable listing (\(error))")
        }
    }

    /// Lists snapshots without a lock: a listing only reads, and with a lock it would fail
    /// while a gallery's backup holds the repository exclusively (retagging, forgetting).
    static let listing = ["--no-lock", "snapshots", "--json"]

    /// What `check` found.
    public struct CheckReport: Sendable {
        /// Whether the repository has no error.
        public let passed: Bool
        /// restic's report, line by line.
        public let lines: [String]
    }

    /// Checks the repository's structure, and with `readData` every pack's contents.
    public func check(readData: Bool, cancel: BackupCancellation? = nil) throws -> CheckReport {
        try unlockStale()
        let output = try restic.run(["check"] + (readData ? ["--read-data"] : []), cancel: cancel)
        let lines = (String(decoding: output.stdout, as: UTF8.self) + output.stderr).split(separator: "\n").map(String.init)
            .filter { !$0.hasPrefix("reading repository password") && !$0.hasPrefix("[") }
        if output.status != 0 {
            let error = restic.classify(output.stderr, "check")
            switch error {
            case .wrongPassword, .noRepository, .unreachable, .repositoryLocked: throw error
            default: break
            }
        }
        return CheckReport(passed: output.status == 0, lines: lines)
    }

    /// How many snapshots to keep (`backup forget`): the last of each of so many days,
    /// weeks and months, as restic's `--keep-*` options count them.
    public struct Retention: Sendable {
        public var daily = 7, weekly = 4, monthly = 12
        /// The default: 7 daily, 4 weekly, 12 monthly.
        public init(daily: Int = 7, weekly: Int = 4, monthly: Int = 12) {
            self.daily = daily
            self.weekly = weekly
            self.monthly = monthly
        }
    }

    /// Forgets the snapshots `retention` does not keep and prunes the data only they
    /// held. Returns how many were kept and removed.
    public func forget(_ retention: Retention) throws -> (kept: Int, removed: Int) {
        try unlockStale()
        let output = try restic.run([
            "forget", "--json", "--tag", Self.tag, "--keep-daily", String(retention.daily),
            "--keep-weekly", String(retention.weekly), "--keep-monthly", String(retention.monthly),
        ])
        try restic.check(output, "forget")
        struct Group: Decodable { let keep: [BackupSnapshot]?; let remove: [BackupSnapshot]? }
        let groups = (try? JSONDecoder().decode([Group].self, from: Data(output.stdout))) ?? []
        let removed = groups.reduce(0) { $0 + ($1.remove?.count ?? 0) }
        if removed > 0 { try restic.check(try restic.run(["prune"]), "prune") }
        return (groups.reduce(0) { $0 + ($1.keep?.count ?? 0) }, removed)
    }

    /// Makes a verified first pass (tag ``unverifiedTag``) one of Obscura's snapshots;
    /// returns its new short id (restic's `tag` rewrites the snapshot, and with it the id).
    func accept(_ summary: BackupSummary, directory: String) throws -> BackupSummary {
        try restic.check(try restic.run(["tag", "--add", Self.tag, "--remove", Self.unverifiedTag, summary.snapshot]), "tag")
        let newest = try snapshots(path: directory).last
        guard let newest else { throw BackupError.resticFailed(command: "tag", detail: "the retagged snapshot is not listed") }
        var accepted = summary
        accepted.snapshot = newest.shortID
        return accepted
    }

    /// Forgets every first pass an interrupted gallery backup left unverified.
    func forgetUnverified() throws {
        let output = try restic.run(Self.listing + ["--tag", Self.unverifiedTag])
        try restic.check(output, "snapshots")
        let left = (try? JSONDecoder().decode([BackupSnapshot]?.self, from: Data(output.stdout))) ?? nil
        guard let left, !left.isEmpty else { return }
        try restic.check(try restic.run(["forget"] + left.map(\.id)), "forget")
    }

    /// Forgets one snapshot (a torn first pass, an incomplete one); its data goes at the
    /// next prune.
    func forget(snapshot id: String) throws {
        try restic.check(try restic.run(["forget", id]), "forget")
    }

    /// Removes locks left by restic processes that no longer run (a run killed with the
    /// repository out of reach leaves its lock behind).
    func unlockStale() throws {
        try restic.check(try restic.run(["unlock"]), "unlock")
    }

    /// Restores `snapshot` (`latest` or an id) as a new vault directory at `target`,
    /// which must not exist or be an empty directory: it is never written over.
    ///
    /// The password is checked before anything is made. The files go to a new directory
    /// beside `target`, are verified against the repository, must hold a vault directory,
    /// and only then are renamed to `target`; any failure removes them.
    ///
    /// - Returns: the bytes restored.
    @discardableResult
    public func restore(
        _ snapshot: String, to target: String, path: String? = nil, progress: (@Sendable (BackupProgress) -> Void)? = nil,
        cancel: BackupCancellation? = nil
    ) throws -> Int64 {
        guard snapshot == "latest" || (snapshot.count >= 8 && snapshot.count <= 64 && snapshot.allSatisfy(\.isHexDigit)) else {
            throw BackupError.invalidSnapshot(snapshot)
        }
        let target = try Self.checkTarget(target)
        try checkPassword()
        let name = snapshot == "latest" ? snapshot : snapshot.lowercased()
        var filter = ["--tag", Self.tag]
        if name == "latest" {
            if let path {
                filter += ["--path", path]
            } else {
                let directories = Set(try snapshots().map { $0.paths.joined(separator: ", ") })
                if directories.count > 1 { throw BackupError.ambiguousLatest(directories.sorted()) }
            }
        }
        let stats = try restic.run(["stats", "--json", "--mode", "restore-size"] + filter + [name])
        if stats.status != 0 { throw noSnapshotOr(stats, name, "stats") }
        struct Size: Decodable { let total_size: Int64?; let total_file_count: Int64? }
        let size = try? JSONDecoder().decode(Size.self, from: Data(stats.stdout))

        let parent = (target as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let staging = parent + "/.obscura-restore-" + UUID().uuidString.lowercased()
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        do {
            let watcher = progress.map { report in
                RestoreWatcher(path: staging, total: size?.total_size ?? 0, files: size?.total_file_count ?? 0, report: report)
            }
            defer { watcher?.stop() }
            let output = try restic.run(["restore"] + filter + ["--target", staging, "--verify", name], cancel: cancel)
            if output.status != 0 { throw noSnapshotOr(output, name, "restore") }
            try Self.requireVaultDirectory(staging, snapshot: name)
            if FileManager.default.fileExists(atPath: target) { guard rmdir(target) == 0 else { throw BackupError.targetNotEmpty(target) } }
            try FileIO.renameExclusive(staging, target)
            try FileIO.syncParentDirectory(of: target)
        } catch {
            try? FileManager.default.removeItem(atPath: staging)
            throw error
        }
        return size?.total_size ?? 0
    }

    /// `target` made absolute, once it is known to be a path where nothing is, or an
    /// empty directory, outside every vault directory.
    static func checkTarget(_ given: String) throws -> String {
        var st = stat()
        if lstat(given, &st) == 0 {
            switch st.st_mode & S_IFMT {
            case S_IFLNK: throw BackupError.targetNotADirectory(given, what: "a symbolic link")
            case S_IFDIR:
                guard (try? FileManager.default.contentsOfDirectory(atPath: given))?.isEmpty == true else {
                    throw BackupError.targetNotEmpty(given)
                }
            default: throw BackupError.targetNotADirectory(given, what: "a file")
            }
        }
        let target = BackupConfigurationStore.canonical(given)
        var ancestor = (target as NSString).deletingLastPathComponent
        while true {
            if isVaultDirectory(ancestor) { throw BackupError.targetInsideVault(target: target, vault: ancestor) }
            let up = (ancestor as NSString).deletingLastPathComponent
            if up == ancestor || up.isEmpty { return target }
            ancestor = up
        }
    }

    /// Whether `path` holds `data/` with a slot file name and `media/`.
    static func isVaultDirectory(_ path: String) -> Bool {
        let slots = (try? FileManager.default.contentsOfDirectory(atPath: path + "/data")) ?? []
        var isDirectory: ObjCBool = false
        return slots.contains(where: { SlotID(fileName: $0) != nil })
            && FileManager.default.fileExists(atPath: path + "/media", isDirectory: &isDirectory) && isDirectory.boolValue
    }

    private func noSnapshotOr(_ output: Restic.Output, _ name: String, _ command: String) -> BackupError {
        let text = output.stderr.lowercased()
        if text.contains("no matching id") || text.contains("no snapshot found") || text.contains("no snapshot matched") {
            return .noSnapshot(name)
        }
        return restic.classify(output.stderr, command)
    }

    /// Throws unless `path` holds `data/` with at least one slot file name and `media/`.
    static func requireVaultDirectory(_ path: String, snapshot: String) throws {
        guard isVaultDirectory(path) else { throw BackupError.notAVaultSnapshot(snapshot) }
    }
}

/// Reports a restore's progress from the bytes on disk (restic 0.14's restore reports
/// none), twice a second.
private final class RestoreWatcher: @unchecked Sendable {
    // @unchecked: `stopped` is read and written under `lock`.
    private let lock = NSLock()
    private var stopped = false

    init(path: String, total: Int64, files: Int64, report: @escaping @Sendable (BackupProgress) -> Void) {
        WorkerThread().start(name: "obscura.restore-watch") { [self] in
            while !lock.withLock({ stopped }) {
                var bytes: Int64 = 0, count: Int64 = 0
                if let walk = FileManager.default.enumerator(atPath: path) {
                    while let name = walk.nextObject() as? String {
                        if let attributes = walk.fileAttributes, attributes[.type] as? FileAttributeType == .typeRegular {
                            bytes += (attributes[.size] as? NSNumber)?.int64Value ?? 0
                            count += 1
                        }
                        _ = name
                    }
                }
                report(BackupProgress(bytesDone: min(bytes, total), totalBytes: total, filesDone: count, totalFiles: files))
                Thread.sleep(forTimeInterval: 0.5)
            }
        }
    }

    func stop() { lock.withLock { stopped = true } }
}
