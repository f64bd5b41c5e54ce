import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Thin POSIX file operations with the durability steps Foundation does not offer
/// (fsync of files and directories, exclusive creation and renames, explicit timestamps).
package enum FileIO {
    /// Reads the whole file at `path`.
    package static func read(_ path: String) throws -> [UInt8] {
        try read(path, limit: Int.max)
    }

    /// Reads at most `limit` bytes from the start of the file at `path`.
    package static func read(_ path: String, limit: Int) throws -> [UInt8] {
        let fd = try openForReading(path)
        defer { close(fd) }
        return try read(fd: fd, limit: limit, path: path)
    }

    /// Reads at most `limit` bytes from the start of the open file `fd` (with pread, so
    /// the descriptor's position is left where it was).
    package static func read(fd: Int32, limit: Int, path: String) throws -> [UInt8] {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw StorageError.io(path, errno) }
        let count = min(Int(st.st_size), limit)
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(done)) }
            if n < 0 { if errno == EINTR { continue }; throw StorageError.io(path, errno) }
            if n == 0 { break }
            done += n
        }
        return done == count ? out : Array(out[0..<done])
    }

    /// Reads what is available from `fd` into `buffer` (0 at end of file).
    package static func readSome(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws -> Int {
        while true {
            let n = systemRead(fd, buffer.baseAddress!, min(ioPiece, buffer.count))
            if n >= 0 { return n }
            if errno != EINTR { throw StorageError.io(path, errno) }
        }
    }

    /// Creates `path` exclusively (mode 0600), writes `parts` in order, fsyncs and closes.
    /// On failure the partial file is removed.
    package static func createDurably(_ path: String, parts: [[UInt8]]) throws {
        try createDurably(path) { fd in
            for part in parts { try writeAll(fd, part, path: path) }
        }
    }

    /// Makes what was written to `fd` (a file or a directory) durable: 0, or -1 with
    /// `errno`. On Apple systems fsync only reaches the drive's cache, which may reorder and
    /// lose writes at a power cut; F_FULLFSYNC reaches the medium there (docs/FORMAT.md
    /// §8.6). Only a file system that does not offer F_FULLFSYNC (some network ones) gets
    /// plain fsync: any other failure, an I/O error above all, is the flush's, never retried
    /// as if it were done.
    package static func flush(_ fd: Int32) -> Int32 {
        #if canImport(Darwin)
        if fcntl(fd, F_FULLFSYNC) == 0 { return 0 }
        guard errno == ENOTSUP || errno == EINVAL || errno == ENOTTY else { return -1 }
        #endif
        return fsync(fd)
    }

    /// Creates `path` exclusively (mode 0600), lets `write` fill it through the
    /// descriptor, fsyncs and closes. On failure the partial file is removed.
    package static func createDurably(_ path: String, write: (Int32) throws -> Void) throws {
        let fd = try openOrThrow(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        do {
            try write(fd)
            guard flush(fd) == 0 else { throw StorageError.io(path, errno) }
            close(fd)
        } catch {
            close(fd)
            unlink(path)
            throw error
        }
    }

    /// Replaces (or creates) `path` with a file of mode 0600 that `write` fills: written
    /// to a synced temporary beside it, renamed over it, and the directory synced, so a
    /// crash leaves the old file or the new one, whole.
    package static func replaceDurably(_ path: String, write: (Int32) throws -> Void) throws {
        let temporary = path + ".tmp-" + UUID().uuidString
        try createDurably(temporary, write: write)
        do {
            try rename(temporary, path)
            try syncParentDirectory(of: path)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Overwrites the file at `path` in place with `bytes` from its start, then fsyncs.
    package static func overwriteInPlace(_ path: String, with bytes: [UInt8]) throws {
        let fd = try openOrThrow(path, O_WRONLY)
        defer { close(fd) }
        try writeAll(fd, bytes, path: path)
        guard flush(fd) == 0 else { throw StorageError.io(path, errno) }
    }

    /// Atomically replaces `to` with `from`.
    package static func rename(_ from: String, _ to: String) throws {
        guard Glibc_rename(from, to) == 0 else { throw StorageError.io(to, errno) }
    }

    /// Renames `from` to `to` only when nothing is at `to`, in one step: an existing file
    /// is never replaced, and the error is EEXIST. Linux: renameat2 with RENAME_NOREPLACE
    /// (glibc 2.28, kernel 3.15); macOS: renamex_np with RENAME_EXCL. Where the call is
    /// missing or the file system refuses the flag, a hard link and an unlink do the same;
    /// on a file system without hard links either, a check before a plain rename, which
    /// the directory's lock (one process at a time) keeps from racing another process.
    package static func renameExclusive(_ from: String, _ to: String) throws {
        #if canImport(Darwin)
        if renamex_np(from, to, UInt32(RENAME_EXCL)) == 0 { return }
        guard errno == ENOTSUP || errno == EINVAL else { throw StorageError.io(to, errno) }
        #else
        if let renameat2 = linuxRenameat2 {
            if renameat2(AT_FDCWD, from, AT_FDCWD, to, linuxRenameNoReplace) == 0 { return }
            guard errno == EINVAL || errno == ENOSYS else { throw StorageError.io(to, errno) }
        }
        #endif
        if link(from, to) == 0 {
            unlink(from)
            return
        }
        guard errno == EPERM || errno == ENOTSUP || errno == EOPNOTSUPP else { throw StorageError.io(to, errno) }
        var st = stat()
        guard lstat(to, &st) != 0, errno == ENOENT else { throw StorageError.io(to, EEXIST) }
        try FileIO.rename(from, to)
    }

    /// Flushes a directory's entries (renames, unlinks) to disk.
    package static func syncDirectory(_ path: String) throws {
        let fd = try openOrThrow(path, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        guard flush(fd) == 0 else { throw StorageError.io(path, errno) }
    }

    /// Makes the entry of `path` durable: syncs the directory that holds it (the
    /// current directory for a bare name).
    package static func syncParentDirectory(of path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try syncDirectory(directory.isEmpty ? "." : directory)
    }

    /// Sets access and modification times of every file in `paths` to the same instant.
    package static func setTimes(_ paths: [String], to time: timespec) throws {
        let times = [time, time]
        for path in paths {
            guard utimensat(AT_FDCWD, path, times, 0) == 0 else { throw StorageError.io(path, errno) }
        }
    }

    /// The current time as a timespec.
    package static func now() -> timespec {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return ts
    }

    /// The size of the file at `path`.
    package static func size(_ path: String) throws -> Int {
        var st = stat()
        guard stat(path, &st) == 0 else { throw StorageError.io(path, errno) }
        return Int(st.st_size)
    }

    /// Creates a directory with mode 0700 if it does not exist.
    package static func makeDirectory(_ path: String) throws {
        if mkdir(path, 0o700) != 0 && errno != EEXIST { throw StorageError.io(path, errno) }
    }

    /// Opens for reading without touching the access time where the system allows it,
    /// so that reading slots (an unlock sweep reads them all) leaves no trace of order.
    package static func openForReading(_ path: String) throws -> Int32 {
        #if os(Linux)
        // O_NOATIME needs the caller to own the file; fall back to a plain open.
        if let fd = try? openOrThrow(path, O_RDONLY | linuxNoAccessTime) { return fd }
        #endif
        return try openOrThrow(path, O_RDONLY)
    }

    /// O_NOATIME on x86-64 and arm64 Linux (<bits/fcntl-linux.h>); Glibc's module hides
    /// it behind _GNU_SOURCE.
    static let linuxNoAccessTime: Int32 = 0o1000000

    package static func openOrThrow(_ path: String, _ flags: Int32, _ mode: mode_t = 0) throws -> Int32 {
        while true {
            let fd = open(path, flags | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            if errno == EINTR { continue }
            throw StorageError.io(path, errno)
        }
    }

    /// Largest single read or write: the kernel copies a piece this size faster than a
    /// 1 MiB one, which no longer fits the CPU cache (measured: docs/BENCHMARKS.md).
    static let ioPiece = 128 << 10

    package static func writeAll(_ fd: Int32, _ bytes: [UInt8], count: Int? = nil, path: String) throws {
        try bytes.withUnsafeBytes { try writeAll(fd, UnsafeRawBufferPointer(rebasing: $0[0..<(count ?? bytes.count)]), path: path) }
    }

    /// Writes all of `bytes` to `fd`, in pieces of at most ``ioPiece``.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        let total = bytes.count
        guard total > 0 else { return }
        var done = 0
        while done < total {
            let n = write(fd, bytes.baseAddress! + done, min(ioPiece, total - done))
            if n < 0 { if errno == EINTR { continue }; throw StorageError.io(path, errno) }
            done += n
        }
    }
}

#if canImport(Darwin)
private let Glibc_rename = Darwin.rename
private let systemRead = Darwin.read
#else
private let Glibc_rename = Glibc.rename
private let systemRead = Glibc.read
#endif

#if !canImport(Darwin)
/// renameat2(2), looked up at run time: Glibc's module hides its declaration behind
/// _GNU_SOURCE, and a C library without it (glibc before 2.28) falls back to link.
private typealias Renameat2 = @convention(c) (Int32, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UInt32) -> Int32
private let linuxRenameat2: Renameat2? = dlsym(nil, "renameat2").map { unsafeBitCast($0, to: Renameat2.self) }
/// RENAME_NOREPLACE (<linux/fs.h>).
private let linuxRenameNoReplace: UInt32 = 1
#endif
