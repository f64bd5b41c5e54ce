import CObscuraSystem
import Foundation
import ObscuraCrypto
import ObscuraStore

/// `--remove-after` (docs/PHONE.md §W2.7): a source file is removed only once its blob
/// has left the inbox through an intake that opened it (taken in, kept as a file, a
/// duplicate, or found damaged), its bytes are still the bytes sealed, no local writer
/// holds it, it has no other name, and its folder does not sync deletions back. A blob
/// for a destroyed vault or a mistyped code never leaves, so its source is never removed.
extension Watcher {
    /// A removal waiting for its blob to leave the inbox: the 'R' record, opened.
    struct Removal: Equatable {
        var statKey: [UInt8]
        var contentKey: [UInt8]
        /// The blob's name in the inbox.
        var blob: String
        /// The inbox the blob went into: (device, inode).
        var inbox: [UInt64]
    }

    /// Where a removal stands, for ``removalProbe`` (the crash tests stop it at each).
    package enum RemovalStep: Equatable, Sendable {
        case leased, hashed, setAside, synced, unlinked
    }

    /// The 'R' record's body (§W2.5): nonce ‖ AES-256-GCM(K_rec, AD = the journal's
    /// header, stat key ‖ content key ‖ blob UUID ‖ UInt64BE(inbox device) ‖
    /// UInt64BE(inbox inode)) ‖ tag, 124 bytes: the blob's name is not in the clear.
    func removalRecord(_ removal: Removal, header: [UInt8]) throws -> [UInt8] {
        guard let uuid = UUID(uuidString: String(removal.blob.prefix(36))) else { throw WatchError.damagedState("blob name") }
        let id = withUnsafeBytes(of: uuid.uuid) { Array($0) }
        let numbers = removal.inbox.flatMap { value in (0..<8).map { UInt8(value >> (56 - 8 * $0) & 0xFF) } }
        return try AESGCM.seal(removal.statKey + removal.contentKey + id + numbers, key: key.removal, authenticating: header)
    }

    /// The removal an 'R' record holds, or nil when it does not open under this key.
    func removal(from body: [UInt8], header: [UInt8]) -> Removal? {
        guard body.count == 124, let plain = try? AESGCM.open(body, key: key.removal, authenticating: header),
              plain.count == 96
        else { return nil }
        let id = Array(plain[64..<80])
        let uuid = UUID(uuid: (id[0], id[1], id[2], id[3], id[4], id[5], id[6], id[7],
                               id[8], id[9], id[10], id[11], id[12], id[13], id[14], id[15]))
        let device = plain[80..<88].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let inode = plain[88..<96].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Removal(statKey: Array(plain[0..<32]), contentKey: Array(plain[32..<64]),
                       blob: uuid.uuidString.lowercased() + MediaPool.dataSuffix, inbox: [device, inode])
    }

    /// The pending removals of `records` ('R' without a later 'X' of the same file);
    /// a record that does not open is dropped, with a warning.
    func pendingRemovals(_ records: [WatchJournal.Record], header: [UInt8], folder path: String) -> [[UInt8]: Removal] {
        var removals: [[UInt8]: Removal] = [:]
        var unreadable = 0
        for record in records {
            if record.type == WatchJournal.Kind.removal.rawValue {
                guard let removal = removal(from: record.body, header: header) else {
                    unreadable += 1
                    continue
                }
                removals[removal.statKey] = removal
            } else if record.type == WatchJournal.Kind.removed.rawValue {
                removals[record.body] = nil
            }
        }
        if unreadable > 0 { log("\(path): \(unreadable) removal record\(unreadable == 1 ? "" : "s") did not open; those files stay") }
        return removals
    }

    /// Why `--remove-after` must not run in the folder at `path`, or nil (§W2.7 rule 6):
    /// a Syncthing folder that is not Receive Only, or a Nextcloud desktop client folder,
    /// sends a deletion here back to the phone or the server.
    static func syncedFolderRefusal(_ path: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        var directory = path
        while true {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            if names.contains(".stfolder") {
                let type = syncthingFolderType(directory, environment: environment)
                if type != "receiveonly" {
                    return "this folder is synced by Syncthing and is not Receive Only (or its type cannot be read): "
                        + "deleting here would delete on the phone. Make it Receive Only, or pass --remove-after-in-synced-folder"
                }
                return nil
            }
            if names.contains(where: { ($0.hasPrefix(".sync_") || $0.hasPrefix("._sync_")) && $0.hasSuffix(".db") }) {
                return "this folder is synced by the Nextcloud desktop client, which syncs deletions back to the server "
                    + "and your other devices; pass --remove-after-in-synced-folder only if they do not travel"
            }
            guard directory != "/" else { return nil }
            directory = (directory as NSString).deletingLastPathComponent
            if directory.isEmpty { directory = "/" }
        }
    }

    /// The `type` Syncthing's `config.xml` gives the folder at `root`, or nil when no
    /// configuration this user can read has it.
    static func syncthingFolderType(_ root: String, environment: [String: String]) -> String? {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let state = environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/state"
        let configuration = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        let places = [state + "/syncthing/config.xml", configuration + "/syncthing/config.xml",
                      home + "/Library/Application Support/Syncthing/config.xml"]
        guard let text = places.lazy.compactMap({ try? String(contentsOfFile: $0, encoding: .utf8) }).first else { return nil }
        let real = WatchTree.realPath(root) ?? root
        var rest = Substring(text)
        while let start = rest.range(of: "<folder ") {
            rest = rest[start.upperBound...]
            guard let end = rest.firstIndex(of: ">") else { break }
            let tag = String(rest[..<end])
            guard var folderPath = attribute("path", in: tag) else { continue }
            if folderPath.hasPrefix("~") { folderPath = home + folderPath.dropFirst() }
            if (WatchTree.realPath(folderPath) ?? folderPath) == real { return attribute("type", in: tag) }
        }
        return nil
    }

    /// The value of `name="…"` in an XML start tag, with XML's five entities read.
    static func attribute(_ name: String, in tag: String) -> String? {
        guard let start = tag.range(of: " " + name + "=\"") else { return nil }
        let value = tag[start.upperBound...].prefix { $0 != "\"" }
        return value.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// Whether the inbox directory kept open at start is still the one the removal's
    /// blob went into, a live directory (§W2.7 rule 1).
    func inboxIsTheOne(_ removal: Removal) -> Bool {
        var st = stat()
        guard let inbox = inboxDirectory, fstat(inbox, &st) == 0, st.st_nlink > 0 else { return false }
        return [UInt64(st.st_dev), UInt64(st.st_ino)] == removal.inbox
    }

    /// Whether an intake took the removal's blob in (or found it damaged): the blob is
    /// gone from the inbox and the intake's receipt is there (FORMAT.md §10.6), both seen
    /// through the kept descriptor. A blob gone without a receipt went some other way (by
    /// hand, with the vault directory) and removes nothing (review W-R2).
    func blobHasLeft(_ removal: Removal) -> Bool {
        guard let inbox = inboxDirectory else { return false }
        var st = stat()
        let gone = removal.blob.withCString { fstatat(inbox, $0, &st, AT_SYMLINK_NOFOLLOW) } != 0 && errno == ENOENT
        let receipt = DropInbox.receiptName(for: removal.blob).withCString { fstatat(inbox, $0, &st, AT_SYMLINK_NOFOLLOW) } == 0
            && (st.st_mode & S_IFMT) == S_IFREG
        return gone && receipt
    }

    /// Removes the receipt of a removal done: nothing else reads it.
    func dropReceipt(_ removal: Removal) {
        guard let inbox = inboxDirectory else { return }
        _ = DropInbox.receiptName(for: removal.blob).withCString { unlinkat(inbox, $0, 0) }
    }

    /// Whether the blob `name` is in the inbox kept from start: a blob placed by path after
    /// the vault directory was moved or replaced is not (review W-R1).
    func blobIsInKeptInbox(_ name: String) -> Bool {
        guard let inbox = inboxDirectory else { return false }
        var st = stat()
        return name.withCString { fstatat(inbox, $0, &st, AT_SYMLINK_NOFOLLOW) } == 0
    }

    /// Why removal must stop in the directory open at `directory` (inside a watched
    /// folder), or nil: a Syncthing folder that is not Receive Only or a Nextcloud client
    /// folder below the watched one syncs deletions back as much as one above it (review
    /// W-R3).
    static func syncMarkerRefusal(in directory: Int32, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let place = "/proc/self/fd/\(directory)"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: place) else { return nil }
        guard names.contains(".stfolder") || names.contains(where: { ($0.hasPrefix(".sync_") || $0.hasPrefix("._sync_")) && $0.hasSuffix(".db") })
        else { return nil }
        guard let real = WatchTree.realPath(place) else { return "a synced folder whose path cannot be read" }
        return syncedFolderRefusal(real, environment: environment).map { "\(real): " + $0 }
    }

    /// Removes the sources of `folder` whose blobs have left the inbox (§W2.7, "Remove").
    func removeTaken(in folder: Folder) throws {
        guard folder.removalOn, !folder.removals.isEmpty else { return }
        var stale: [[UInt8]] = []
        var ready: [Removal] = []
        for removal in folder.removals.values {
            guard inboxIsTheOne(removal) else {
                stale.append(removal.statKey)
                continue
            }
            if blobHasLeft(removal) { ready.append(removal) }
        }
        if !stale.isEmpty {
            log("the inbox is not the one these files were sealed into; \(stale.count) file\(stale.count == 1 ? "" : "s") kept")
            try drop(stale, in: folder)
        }
        guard !ready.isEmpty else { return }
        // The files by stat key: only now, and only while a removal is ready, is every
        // file's metadata keyed.
        var entries: [[UInt8]: WatchTree.Entry] = [:]
        for entry in folder.tree.scan() { entries[statKey(entry, in: folder)] = entry }
        var gone: [[UInt8]] = []
        for removal in ready {
            // The file was changed, moved or deleted by someone else: it stays, or is
            // sealed again as a new file.
            guard let entry = entries[removal.statKey] else {
                gone.append(removal.statKey)
                continue
            }
            do {
                switch try remove(entry, for: removal, in: folder) {
                case .removed, .kept: gone.append(removal.statKey)
                case .later: continue
                }
            } catch let error as StorageError {
                // One file that cannot be read must not stop the watcher (review W-R5).
                log("\(String(decoding: entry.path, as: UTF8.self)): not removed now (\(error)); tried again later")
            } catch is WatchStop {
                return
            } catch is WatchChanged {
                continue
            }
        }
        try drop(gone, in: folder)
    }

    /// What became of one removal.
    enum RemovalOutcome { case removed, kept, later }

    /// Steps 6–12 of §W2.7's removal table for one file, on its directory's descriptor.
    func remove(_ entry: WatchTree.Entry, for removal: Removal, in folder: Folder) throws -> RemovalOutcome {
        let shown = String(decoding: entry.path, as: UTF8.self)
        guard let directory = folder.tree.openDirectory(of: entry) else { return .later }
        defer { close(directory) }
        guard let fd = folder.tree.open(entry, in: directory) else { return .later }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .later }
        guard st.st_nlink == 1 else {
            log("\(shown): kept: it has other names")
            return .kept
        }
        guard obscura_system_take_read_lease(fd) == 0 else {
            if errno == EAGAIN || errno == EWOULDBLOCK { return .later }
            log("\(shown): kept: this file system gives no read lease, so a writer may still be at work")
            return .kept
        }
        defer { obscura_system_release_lease(fd) }
        try removalProbe?(.leased)
        // Read under the same watch as a seal: a writer that breaks the lease, or a stop,
        // waits for one piece at most (review W-R6).
        let hash = try Self.hash(fd, size: UInt64(st.st_size)) {
            if Self.stopRequested { throw WatchStop() }
            if obscura_system_read_lease_held(fd) != 1 { throw WatchChanged() }
        }
        guard key.contentKey(sha256: hash) == removal.contentKey else { return .kept }
        try removalProbe?(.hashed)
        let aside = Self.asideName(entry.name)
        let moved = WatchTree.withCName(entry.name) { from in
            WatchTree.withCName(aside) { to in obscura_system_rename_noreplace(directory, from, directory, to) }
        }
        guard moved == 0 else {
            if errno == EINVAL || errno == ENOSYS {
                folder.removalOn = false
                log("\(folder.tree.path): this file system cannot rename without replacing; files are kept")
                return .kept
            }
            return .later
        }
        try removalProbe?(.setAside)
        var asideStat = stat()
        let same = WatchTree.withCName(aside) { fstatat(directory, $0, &asideStat, AT_SYMLINK_NOFOLLOW) } == 0
            && asideStat.st_dev == st.st_dev && asideStat.st_ino == st.st_ino
        guard same, obscura_system_read_lease_held(fd) == 1 else {
            // A writer opened it meanwhile, or the name now holds another file: back it goes.
            Self.restore(aside, to: entry.name, in: directory)
            return .later
        }
        try folder.journal.sync()
        try removalProbe?(.synced)
        guard WatchTree.withCName(aside, { unlinkat(directory, $0, 0) }) == 0 else {
            Self.restore(aside, to: entry.name, in: directory)
            return .later
        }
        try removalProbe?(.unlinked)
        guard fsync(directory) == 0 else { throw StorageError.io(folder.tree.path, errno) }
        try folder.journal.append(.removed, removal.statKey)
        try folder.journal.sync()
        dropReceipt(removal)
        tally.removed += 1
        if options.verbose { log("\(shown): removed; its vault took it in") }
        return .removed
    }

    /// Finishes or undoes removals a kill left half done (§W2.7, "At start"): a file set
    /// aside whose content's blob has left the inbox is removed; any other is renamed back.
    func recoverSetAside(in folder: Folder) throws {
        let aside = folder.tree.scanAside()
        guard !aside.isEmpty else { return }
        var byContent: [[UInt8]: Removal] = [:]
        for removal in folder.removals.values where inboxIsTheOne(removal) && blobHasLeft(removal) {
            byContent[removal.contentKey] = removal
        }
        var pendingContent = Set(folder.removals.values.map(\.contentKey))
        for entry in aside {
            guard let directory = folder.tree.openDirectory(of: entry) else { continue }
            defer { close(directory) }
            let original = Self.originalName(entry.name)
            guard let fd = folder.tree.open(entry, in: directory) else { continue }
            defer { close(fd) }
            var st = stat()
            guard let hash = try? Self.hash(fd, size: entry.size), fstat(fd, &st) == 0 else { continue }
            let contentKey = key.contentKey(sha256: hash)
            // Only a file this watcher set aside is touched: one whose content a pending
            // removal names. Anything else of that name, planted by a peer of a shared
            // folder, is left as it is (review W-R4).
            guard pendingContent.contains(contentKey) else { continue }
            pendingContent.remove(contentKey)
            if let removal = byContent[contentKey], st.st_nlink == 1,
               WatchTree.withCName(entry.name, { unlinkat(directory, $0, 0) }) == 0 {
                guard fsync(directory) == 0 else { throw StorageError.io(folder.tree.path, errno) }
                try folder.journal.append(.removed, removal.statKey)
                try folder.journal.sync()
                dropReceipt(removal)
                folder.removals[removal.statKey] = nil
                tally.removed += 1
            } else {
                Self.restore(entry.name, to: original, in: directory)
            }
        }
    }

    /// Forgets the removal records of `statKeys`: the journal is rewritten without them,
    /// so that the files stay for good.
    func drop(_ statKeys: [[UInt8]], in folder: Folder) throws {
        guard !statKeys.isEmpty else { return }
        let dropped = Set(statKeys)
        for key in statKeys { folder.removals[key] = nil }
        let header = folder.journal.header
        let kept = try folder.journal.allRecords().filter { record in
            guard record.type == WatchJournal.Kind.removal.rawValue, let removal = removal(from: record.body, header: header)
            else { return true }
            return !dropped.contains(removal.statKey)
        }
        try folder.journal.rewrite(keeping: kept)
    }

    /// `.obscura-removing-UUID-NAME`, cut at its end to a name's 255 bytes.
    static func asideName(_ name: [UInt8]) -> [UInt8] {
        Array((WatchTree.asidePrefix + Array(UUID().uuidString.lowercased().utf8) + [UInt8(ascii: "-")] + name).prefix(255))
    }

    /// The name a file set aside had (the part after the prefix, the UUID and its dash);
    /// never a dot name, which the watcher would not see again.
    static func originalName(_ aside: [UInt8]) -> [UInt8] {
        let rest = Array(aside.dropFirst(WatchTree.asidePrefix.count + 37))
        return rest.isEmpty || rest.first == UInt8(ascii: ".") ? Array("recovered".utf8) + rest : rest
    }

    /// Renames `aside` back to `name`, or, where that name is taken now, to
    /// `NAME (kept N).EXT`; never over another file.
    static func restore(_ aside: [UInt8], to name: [UInt8], in directory: Int32) {
        let text = String(decoding: name, as: UTF8.self)
        let stem = (text as NSString).deletingPathExtension, ext = (text as NSString).pathExtension
        for attempt in 0..<100 {
            let target = attempt == 0 ? name : Array("\(stem) (kept \(attempt))\(ext.isEmpty ? "" : "." + ext)".utf8)
            let renamed = WatchTree.withCName(aside) { from in
                WatchTree.withCName(target) { to in obscura_system_rename_noreplace(directory, from, directory, to) }
            }
            if renamed == 0 || errno != EEXIST { return }
        }
    }
}
