import CObscuraSystem
import Foundation
import ObscuraCrypto
import ObscuraStore

/// `obscura watch`: seals every new or changed file of some folders into a vault
/// directory's inbox as a drop, once it is complete (docs/PHONE.md §W2). It needs no
/// password and opens no vault: it holds the drop code only.
///
/// A **scan** decides (§W2.2): each pass lists the folders through their descriptors and
/// compares every file with the journal and with what the last passes saw. A file is
/// sealed once it has been quiet for the settle window, no local writer holds it open
/// (a read lease, where the file system gives one), and, for the types phones make, its
/// structure is whole (§W2.3). This version scans on a timer; the event sources of step
/// S5 (inotify) only make it sooner.
package final class Watcher {
    /// What the command line sets.
    package struct Options: Sendable {
        /// The vault directory whose inbox receives the drops.
        package var vault: String
        /// The code every file is sealed to.
        package var code: DropCode
        /// The folders watched.
        package var sources: [String]
        /// The state directory (§W2.5).
        package var state: String
        /// Seal what is there at a folder's first start too (§W2.6).
        package var existing = false
        /// Seconds a file must stay unchanged (§W2.3).
        package var settle: Double = 10
        /// Seconds between scans: with events, a full rescan's period; without, the only
        /// way changes are seen.
        package var interval: Double = 2
        /// Whether the kernel's events (inotify) make scans come sooner (§W2.2); off with
        /// `--poll`.
        package var usesEvents = false
        /// The most blobs left in the inbox (§W2.8).
        package var inboxLimit = DropInbox.maximumBlobs
        /// Days a content record is kept (§W2.5).
        package var forgetAfterDays = 30
        /// Start each folder's journal again and empty the content records (§W2.6).
        package var forget = false
        /// Remove a source file once its vault took it in (§W2.7).
        package var removeAfter = false
        /// Remove even in a folder that syncs deletions back (§W2.7 rule 6).
        package var removeInSyncedFolder = false
        /// Name each file sealed in the log (§W2.9: otherwise a taken file is never named).
        package var verbose = false
        /// Seconds after which a quiet file that is not whole is sealed as it is (§W2.3).
        package var giveUpAfter: Double = 3_600

        /// The options of a watcher of `sources` for the vault directory `vault`.
        package init(vault: String, code: DropCode, sources: [String], state: String) {
            self.vault = vault
            self.code = code
            self.sources = sources
            self.state = state
        }
    }

    /// What the watcher has done since it started, for the status line (§W2.9).
    package struct Tally: Equatable, Sendable {
        /// Files sealed into the inbox, and their bytes.
        package var sealed = 0, sealedBytes: UInt64 = 0
        /// Files whose content the watcher had already sealed (not sealed again).
        package var known = 0
        /// Files waiting to be quiet and whole.
        package var settling = 0
        /// Files left in place, each named in the log once.
        package var refused = 0
        /// Blobs in the inbox at the last look.
        package var inbox = 0
        /// Source files removed once their vault took them in (`--remove-after`).
        package var removed = 0
        /// Scans of the folders so far.
        package var scans = 0

        /// Nothing done yet.
        package init() {}
    }

    /// Files larger than this are hashed before sealing, so that a moved or copied video
    /// the watcher sealed before is not encrypted again (§W2.4 step 5).
    static let hashFirstAbove: UInt64 = 64 << 20

    /// What was decided about one file, in the order of §W2.3.
    package enum Outcome: Equatable, Sendable {
        case sealed, known, waiting, refused
    }

    let options: Options
    let key: WatchKey
    private let inbox: DropInbox
    let log: (String) -> Void
    private var folders: [Folder] = []
    private let content: ContentJournal
    /// The tally, updated as files are dealt with.
    package internal(set) var tally = Tally()
    private var inboxFullSince: Double?
    private var saidVaultMoved = false
    /// The kernel's events, where they can be had (``Options/usesEvents``).
    private let events: WatchEvents?
    /// Seconds between scans: the options', or, where events were asked for and the
    /// system gave none, the polling default.
    private let interval: Double
    /// Seconds between scans when events were asked for and none can be had.
    static let pollingWithoutEvents: Double = 2
    /// The seconds a file that arrived by a rename must stay quiet: a sync tool's rename
    /// is the end of its writing (§W2.3, "fast path").
    static let afterRename: Double = 1

    /// The inbox directory, opened at start with `--remove-after`: a blob's leaving is
    /// seen through it, never by path, so that a vault directory moved or unmounted does
    /// not look like an emptied inbox (§W2.7 rule 1).
    var inboxDirectory: Int32?
    /// Called at each step of a removal; a test stops one there by throwing, as a kill
    /// would (nothing is undone on disk).
    package var removalProbe: ((RemovalStep) throws -> Void)?

    /// One watched folder: its tree, journal, lock, and the files it is waiting on.
    final class Folder {
        let tree: WatchTree
        let journal: WatchJournal
        let lock: Int32
        /// Stat keys of the journal (baseline and seen).
        var known: Set<[UInt8]> = []
        /// A first start without `--existing`: the first scan records a baseline.
        var baseline: Bool
        /// Files not yet dealt with, by path under the folder.
        var pending: [[UInt8]: Pending] = [:]
        /// Files that arrived by a rename since the last scan (the events say so).
        var renamedInto: Set<[UInt8]> = []
        /// Files found in the journal, by path, with the state they had: a scan passes
        /// them by without keying their metadata again (a folder of 20,000 photos is
        /// scanned every few seconds).
        var settled: [[UInt8]: [Int64]] = [:]
        /// Stat keys refused this run (named in the log once).
        var refused: Set<[UInt8]> = []
        /// Whether the read lease's absence was said for this folder.
        var saidNoLease = false
        /// Removals waiting for their blobs to leave the inbox, by stat key.
        var removals: [[UInt8]: Removal] = [:]
        /// Whether sources of this folder may be removed (`--remove-after`, a local file
        /// system that gives read leases).
        var removalOn = false

        init(tree: WatchTree, journal: WatchJournal, lock: Int32, baseline: Bool) {
            self.tree = tree
            self.journal = journal
            self.lock = lock
            self.baseline = baseline
        }

        deinit { close(lock) }
    }

    deinit { if let inboxDirectory { close(inboxDirectory) } }

    /// A file the watcher is waiting on.
    struct Pending {
        var entry: WatchTree.Entry
        /// When the watcher first saw it in its present state (monotonic seconds).
        var since: Double
        /// Whether the structure check found it cut short in this state.
        var incomplete = false
        /// Whether a failure to seal it was said.
        var saidFailure = false
    }

    /// Starts watching: checks the vault directory and the folders, takes each folder's
    /// lock, reads the journals. Nothing is sealed until ``pass(now:)`` or ``run(stop:)``.
    ///
    /// - Throws: ``WatchError/sourceInUse(_:)`` when another watcher holds a folder.
    package init(options: Options, log: @escaping (String) -> Void, random: RandomSource = SystemRandom()) throws {
        self.options = options
        self.log = log
        events = options.usesEvents ? WatchEvents() : nil
        interval = options.usesEvents && events == nil ? min(options.interval, Self.pollingWithoutEvents) : options.interval
        inbox = DropInbox(vaultPath: options.vault)
        try inbox.makeDirectory()
        try FileManager.default.createDirectory(
            atPath: options.state, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        key = try WatchKey.loadOrCreate(state: options.state, random: random)
        content = try ContentJournal(state: options.state, key: key, forgetAfterDays: options.forgetAfterDays, forget: options.forget)
        if options.removeAfter {
            inboxDirectory = try FileIO.openOrThrow(inbox.path, O_RDONLY | O_DIRECTORY)
        }
        let excluded = Set([options.vault, inbox.path, options.state].compactMap(WatchTree.identity(of:)))
        var seen = Set<String>()
        for source in options.sources {
            let tree = try WatchTree(path: source, excluding: excluded)
            // The same folder named twice is watched once (review W-S11).
            guard seen.insert(tree.path).inserted else { continue }
            let name = key.sourceName(realPath: Array(tree.path.utf8))
            let lockPath = options.state + "/" + name + ".lock"
            let lock = try FileIO.openOrThrow(lockPath, O_RDWR | O_CREAT, 0o600)
            guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
                close(lock)
                throw WatchError.sourceInUse(tree.path)
            }
            let journalPath = options.state + "/" + name + ".journal"
            let firstStart = access(journalPath, F_OK) != 0
            // A first start's baseline (every file there now, left as it is) is made whole
            // with the journal itself, or not at all (review W-S1): a start stopped half-way
            // must not leave a journal that the next start takes as the baseline.
            let baseline = (firstStart || options.forget) && !options.existing
            let baselineRecords = baseline ? tree.scan().map {
                WatchJournal.Record(type: WatchJournal.Kind.baseline.rawValue, body: statKey($0, stableInodes: tree.stableInodes))
            } : []
            if firstStart { try WatchJournal.create(journalPath, records: baselineRecords, random: random) }
            let journal = try WatchJournal(path: journalPath, random: random)
            if options.forget { try journal.rewrite(keeping: baselineRecords) }
            let folder = Folder(tree: tree, journal: journal, lock: lock, baseline: baseline)
            let records = try journal.newRecords(repair: true).records
            for record in records
            where record.type == WatchJournal.Kind.baseline.rawValue || record.type == WatchJournal.Kind.seen.rawValue {
                folder.known.insert(record.body)
            }
            folders.append(folder)
            let mode = folder.baseline ? "; what is there now is left as it is (--existing seals it)" : ""
            let how = events != nil && tree.stableInodes
                ? "changes as they happen, and a scan every \(Self.seconds(interval))"
                : "a scan every \(Self.seconds(interval))"
            log("watching \(tree.path) (\(how))\(mode)")
            guard options.removeAfter else { continue }
            if !options.removeInSyncedFolder, let refusal = Self.syncedFolderRefusal(tree.path) {
                throw WatchError.syncedFolder("\(tree.path): " + refusal)
            }
            if !options.removeInSyncedFolder {
                var below: String?
                _ = tree.scan { directory, _ in if below == nil { below = Self.syncMarkerRefusal(in: directory) } }
                if let below { throw WatchError.syncedFolder(below) }
            }
            folder.removals = pendingRemovals(records, header: journal.header, folder: tree.path)
            // A network or FUSE file system gives no lease that says anything about writers
            // on other machines (§W2.3): sealing goes on, removal does not.
            folder.removalOn = tree.stableInodes
            if !folder.removalOn {
                log("\(tree.path): kept after sealing: this file system gives no read lease that a writer elsewhere must respect")
            }
            try recoverSetAside(in: folder)
        }
    }

    /// Scans until `stop` says to, sealing what is complete; syncs the journals.
    package func run(stop: () -> Bool, status: ((Tally) -> Void)? = nil) throws {
        var day = Self.today()
        var lastScan = -Double.infinity
        while !stop() {
            // Content records past --forget-after go at start and then every day, not
            // only when the watcher restarts (review W-S8).
            if Self.today() != day {
                day = Self.today()
                try content.compact()
            }
            try pass(now: Self.monotonic(), stop: stop)
            lastScan = Self.monotonic()
            status?(tally)
            // Sleep until the next rescan, a file's settle window ending, or an event,
            // a tenth of a second at a time so that a stop is heard.
            // A file whose window has ended but which waits on something else (room in
            // the inbox, a writer, a failure) brings the next scan no sooner than a gap:
            // a full inbox can last days, and must not turn the watcher into a busy loop.
            let gap = inboxFullSince == nil ? Self.soonestRescan : Self.fullInboxRescan
            let due = min(lastScan + interval, max(nextDue() ?? .infinity, lastScan + gap))
            while !stop() {
                let now = Self.monotonic()
                guard now < due else { break }
                let step = min(0.1, due - now)
                if let events {
                    let (changed, renamed) = events.wait(seconds: step)
                    note(renamed)
                    // A burst of events is taken in by one scan a moment later.
                    if changed {
                        usleep(200_000)
                        note(events.wait(seconds: 0).renamedInto)
                        break
                    }
                } else {
                    usleep(useconds_t(step * 1_000_000))
                }
            }
        }
    }

    /// Marks files that arrived by a rename for the short settle window.
    private func note(_ renamed: [(folder: Int, path: [UInt8])]) {
        for (folder, path) in renamed where folders.indices.contains(folder) {
            folders[folder].renamedInto.insert(path)
        }
    }

    /// The least time between two scans that a waiting file brings about.
    static let soonestRescan: Double = 1
    /// The same while the inbox is full (§W2.8: "looking again every 10 s").
    static let fullInboxRescan: Double = 10

    /// When the first file waiting will have been quiet long enough, on the monotonic
    /// clock; nil when none waits.
    func nextDue() -> Double? {
        var due: Double?
        for folder in folders {
            for (path, pending) in folder.pending {
                let window = pending.incomplete ? options.giveUpAfter : settle(path, in: folder)
                due = min(due ?? .infinity, pending.since + window)
            }
        }
        return due
    }

    /// The settle window of the file at `path`: short for one that arrived by a rename.
    func settle(_ path: [UInt8], in folder: Folder) -> Double {
        folder.renamedInto.contains(path) ? min(options.settle, Self.afterRename) : options.settle
    }

    /// One scan of every folder at monotonic time `now`: files that became complete are
    /// sealed, in the order the scan found them.
    package func pass(now: Double, stop: () -> Bool = { false }) throws {
        var settling = 0
        for (index, folder) in folders.enumerated() {
            var ready: [[UInt8]] = []
            var present = Set<[UInt8]>()
            var settled: [[UInt8]: [Int64]] = [:]
            // A network or FUSE file system's writers are elsewhere: its events say little.
            let watch = events.flatMap { events in folder.tree.stableInodes ? events : nil }
            // With removal on, a synced folder that appears below stops it (review W-R3).
            let checkMarkers = options.removeAfter && folder.removalOn && !options.removeInSyncedFolder
            var marker: String?
            let visit: ((Int32, [UInt8]) -> Void)? = watch == nil && !checkMarkers ? nil : { directory, path in
                watch?.watch(directory, folder: index, path: path)
                if checkMarkers && marker == nil { marker = Self.syncMarkerRefusal(in: directory) }
            }
            let entries = folder.tree.scan(directory: visit)
            if let marker {
                folder.removalOn = false
                log(marker + "; files are kept from now on")
            }
            for entry in entries {
                let path = entry.path
                if folder.settled[path] == entry.state {
                    settled[path] = entry.state
                    continue
                }
                let statKey = self.statKey(entry, in: folder)
                if folder.known.contains(statKey) || folder.refused.contains(statKey) {
                    settled[path] = entry.state
                    continue
                }
                present.insert(path)
                if let pending = folder.pending[path], pending.entry.state == entry.state {
                    if now - pending.since >= settle(path, in: folder) { ready.append(path) }
                } else {
                    folder.pending[path] = Pending(entry: entry, since: now)
                }
            }
            folder.pending = folder.pending.filter { present.contains($0.key) }
            folder.renamedInto.formIntersection(folder.pending.keys)
            folder.settled = settled
            for path in ready {
                guard !stop(), let pending = folder.pending[path] else { break }
                do {
                    if try deal(with: pending, in: folder, now: now, stop: stop) != .waiting {
                        folder.pending[path] = nil
                    }
                } catch let error as JournalFailure {
                    throw error.underlying
                } catch {
                    // One file that cannot be read, or a full disk, must not stop every other
                    // file, nor a restarted service at the same file (review W-S3): it waits
                    // for its next quiet period, said once per state.
                    folder.pending[path]?.since = now
                    if folder.pending[path]?.saidFailure != true {
                        folder.pending[path]?.saidFailure = true
                        log("\(String(decoding: path, as: UTF8.self)): not sealed now (\(error)); tried again when it is quiet")
                    }
                }
            }
            settling += folder.pending.count
            if options.removeAfter { try removeTaken(in: folder) }
        }
        tally.settling = settling
        tally.inbox = inbox.usage().count
        tally.scans += 1
    }

    /// Seals one quiet file if it is complete (§W2.4), or says why it waits.
    func deal(with pending: Pending, in folder: Folder, now: Double, stop: () -> Bool) throws -> Outcome {
        let entry = pending.entry
        let path = entry.path
        let shown = String(decoding: path, as: UTF8.self)
        let statKey = self.statKey(entry, in: folder)
        if entry.size > DropFormat.maximumContentSize {
            folder.refused.insert(statKey)
            tally.refused += 1
            log("\(shown): larger than a drop may be (4 GiB); left in place")
            return .refused
        }
        if pending.incomplete && now - pending.since < options.giveUpAfter { return .waiting }
        guard roomInInbox(for: entry.size, now: now) else { return .waiting }
        guard let fd = folder.tree.open(entry) else { return .waiting }
        defer { close(fd) }
        // The file as opened must be the file the scan measured: one that shrank or grew
        // since waits for its next quiet period (review W-S2).
        var opened = stat()
        guard fstat(fd, &opened) == 0, UInt64(opened.st_size) == entry.size, WatchTree.modified(opened) == entry.modified
        else {
            folder.pending[path]?.since = now
            return .waiting
        }
        // A read lease fails with EAGAIN while any process of this machine has the file
        // open for writing: the one signal that tells a paused writer from a finished one.
        var leased = false
        if obscura_system_take_read_lease(fd) == 0 {
            leased = true
        } else if errno == EAGAIN || errno == EWOULDBLOCK {
            folder.pending[path]?.since = now
            return .waiting
        } else if !folder.saidNoLease {
            folder.saidNoLease = true
            log("\(folder.tree.path): this file system gives no read lease; files are taken when quiet and whole")
        }
        defer { if leased { obscura_system_release_lease(fd) } }

        let leaseTaken = leased
        let proceed: @Sendable () throws -> Void = {
            if Self.stopRequested { throw WatchStop() }
            if leaseTaken && obscura_system_read_lease_held(fd) != 1 { throw WatchChanged() }
        }
        // Found cut short in this very state: read again only when it changes, or when
        // the give-up time has come.
        var sealedIncomplete = pending.incomplete
        var hashedFirst: [UInt8]?
        let sealed: DropInbox.SealedFile
        do {
            if !pending.incomplete {
                // Read a piece at a time under the same watch as the seal: a writer that
                // breaks the lease, or a stop, waits for one piece at most (review W-S4).
                let verdict = try WatchStructure.check(size: entry.size) { range in
                    try proceed()
                    return try Self.read(fd, range)
                }
                if verdict == .incomplete {
                    folder.pending[path]?.incomplete = true
                    guard now - pending.since >= options.giveUpAfter else { return .waiting }
                    sealedIncomplete = true
                }
            }

            if entry.size > Self.hashFirstAbove {
                hashedFirst = try Self.hash(fd, size: entry.size, check: proceed)
                let contentKey = key.contentKey(sha256: hashedFirst!)
                if try content.contains(contentKey) {
                    try record(statKey, in: folder, content: nil)
                    tally.known += 1
                    return .known
                }
            }
            sealed = try inbox.seal(
                fd: fd, name: String(decoding: entry.name, as: UTF8.self), size: entry.size, to: options.code,
                blobLimit: options.inboxLimit, proceed: proceed)
        } catch DropError.inboxFull {
            return .waiting
        } catch is WatchStop {
            return .waiting
        } catch is WatchChanged {
            folder.pending[path]?.since = now
            return .waiting
        } catch is StreamError {
            // The file grew or shrank while it was read: wait for it to be quiet again.
            folder.pending[path]?.since = now
            return .waiting
        }
        // A writer that came back during the seal: the blob is not placed (§W2.3, last row).
        var after = stat()
        guard fstat(fd, &after) == 0, sealed.size == entry.size, UInt64(after.st_size) == entry.size,
              WatchTree.modified(after) == entry.modified, WatchTree.changed(after) == entry.changed,
              !leased || obscura_system_read_lease_held(fd) == 1,
              hashedFirst == nil || hashedFirst == sealed.sha256
        else {
            sealed.receiver.abandon()
            folder.pending[path]?.since = now
            return .waiting
        }
        let contentKey = key.contentKey(sha256: sealed.sha256)
        if try content.contains(contentKey) {
            sealed.receiver.abandon()
            try record(statKey, in: folder, content: nil)
            tally.known += 1
            return .known
        }
        let blob = try sealed.receiver.finish()
        try record(statKey, in: folder, content: contentKey)
        // Removal is prepared only for a file sealed whole, under a lease, with no other
        // name (§W2.7 rules 3–5); the record waits for the blob to leave the inbox.
        if options.removeAfter, folder.removalOn, leased, !sealedIncomplete, after.st_nlink == 1, let inboxDirectory,
           blobIsInKeptInbox(blob) || saidMovedVault() {
            var inboxStat = stat()
            guard fstat(inboxDirectory, &inboxStat) == 0 else { throw StorageError.io(inbox.path, errno) }
            let removal = Removal(statKey: statKey, contentKey: contentKey, blob: blob,
                                  inbox: [UInt64(inboxStat.st_dev), UInt64(inboxStat.st_ino)])
            try folder.journal.append(.removal, try removalRecord(removal, header: folder.journal.header))
            try folder.journal.sync()
            folder.removals[statKey] = removal
        }
        tally.sealed += 1
        tally.sealedBytes += entry.size
        if options.verbose { log("\(shown): sealed") }
        if sealedIncomplete {
            log("\(shown): unchanged for \(Self.seconds(options.giveUpAfter)) and not whole; sealed as it is, and kept here")
        }
        return .sealed
    }

    /// Says once that the vault directory was moved or replaced since start, so that new
    /// blobs go into another inbox than the one removals are checked in; false.
    private func saidMovedVault() -> Bool {
        if !saidVaultMoved {
            saidVaultMoved = true
            log("the vault directory is not the one this watcher started with; files are kept until it is restarted")
        }
        return false
    }

    /// Whether a blob for a file of `size` bytes fits the inbox now; says once when it
    /// does not, and again after a day full (§W2.8).
    private func roomInInbox(for size: UInt64, now: Double) -> Bool {
        let (count, bytes) = inbox.usage()
        let blob = DropFormat.blobSize(contentSize: Int64(size))
        if count < min(options.inboxLimit, DropInbox.maximumBlobs), bytes + blob <= DropInbox.maximumBytes {
            inboxFullSince = nil
            return true
        }
        if inboxFullSince == nil {
            inboxFullSince = now
            log("the inbox is full (\(count) blobs, \(Self.megabytes(UInt64(bytes)))); new files wait until a vault takes its drops in")
        }
        return false
    }

    /// Appends a file's records and makes them durable: its stat key to its folder's
    /// journal and, for a file sealed, its content key to the shared one.
    ///
    /// - Throws: ``JournalFailure``: a watcher that cannot record what it sealed stops,
    ///   rather than seal the same files again and again.
    private func record(_ statKey: [UInt8], in folder: Folder, content contentKey: [UInt8]?) throws {
        do {
            try folder.journal.append(.seen, statKey)
            try folder.journal.sync()
            folder.known.insert(statKey)
            if let contentKey { try content.add(contentKey, day: Self.today()) }
        } catch {
            throw JournalFailure(underlying: error)
        }
    }

    /// A journal that could not be written: the one failure that stops the watcher.
    struct JournalFailure: Error {
        let underlying: Error
    }

    func statKey(_ entry: WatchTree.Entry, in folder: Folder) -> [UInt8] {
        statKey(entry, stableInodes: folder.tree.stableInodes)
    }

    func statKey(_ entry: WatchTree.Entry, stableInodes: Bool) -> [UInt8] {
        key.statKey(inode: stableInodes ? entry.inode : nil, size: entry.size, modified: entry.modified, path: entry.path)
    }

    // MARK: Small pieces

    struct WatchStop: Error {}
    struct WatchChanged: Error {}

    /// Makes SIGINT and SIGTERM ask the watcher to stop (``stopRequested``) instead of
    /// ending the process mid-seal, and ignores SIGIO, which a lease break sends: the
    /// break is read between chunks instead (``deal(with:in:now:stop:)``). False when the
    /// signals could not be set.
    package static func takeOverStopSignals() -> Bool {
        obscura_system_watch_signals() == 0
    }

    /// Whether SIGINT or SIGTERM came since ``takeOverStopSignals()``.
    package static var stopRequested: Bool { obscura_system_stop_requested() != 0 }

    /// Seconds on the monotonic clock, which a change of the wall clock neither hastens
    /// nor stalls.
    package static func monotonic() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }

    /// Days since 1970-01-01 UTC.
    static func today() -> UInt16 {
        UInt16(clamping: Int(Date().timeIntervalSince1970 / 86_400))
    }

    static func read(_ fd: Int32, _ range: Range<UInt64>) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Int(range.count))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(range.lowerBound) + off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw StorageError.io("a watched file", errno) }
            if n == 0 { break }
            done += n
        }
        return Array(bytes.prefix(done))
    }

    static func hash(_ fd: Int32, size: UInt64, check: () throws -> Void = {}) throws -> [UInt8] {
        var hasher = SHA256Stream()
        var at: UInt64 = 0
        while at < size {
            try check()
            let piece = try read(fd, at..<min(size, at + (1 << 20)))
            guard !piece.isEmpty else { break }
            piece.withUnsafeBytes { hasher.update($0) }
            at += UInt64(piece.count)
        }
        return hasher.finalize()
    }

    static func seconds(_ value: Double) -> String {
        value >= 3_600 && value.truncatingRemainder(dividingBy: 3_600) == 0 ? "\(Int(value / 3_600)) h"
            : value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }

    static func megabytes(_ bytes: UInt64) -> String {
        String(format: "%.1f MB", Double(bytes) / 1e6)
    }
}
