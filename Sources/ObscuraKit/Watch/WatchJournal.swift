import Foundation
import ObscuraCrypto
import ObscuraStore

/// An append-only journal of a watcher's keyed records (docs/PHONE.md §W2.5): per SOURCE
/// the stat keys it dealt with, and, shared by every SOURCE of a state directory, the
/// content keys it sealed.
///
/// Opened with `O_APPEND`, so that appends of two watchers sharing the content journal
/// never overwrite each other; each record is one `write(2)`. A torn last record (a
/// crash mid-append) is cut when the journal is opened; a record of a type this version
/// does not know is kept and skipped by its length.
package final class WatchJournal {
    /// The journal's first bytes: "OBSW" ‖ UInt16BE(version) ‖ UInt16BE(0) ‖ 8 random bytes.
    static let magic = Array("OBSW".utf8)
    /// The journal format's version (§W2.5).
    static let version: UInt16 = 1
    /// The header's size.
    static let headerSize = 16

    /// A record's type byte (§W2.5).
    package enum Kind: UInt8, Sendable {
        /// A stat key present at the first start, not sealed (§W2.6).
        case baseline = 0x42
        /// A stat key seen and dealt with: sealed, or its content was known.
        case seen = 0x53
        /// Content journal only: a content key sealed ‖ masked day.
        case content = 0x43
        /// A removal pending (`--remove-after`): the file's keys and its blob, sealed
        /// under `K_rec` (§W2.5).
        case removal = 0x52
        /// A removal done: the stat key of a source that was removed.
        case removed = 0x58
    }

    /// One record as read.
    package struct Record: Equatable, Sendable {
        /// The type byte (possibly one this version does not know).
        package var type: UInt8
        /// The record's body.
        package var body: [UInt8]
    }

    /// The journal's path.
    package let path: String
    private var fd: Int32
    /// The journal's header, as read or written.
    private(set) var header: [UInt8] = []
    /// How far this journal has been read: appends by others start here.
    private var readOffset: UInt64 = 0
    /// The inode the descriptor is open on, to notice a compaction by another watcher.
    private var inode: UInt64 = 0

    /// Opens the journal at `path`, making it if missing (``create(_:records:random:)``
    /// with no records), and returns it with the records it holds.
    package init(path: String, random: RandomSource = SystemRandom()) throws {
        self.path = path
        fd = -1
        if access(path, F_OK) != 0 { try Self.create(path, records: [], random: random) }
        try open()
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Makes the journal at `path` whole or not at all: its header and `records` are
    /// written to a synced temporary (0600) that is then `link()`ed to `path`, and the
    /// directory synced. A crash leaves no journal, or this one; never a journal with a
    /// torn header, nor a first start's baseline half written (which the next start would
    /// take for a journal, and seal what the baseline was to leave). Where another
    /// process made the journal first (two first starts sharing the content journal),
    /// theirs stays and this one is dropped.
    package static func create(_ path: String, records: [Record], random: RandomSource = SystemRandom()) throws {
        var bytes = magic + [UInt8(version >> 8), UInt8(version & 0xFF), 0, 0] + random.bytes(8)
        for record in records { bytes += [record.type, UInt8(record.body.count)] + record.body }
        let temporary = path + ".new-" + UUID().uuidString.lowercased()
        try FileIO.createDurably(temporary) { fd in try FileIO.writeAll(fd, bytes, path: temporary) }
        defer { unlink(temporary) }
        guard link(temporary, path) == 0 || errno == EEXIST else { throw StorageError.io(path, errno) }
        try FileIO.syncParentDirectory(of: path)
    }

    private func open() throws {
        if fd >= 0 { close(fd) }
        fd = try FileIO.openOrThrow(path, O_RDWR | O_APPEND)
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw StorageError.io(path, errno) }
        inode = UInt64(st.st_ino)
        header = try pread(0..<UInt64(Self.headerSize))
        guard header.count == Self.headerSize, header.starts(with: Self.magic) else {
            throw WatchError.damagedState("\(path) is not a watch journal")
        }
        guard UInt16(header[4]) << 8 | UInt16(header[5]) == Self.version else {
            throw WatchError.damagedState("\(path) is a watch journal of a newer version")
        }
        readOffset = UInt64(Self.headerSize)
    }

    /// The records appended since the last call (all of them at the first), by this
    /// watcher or another; `reopened` is true when the file was replaced by a compaction
    /// since, and the records are then all of the new file's. A torn record at the end
    /// is cut when `repair` is true (only the journal's one writer, or under its
    /// exclusive lock, may cut: another watcher's append may be in flight).
    package func newRecords(repair: Bool = false) throws -> (records: [Record], reopened: Bool) {
        var reopened = false
        var st = stat()
        if stat(path, &st) == 0, UInt64(st.st_ino) != inode {
            try open()
            reopened = true
        }
        guard fstat(fd, &st) == 0 else { throw StorageError.io(path, errno) }
        let end = UInt64(st.st_size)
        guard end > readOffset else { return ([], reopened) }
        let bytes = try pread(readOffset..<end)
        let (records, at) = Self.parse(bytes)
        if at < bytes.count && repair {
            guard ftruncate(fd, off_t(readOffset) + off_t(at)) == 0 else { throw StorageError.io(path, errno) }
        }
        readOffset += UInt64(at)
        return (records, reopened)
    }

    /// Every record of the journal, read from its header on (a rewrite's input).
    package func allRecords() throws -> [Record] {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw StorageError.io(path, errno) }
        return Self.parse(try pread(UInt64(Self.headerSize)..<UInt64(st.st_size))).records
    }

    /// The whole records at the start of `bytes`, and how many bytes they take: a record
    /// cut short at the end is left out.
    static func parse(_ bytes: [UInt8]) -> (records: [Record], consumed: Int) {
        var records: [Record] = []
        var at = 0
        while at + 2 <= bytes.count {
            let length = Int(bytes[at + 1])
            guard at + 2 + length <= bytes.count else { break }
            records.append(Record(type: bytes[at], body: Array(bytes[at + 2..<at + 2 + length])))
            at += 2 + length
        }
        return (records, at)
    }

    /// Appends one record (one `write(2)`); synced by ``sync()``.
    package func append(_ kind: Kind, _ body: [UInt8]) throws {
        precondition(body.count <= 255, "a record's body fits its length byte")
        let record = [kind.rawValue, UInt8(body.count)] + body
        var done = 0
        while done < record.count {
            let n = record.withUnsafeBytes { write(fd, $0.baseAddress! + done, record.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw StorageError.io(path, errno) }
            done += n
        }
    }

    /// Makes the records appended so far durable.
    package func sync() throws {
        guard FileIO.flush(fd) == 0 else { throw StorageError.io(path, errno) }
    }

    /// Replaces the journal by one with the same header and `records` only: a synced
    /// temporary renamed over it, the directory synced. The caller holds the journal's
    /// exclusive lock.
    package func rewrite(keeping records: [Record]) throws {
        var bytes = header
        for record in records { bytes += [record.type, UInt8(record.body.count)] + record.body }
        try FileIO.replaceDurably(path) { fd in try FileIO.writeAll(fd, bytes, path: path) }
        try open()
        readOffset = UInt64(bytes.count)
    }

    private func pread(_ range: Range<UInt64>) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Int(range.count))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes {
                systemPread(fd, $0.baseAddress! + done, $0.count - done, off_t(range.lowerBound) + off_t(done))
            }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw StorageError.io(path, errno) }
            if n == 0 { break }
            done += n
        }
        return Array(bytes.prefix(done))
    }
}

#if canImport(Darwin)
private let systemPread = Darwin.pread
#else
private let systemPread = Glibc.pread
#endif
