import CObscuraSystem
import Foundation
import ObscuraStore

/// A watched folder, walked by directory descriptors only (docs/PHONE.md §W2.2, "How the
/// tree is walked"): the SOURCE is opened once, and everything below it one name at a
/// time with `O_NOFOLLOW`, so that no path is resolved twice and no link is followed. A
/// peer of a synced folder that swaps a directory for a link between two steps gets
/// `ELOOP` or `ENOTDIR`, never a file outside the folder.
package final class WatchTree {
    /// A regular file the scan saw.
    package struct Entry: Equatable, Sendable {
        /// The names of its directories below SOURCE, raw bytes.
        package var directories: [[UInt8]]
        /// Its name, raw bytes.
        package var name: [UInt8]
        package var device: UInt64
        package var inode: UInt64
        package var size: UInt64
        /// Modification time in nanoseconds since 1970.
        package var modified: Int64
        /// Change time in nanoseconds since 1970.
        package var changed: Int64

        /// Its path under SOURCE, raw bytes joined by `/`.
        package var path: [UInt8] { (directories + [name]).joined(separator: [UInt8(ascii: "/")]).map { $0 } }

        /// What must stay the same for the file to be quiet (§W2.3).
        package var state: [Int64] { [Int64(bitPattern: inode), Int64(bitPattern: size), modified, changed] }
    }

    /// The deepest directory walked: a deeper tree is a loop or an attack, not photos.
    static let maximumDepth = 64

    /// The folder's real path.
    package let path: String
    /// Whether inode numbers on its file system are stable (§W2.5's `S`).
    package let stableInodes: Bool
    private let fd: Int32
    /// Directories never walked, wherever they appear: the vault directory, its inbox,
    /// the state directory (device, inode).
    private let excluded: Set<[UInt64]>

    /// Opens the folder at `path` (a link the user named is theirs: it is resolved once).
    package init(path: String, excluding excluded: Set<[UInt64]>) throws {
        guard let real = Self.realPath(path) else { throw StorageError.io(path, errno) }
        self.path = real
        fd = try FileIO.openOrThrow(self.path, O_RDONLY | O_DIRECTORY)
        self.excluded = excluded
        stableInodes = !Self.unstableInodeFileSystems.contains(obscura_system_filesystem_type(fd))
    }

    deinit { close(fd) }

    /// `statfs` magic numbers of file systems whose inode numbers are made up at each
    /// mount, or that another machine writes: vfat/msdos, exFAT, FUSE, NFS, CIFS, SMB2, 9p.
    static let unstableInodeFileSystems: Set<Int64> = [
        0x4d44, 0x2011_BAB0, 0x6573_5546, 0x6969, 0xFF53_4D42, 0xFE53_4D42, 0x0102_1997,
    ]

    /// The real path of `path`, or nil when it cannot be resolved.
    package static func realPath(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    /// The (device, inode) of the directory at `path`, for ``init(path:excluding:)``.
    package static func identity(of path: String) -> [UInt64]? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return [UInt64(st.st_dev), UInt64(st.st_ino)]
    }

    /// Every regular, non-empty file below the folder whose name and directories' names
    /// pass ``WatchNames/isSkipped(_:)``; links, devices and FIFOs are not followed or
    /// listed. A directory that cannot be read is passed over (it is tried again at the
    /// next scan).
    ///
    /// - Parameter directory: called with each directory walked (its descriptor, valid
    ///   during the call, and its path under the folder), for the event source.
    package func scan(directory visit: ((Int32, [UInt8]) -> Void)? = nil) -> [Entry] {
        var entries: [Entry] = []
        guard let directory = Self.open(directory: ".", in: fd) else { return [] }
        walk(directory, below: [], aside: false, into: &entries, visit: visit)
        return entries
    }

    /// The start of the name a file is renamed to just before its removal (§W2.7 step 9):
    /// a dot name, so that no scan seals it.
    package static let asidePrefix = Array(".obscura-removing-".utf8)

    /// The files set aside for removal that a kill left (§W2.7, "At start").
    package func scanAside() -> [Entry] {
        var entries: [Entry] = []
        guard let directory = Self.open(directory: ".", in: fd) else { return [] }
        walk(directory, below: [], aside: true, into: &entries)
        return entries
    }

    private func walk(
        _ directory: Int32, below directories: [[UInt8]], aside: Bool, into entries: inout [Entry],
        visit: ((Int32, [UInt8]) -> Void)? = nil
    ) {
        visit?(directory, directories.joined(separator: [UInt8(ascii: "/")]).map { $0 })
        guard let stream = fdopendir(directory) else {
            close(directory)
            return
        }
        defer { closedir(stream) }
        while let item = readdir(stream) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            let setAside = name.starts(with: Self.asidePrefix)
            guard !WatchNames.isSkipped(name) || (aside && setAside) else { continue }
            var st = stat()
            let found = Self.withCName(name) { fstatat(dirfd(stream), $0, &st, AT_SYMLINK_NOFOLLOW) }
            guard found == 0 else { continue }
            switch st.st_mode & S_IFMT {
            case S_IFDIR:
                guard directories.count < Self.maximumDepth,
                      !excluded.contains([UInt64(st.st_dev), UInt64(st.st_ino)]),
                      let child = Self.open(directory: name, in: dirfd(stream))
                else { continue }
                walk(child, below: directories + [name], aside: aside, into: &entries, visit: visit)
            case S_IFREG where st.st_size > 0 && aside == setAside:
                entries.append(Entry(
                    directories: directories, name: name, device: UInt64(st.st_dev), inode: UInt64(st.st_ino),
                    size: UInt64(st.st_size), modified: Self.modified(st), changed: Self.changed(st)))
            default:
                continue
            }
        }
    }

    /// Opens the file `entry` names for reading, walking down from the folder's
    /// descriptor with `O_NOFOLLOW` at every step; nil unless it is still a regular file
    /// with the device and inode the scan saw. The descriptor is blocking (opened with
    /// `O_NONBLOCK` so that a FIFO swapped in cannot hang the open).
    package func open(_ entry: Entry) -> Int32? {
        guard let parent = openDirectory(of: entry) else { return nil }
        defer { close(parent) }
        return open(entry, in: parent)
    }

    /// A descriptor of the directory that holds `entry`, reached from the folder's own
    /// descriptor one name at a time with `O_NOFOLLOW`; the caller closes it.
    package func openDirectory(of entry: Entry) -> Int32? {
        var parent = Self.open(directory: ".", in: fd)
        for name in entry.directories {
            guard let current = parent else { return nil }
            parent = Self.open(directory: name, in: current)
            close(current)
        }
        return parent
    }

    /// ``open(_:)`` in the directory `parent` already reached.
    package func open(_ entry: Entry, in parent: Int32) -> Int32? {
        let flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
        var file = Self.openEntry(parent, entry.name, flags | Self.noAccessTime)
        if file < 0 && errno == EPERM { file = Self.openEntry(parent, entry.name, flags) }
        guard file >= 0 else { return nil }
        var st = stat()
        guard fstat(file, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG,
              UInt64(st.st_dev) == entry.device, UInt64(st.st_ino) == entry.inode,
              fcntl(file, F_SETFL, fcntl(file, F_GETFL) & ~O_NONBLOCK) == 0
        else {
            close(file)
            return nil
        }
        return file
    }

    /// O_NOATIME (Linux; Glibc's module hides it): reading a photo to seal it should not
    /// say when it was sealed. Needs the caller to own the file (EPERM otherwise).
    #if os(Linux)
    static let noAccessTime: Int32 = 0o1000000
    #else
    static let noAccessTime: Int32 = 0
    #endif

    private static func open(directory name: [UInt8], in parent: Int32) -> Int32? {
        let fd = openEntry(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        return fd >= 0 ? fd : nil
    }

    private static func open(directory name: String, in parent: Int32) -> Int32? {
        open(directory: Array(name.utf8), in: parent)
    }

    private static func openEntry(_ parent: Int32, _ name: [UInt8], _ flags: Int32) -> Int32 {
        withCName(name) { cName in
            while true {
                let fd = openat(parent, cName, flags)
                if fd < 0 && errno == EINTR { continue }
                return fd
            }
        }
    }

    /// Calls `body` with `name` (raw bytes) as a C string.
    package static func withCName<R>(_ name: [UInt8], _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        try (name.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    static func nanoseconds(_ time: timespec) -> Int64 {
        Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    #if canImport(Darwin)
    static func modified(_ st: stat) -> Int64 { nanoseconds(st.st_mtimespec) }
    static func changed(_ st: stat) -> Int64 { nanoseconds(st.st_ctimespec) }
    #else
    static func modified(_ st: stat) -> Int64 { nanoseconds(st.st_mtim) }
    static func changed(_ st: stat) -> Int64 { nanoseconds(st.st_ctim) }
    #endif
}
