import Foundation
import ObscuraCrypto
import ObscuraStore

/// The shared drop inbox, `<vault>/inbox/` (docs/FORMAT.md §10.5): sealed drop blobs
/// named like pool originals, `{uuid}.data.enc`, one inbox for every vault of the
/// directory, so that no file says which vault a drop is for.
///
/// Dropping needs no key and no lock: a blob is written to a temporary, fsynced and
/// renamed into place, so the vault's intake (which holds the directory) sees whole
/// blobs or none, and a blob that arrives during an intake waits for the next one.
public struct DropInbox: Sendable {
    /// The inbox directory.
    public let path: String
    /// The most blobs ``add(blob:)`` leaves in the inbox (docs/FORMAT.md §10.5): it takes
    /// blobs from whoever holds a code, so what it can be made to store, and what every
    /// unlock then tries, is bounded.
    public static let maximumBlobs = 1_000
    /// The most bytes of blobs ``add(blob:)`` leaves in the inbox (§10.5): 8 GiB.
    public static let maximumBytes: Int64 = 8 << 30

    /// The inbox of the vault directory at `vaultPath`; nothing is created yet.
    public init(vaultPath: String) {
        path = vaultPath + "/" + DropFormat.inboxDirectory
    }

    /// Seals the file at `file` as a drop to `code` and puts it in the inbox; returns the
    /// blob's name. The file is read once, streamed, and never held whole in memory.
    ///
    /// - Parameters:
    ///   - name: the name the vault shows (the file's last path component by default).
    @discardableResult
    public func drop(
        file: String, name: String? = nil, kind: DropFormat.Kind = .file, to code: DropCode,
        using random: RandomSource = SystemRandom()
    ) throws -> String {
        let fd = try FileIO.openForReading(file)
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw StorageError.io(file, errno) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw StorageError.io(file, EINVAL) }
        let shown = Vault.uploadName(name ?? (file as NSString).lastPathComponent)
        return try write { sink in
            try DropBlob.seal(to: code, kind: kind, name: shown, contentSize: UInt64(st.st_size),
                              source: ChunkedFileWriter.source(fd: fd, path: file), using: random, sink: sink)
        }
    }

    /// Seals `content` as a drop to `code` and puts it in the inbox; returns the blob's name.
    @discardableResult
    public func drop(
        bytes content: [UInt8], name: String, kind: DropFormat.Kind = .file, to code: DropCode,
        using random: RandomSource = SystemRandom()
    ) throws -> String {
        try content.withUnsafeBytes { bytes in
            try write { sink in
                try DropBlob.seal(to: code, kind: kind, name: Vault.uploadName(name), contentSize: UInt64(bytes.count),
                                  source: ChunkedFileWriter.source(bytes: bytes), using: random, sink: sink)
            }
        }
    }

    /// Puts a blob sealed elsewhere (the drop page) in the inbox, after checking that it
    /// is well formed (§10.3): the server cannot open it, but it refuses anything else.
    ///
    /// - Throws: ``DropError/malformedBlob(_:)`` for anything but a drop blob;
    ///   ``DropError/inboxFull`` when the blob would take the inbox past
    ///   ``maximumBlobs`` or ``maximumBytes``.
    @discardableResult
    public func add(blob: [UInt8]) throws -> String {
        try blob.withUnsafeBytes { try add(blob: $0) }
    }

    /// ``add(blob:)`` for bytes held elsewhere (a request body), without a copy.
    @discardableResult
    public func add(blob: UnsafeRawBufferPointer) throws -> String {
        guard blob.count >= ChunkedFormatV2.headerSize else { throw DropError.malformedBlob("shorter than a header") }
        let receiver = try receive(header: Array(blob.prefix(ChunkedFormatV2.headerSize)), length: UInt64(blob.count))
        try receiver.append(blob)
        return try receiver.finish()
    }

    /// Held while the bound is checked and a blob's room taken, so that two drops received
    /// at once cannot both pass a check that only one of them fits.
    static let addLock = NSLock()

    /// How many blobs the inbox holds and their bytes, temporaries included (a drop being
    /// written counts against the bound too); receipts, which are empty, are not counted.
    func usage() -> (count: Int, bytes: Int64) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return (0, 0) }
        var count = 0
        var bytes: Int64 = 0
        for name in names where !name.hasPrefix(Self.receiptPrefix) {
            var st = stat()
            guard lstat(path + "/" + name, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
            count += 1
            bytes += Int64(st.st_size)
        }
        return (count, bytes)
    }

    /// The names of the blobs in the inbox, sorted; none when there is no inbox.
    public func blobNames() -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return [] }
        return names.filter { name in
            guard name.hasSuffix(MediaPool.dataSuffix) && MediaPool.isPoolFileName(name) else { return false }
            // Regular files only, not followed through a link: opening a FIFO planted in
            // the shared inbox would block every unlock of every vault (a review's finding).
            var st = stat()
            return lstat(path + "/" + name, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
        }.sorted()
    }

    /// Removes temporaries older than a day (an interrupted drop's: a younger one may be a
    /// drop being written right now by another process), and receipts older than
    /// ``receiptKept`` (a watcher that removes sources has had that long to read them).
    func sweepTemporaries(now: Date = Date()) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
        for name in names {
            let age: TimeInterval
            if name.hasPrefix(MediaPool.temporaryPrefix) { age = 86_400 } else if name.hasPrefix(Self.receiptPrefix) { age = Self.receiptKept } else { continue }
            let file = path + "/" + name
            if let modified = (try? FileManager.default.attributesOfItem(atPath: file))?[.modificationDate] as? Date,
               now.timeIntervalSince(modified) > age {
                unlink(file)
            }
        }
    }

    /// FORMAT.md §10.6: an intake that takes a blob in (imported, kept as a file, a
    /// duplicate) or finds it damaged leaves an empty receipt, `.taken-{uuid}`, before it
    /// removes the blob, so that `obscura watch --remove-after` removes a source only on an
    /// intake's word, never because its blob went some other way (deleted by hand, the
    /// vault directory removed or replaced).
    package static let receiptPrefix = ".taken-"
    /// FORMAT.md §10.6: how long a receipt stays: 7 days.
    static let receiptKept: TimeInterval = 7 * 86_400

    /// The receipt's name for the blob `name` (`{uuid}.data.enc`).
    package static func receiptName(for name: String) -> String {
        receiptPrefix + String(name.prefix(36))
    }

    /// Leaves the receipt for the blob `name`; synced with the inbox by the caller.
    func leaveReceipt(for name: String) {
        let fd = open(path + "/" + Self.receiptName(for: name), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 { close(fd) }
    }

    /// Makes the inbox directory if it is missing. A new directory's entry is synced in
    /// the vault directory: without that, a power cut could lose the directory, and with
    /// it the first drop, whose own rename and sync were in the directory.
    func makeDirectory() throws {
        if mkdir(path, 0o700) == 0 {
            try FileIO.syncParentDirectory(of: path)
        } else if errno != EEXIST {
            throw StorageError.io(path, errno)
        }
    }

    /// Writes a blob through a fsynced temporary renamed to a new `{uuid}.data.enc`.
    private func write(_ fill: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws -> String {
        try makeDirectory()
        let temporary = path + "/" + MediaPool.temporaryPrefix + UUID().uuidString.lowercased()
        try FileIO.createDurably(temporary) { fd in
            try fill { bytes in try FileIO.writeAll(fd, bytes, path: temporary) }
        }
        return try place(temporary)
    }

    /// Renames the synced `temporary` to a new `{uuid}.data.enc` and syncs the inbox;
    /// removes the temporary if that fails.
    func place(_ temporary: String) throws -> String {
        let name = UUID().uuidString.lowercased() + MediaPool.dataSuffix
        do {
            try FileIO.renameExclusive(temporary, path + "/" + name)
        } catch {
            unlink(temporary)
            throw error
        }
        try FileIO.syncDirectory(path)
        return name
    }
}
