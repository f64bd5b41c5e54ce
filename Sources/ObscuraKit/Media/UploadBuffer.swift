import CObscuraSystem
import Foundation
import ObscuraCrypto
import ObscuraStore

/// Holds one upload in memory while it arrives, so that the importer can read it
/// without a plaintext byte reaching persistent storage (docs/SECURITY.md, "Memory").
///
/// Two backings, the first preferred:
/// - **Secret memory** (Linux `memfd_secret`, 5.14 and later where enabled): pages that
///   are locked (never swapped), removed from the kernel's own direct map, and out of
///   reach of other processes, `/proc/PID/mem` and ptrace alike; zeroed when freed.
///   Such a file cannot be read with `read(2)` nor reopened through /proc, so the
///   importer reads it in place, and a video (whose tools run in other processes) moves
///   to the second backing before it is imported. Its size is fixed at creation: growth
///   copies into a larger one. It counts against `RLIMIT_MEMLOCK`: when that is spent,
///   or past ``secretMemoryLimit``, the upload moves to the second backing.
/// - **Shared memory**: a POSIX shared-memory object (tmpfs under /dev/shm) unlinked the
///   moment it is made, so no name leads to it and it vanishes with its descriptor.
///   tmpfs pages can be written to swap under memory pressure (docs/SECURITY.md).
public final class UploadBuffer: @unchecked Sendable {
    // @unchecked: filled by one request, then read by one import, one after the other.

    /// Where the bytes are held.
    public enum Backing: Sendable, Equatable {
        /// `memfd_secret`: locked pages outside the kernel's direct map.
        case secretMemory
        /// An unlinked tmpfs file.
        case sharedMemory
    }

    /// Uploads larger than this go to shared memory: one photo fits (the importer
    /// refuses larger ones, ``Vault/maximumPhotoFileSize``), and a large video, which
    /// must move to shared memory anyway, is not held twice. Where `RLIMIT_MEMLOCK` is
    /// set, at most half of it: secret memory counts against it, and the other half is
    /// left to the key buffers (``SecureBytes`` locks its pages too).
    public static var secretMemoryLimit: Int {
        let memlock = obscura_system_memlock_limit()
        return memlock < 0 ? Vault.maximumPhotoFileSize : min(Vault.maximumPhotoFileSize, Int(memlock / 2))
    }
    /// The first secret region, doubled as the upload grows.
    static let initialSecretCapacity = 1 << 20

    /// Where the bytes are now.
    public private(set) var backing: Backing
    /// Bytes written so far.
    public private(set) var size: Int64 = 0

    private var fd: Int32
    private var mapping: UnsafeMutableRawPointer?
    private var capacity = 0
    private let secretLimit: Int

    /// Makes an empty buffer, in secret memory where the kernel offers it.
    ///
    /// - Parameters:
    ///   - expectedSize: the upload's announced length, if any: secret memory of that
    ///     size is made at once (or none, when it exceeds `secretLimit`).
    ///   - secretLimit: the most bytes held in secret memory (tests lower it).
    public init(expectedSize: Int64? = nil, secretLimit: Int = UploadBuffer.secretMemoryLimit) throws {
        self.secretLimit = secretLimit
        let wanted = max(Int(clamping: expectedSize ?? 0), Self.initialSecretCapacity)
        if wanted <= secretLimit, let (fd, mapping) = Self.secretRegion(wanted) {
            self.fd = fd
            self.mapping = mapping
            capacity = wanted
            backing = .secretMemory
        } else {
            fd = try Self.sharedMemoryFile()
            backing = .sharedMemory
        }
    }

    deinit { release() }

    /// Appends `bytes`.
    public func append(_ bytes: UnsafeRawBufferPointer) throws {
        let end = Int(size) + bytes.count
        if backing == .secretMemory && end > capacity && !growSecret(to: end) {
            try moveToSharedMemory()
        }
        if backing == .secretMemory, let mapping {
            (mapping + Int(size)).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        } else {
            try FileIO.writeAll(fd, bytes, path: "upload buffer")
        }
        size += Int64(bytes.count)
    }

    /// Calls `body` with the bytes when they are in secret memory; nil otherwise. The
    /// pointer must not escape `body`.
    public func withContents<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R? {
        guard backing == .secretMemory, let mapping else { return nil }
        return try body(UnsafeRawBufferPointer(start: mapping, count: Int(size)))
    }

    /// The descriptor of the shared-memory file holding the bytes.
    ///
    /// - Throws: when the bytes are in secret memory (see ``moveToSharedMemory()``).
    public func sharedDescriptor() throws -> Int32 {
        guard backing == .sharedMemory else { throw StorageError.io("upload buffer", EBADF) }
        return fd
    }

    /// Moves the bytes from secret memory into a shared-memory file (a video, or an
    /// upload past the secret limit); the secret pages are freed, which zeroes them.
    public func moveToSharedMemory() throws {
        guard backing == .secretMemory, let mapping else { return }
        let shared = try Self.sharedMemoryFile()
        do {
            try FileIO.writeAll(shared, UnsafeRawBufferPointer(start: mapping, count: Int(size)), path: "upload buffer")
        } catch {
            close(shared)
            throw error
        }
        release()
        fd = shared
        backing = .sharedMemory
    }

    /// Whether this kernel offers `memfd_secret` to this process.
    package static var secretMemoryAvailable: Bool {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard let (fd, mapping) = secretRegion(page) else { return false }
        munmap(mapping, page)
        close(fd)
        return true
    }

    // MARK: Backings

    /// A larger secret region holding what is written so far; false when none can be
    /// had (then the caller moves to shared memory).
    private func growSecret(to needed: Int) -> Bool {
        guard needed <= secretLimit else { return false }
        var larger = max(capacity * 2, Self.initialSecretCapacity)
        while larger < needed { larger *= 2 }
        larger = min(larger, secretLimit)
        guard let (newFd, newMapping) = Self.secretRegion(larger) else { return false }
        if let mapping { newMapping.copyMemory(from: mapping, byteCount: Int(size)) }
        release()
        fd = newFd
        mapping = newMapping
        capacity = larger
        return true
    }

    /// Unmaps and closes the current backing.
    private func release() {
        if let mapping { munmap(mapping, capacity) }
        mapping = nil
        capacity = 0
        close(fd)
    }

    /// A `memfd_secret` file of `size` bytes, mapped; nil where the kernel has none or
    /// refuses (not enabled, `RLIMIT_MEMLOCK` spent).
    private static func secretRegion(_ size: Int) -> (Int32, UnsafeMutableRawPointer)? {
        #if os(Linux)
        let fd = obscura_system_memfd_secret(UInt32(O_CLOEXEC))
        guard fd >= 0 else { return nil }
        guard ftruncate(fd, off_t(size)) == 0,
              let mapping = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), mapping != MAP_FAILED
        else {
            close(fd)
            return nil
        }
        return (fd, mapping)
        #else
        return nil
        #endif
    }

    /// An unlinked shared-memory file.
    private static func sharedMemoryFile() throws -> Int32 {
        #if os(Linux)
        let name = "/obscura-upload-" + UUID().uuidString
        let fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StorageError.io("upload buffer", errno) }
        shm_unlink(name)
        return fd
        #else
        // No anonymous tmpfs file on this platform: uploads are refused rather than
        // written to disk in the clear.
        throw StorageError.io("upload buffer", ENOTSUP)
        #endif
    }
}
