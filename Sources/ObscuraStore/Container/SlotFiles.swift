import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The file operations a slot container makes, and nothing else (docs/FORMAT.md §8.8).
///
/// Every write of the container goes through this protocol, so tests can record the
/// calls and build every state a crash could leave (Tests/ObscuraKitTests/Container).
/// Names are bare file names inside one directory.
package protocol SlotFiles: AnyObject {
    /// Every file name in the directory, sorted.
    func names() throws -> [String]
    /// The size of `name` in bytes.
    func size(_ name: String) throws -> Int
    /// `count` bytes at `offset` of `name`; fewer only at the end of the file.
    func read(_ name: String, at offset: Int, count: Int) throws -> [UInt8]
    /// Writes `bytes` at `offset` of `name`, in place.
    func write(_ name: String, at offset: Int, _ bytes: [UInt8]) throws
    /// Makes the data of every file in `names` durable (fdatasync), in parallel; the
    /// first failure is thrown after all have finished.
    func sync(_ names: [String]) throws
    /// Cuts `name` to `size` bytes and makes that durable.
    func truncate(_ name: String, to size: Int) throws
    /// Creates `name` (which must not exist) holding `bytes`, durably.
    func create(_ name: String, _ bytes: [UInt8]) throws
    /// Renames `from` to `to`, never replacing a file.
    func rename(_ from: String, to: String) throws
    /// Removes `name`.
    func remove(_ name: String) throws
    /// Makes the directory's renames and removals durable.
    func syncDirectory() throws
    /// The modification time of `name`, nanoseconds since 1970.
    func modificationTime(_ name: String) throws -> UInt64
    /// Sets the access and modification times of `name` to `time` (nanoseconds).
    func setTimes(_ name: String, to time: UInt64) throws
}

/// ``SlotFiles`` over a real directory. Descriptors stay open for the life of the object;
/// reads never update access times where the system allows it (O_NOATIME).
package final class DiskSlotFiles: SlotFiles {
    /// The directory's path.
    let path: String
    private var descriptors: [String: Int32] = [:]
    /// Files open read-only, with why they could not be opened for writing: a read-only
    /// mount or a directory the user may only read still opens and reads, and a write
    /// reports the original reason rather than a bad descriptor.
    private var readOnly: [String: Int32] = [:]
    private let lock = NSLock()

    package init(path: String) { self.path = path }

    deinit {
        for fd in descriptors.values { close(fd) }
    }

    private func file(_ name: String) -> String { path + "/" + name }

    private func descriptor(_ name: String) throws -> Int32 {
        try lock.withLock {
            if let fd = descriptors[name] { return fd }
            var fd = Self.open(file(name), O_RDWR)
            if fd < 0 && [EROFS, EACCES, EPERM].contains(errno) {
                readOnly[name] = errno
                fd = Self.open(file(name), O_RDONLY)
            }
            guard fd >= 0 else { throw StorageError.io(file(name), errno) }
            descriptors[name] = fd
            return fd
        }
    }

    /// Opens with O_NOATIME where the system has it and allows it (the file's owner
    /// only), else without.
    private static func open(_ path: String, _ flags: Int32) -> Int32 {
        #if os(Linux)
        let fd = Glibc.open(path, flags | O_CLOEXEC | FileIO.linuxNoAccessTime)
        if fd >= 0 || errno != EPERM { return fd }
        return Glibc.open(path, flags | O_CLOEXEC)
        #else
        return Darwin.open(path, flags | O_CLOEXEC)
        #endif
    }

    /// The descriptor of `name` for writing; throws the reason it could not be opened
    /// for writing when it is open read-only.
    private func writableDescriptor(_ name: String) throws -> Int32 {
        let fd = try descriptor(name)
        if let code = lock.withLock({ readOnly[name] }) { throw StorageError.io(file(name), code) }
        return fd
    }

    private func forget(_ name: String) {
        lock.withLock {
            if let fd = descriptors.removeValue(forKey: name) { close(fd) }
            readOnly[name] = nil
        }
    }

    package func names() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    package func size(_ name: String) throws -> Int {
        var st = stat()
        guard fstat(try descriptor(name), &st) == 0 else { throw StorageError.io(file(name), errno) }
        return Int(st.st_size)
    }

    package func read(_ name: String, at offset: Int, count: Int) throws -> [UInt8] {
        let fd = try descriptor(name)
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset + done)) }
            if n < 0 { if errno == EINTR { continue }; throw StorageError.io(file(name), errno) }
            if n == 0 { break }
            done += n
        }
        return done == count ? out : Array(out[0..<done])
    }

    package func write(_ name: String, at offset: Int, _ bytes: [UInt8]) throws {
        let fd = try writableDescriptor(name)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, bytes.count - done, off_t(offset + done)) }
            if n < 0 { if errno == EINTR { continue }; throw StorageError.io(file(name), errno) }
            done += n
        }
    }

    package func sync(_ names: [String]) throws {
        let fds = try names.map { try descriptor($0) }
        let paths = names.map(file)
        let results = ConcurrentResults<Void>(count: fds.count)
        // One thread per slot: the file system can overlap the flushes.
        DispatchQueue.concurrentPerform(iterations: fds.count) { i in
            results.set(i, Result {
                guard Self.flush(fds[i]) == 0 else { throw StorageError.io(paths[i], errno) }
            })
        }
        _ = try results.values()
    }

    package func truncate(_ name: String, to size: Int) throws {
        let fd = try writableDescriptor(name)
        guard ftruncate(fd, off_t(size)) == 0, fsync(fd) == 0, Self.flush(fd) == 0 else { throw StorageError.io(file(name), errno) }
    }

    /// Makes a file's data durable. On Apple systems fsync only reaches the drive's
    /// cache, which may reorder writes; the commit's order (blocks, then superblocks)
    /// needs F_FULLFSYNC there (docs/FORMAT.md §8.6).
    private static func flush(_ fd: Int32) -> Int32 {
        #if canImport(Darwin)
        return fcntl(fd, F_FULLFSYNC)
        #else
        return fdatasync(fd)
        #endif
    }

    package func create(_ name: String, _ bytes: [UInt8]) throws {
        try FileIO.createDurably(file(name)) { fd in
            try FileIO.writeAll(fd, bytes, path: file(name))
            // Before anything relies on this copy (a migration then overwrites the only
            // other one), it must be on the medium, not in the drive's cache.
            guard Self.flush(fd) == 0 else { throw StorageError.io(file(name), errno) }
        }
    }

    package func rename(_ from: String, to: String) throws {
        forget(from)
        forget(to)
        try FileIO.renameExclusive(file(from), file(to))
    }

    package func remove(_ name: String) throws {
        forget(name)
        guard unlink(file(name)) == 0 || errno == ENOENT else { throw StorageError.io(file(name), errno) }
    }

    package func syncDirectory() throws {
        try FileIO.syncDirectory(path)
        #if canImport(Darwin)
        let fd = try FileIO.openOrThrow(path, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        guard Self.flush(fd) == 0 else { throw StorageError.io(path, errno) }
        #endif
    }

    package func modificationTime(_ name: String) throws -> UInt64 {
        var st = stat()
        guard fstat(try descriptor(name), &st) == 0 else { throw StorageError.io(file(name), errno) }
        #if canImport(Darwin)
        let time = st.st_mtimespec
        #else
        let time = st.st_mtim
        #endif
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    package func setTimes(_ name: String, to time: UInt64) throws {
        let ts = timespec(tv_sec: Int(time / 1_000_000_000), tv_nsec: Int(time % 1_000_000_000))
        guard futimens(try descriptor(name), [ts, ts]) == 0 else { throw StorageError.io(file(name), errno) }
    }
}
