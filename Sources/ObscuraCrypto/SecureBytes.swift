#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// A fixed-size buffer for key material that zeroes its bytes when released.
///
/// Keys, passwords and other secrets live here rather than in `String`, `Array` or
/// `Data`, whose storage may be copied or freed without being cleared. Each buffer has
/// whole pages of its own, locked into memory where the system allows it (so that
/// secrets stay out of swap) and, on Linux, marked `MADV_DONTDUMP` (so that no core
/// dump holds them, whatever the process's settings).
public final class SecureBytes: @unchecked Sendable {
    // @unchecked: the buffer is written only through `withUnsafeMutableBytes` and
    // `zeroize`, and callers do not share a SecureBytes across threads while writing.
    private let storage: UnsafeMutableRawBufferPointer

    /// The number of bytes held.
    public var count: Int { storageCount }

    /// Creates a zero-filled buffer of `count` bytes.
    public init(count: Int) {
        precondition(count >= 0, "SecureBytes: negative count")
        // Whole pages: madvise and mlock act on pages, and a page shared with other
        // data would carry their flags too. One page at least, so the base is never nil.
        let page = Self.pageSize
        storage = .allocate(byteCount: (max(count, 1) + page - 1) / page * page, alignment: page)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        storageCount = count
        #if os(Linux)
        _ = madvise(storage.baseAddress!, storage.count, MADV_DONTDUMP)
        #endif
        _ = mlock(storage.baseAddress!, storage.count)
    }

    private let storageCount: Int

    /// The system's page size.
    static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// The address of the first byte (tests look its pages up in /proc/self/smaps).
    package var baseAddress: UInt { UInt(bitPattern: storage.baseAddress!) }

    /// Creates a buffer holding a copy of `bytes`.
    public convenience init<C: Collection>(copying bytes: C) where C.Element == UInt8 {
        self.init(count: bytes.count)
        withUnsafeMutableBytes { dst in
            _ = dst.initializeMemory(as: UInt8.self, from: bytes)
        }
    }

    /// Creates a buffer of `count` bytes from `random`.
    public convenience init(randomCount count: Int, using random: RandomSource = SystemRandom()) {
        self.init(count: count)
        withUnsafeMutableBytes { random.fill($0) }
    }

    /// Calls `body` with the secret bytes. The pointer must not escape `body`.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<storageCount]))
    }

    /// Calls `body` with the secret bytes for writing. The pointer must not escape `body`.
    public func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeMutableRawBufferPointer(rebasing: storage[0..<storageCount]))
    }

    /// Overwrites every byte with zero in a way the optimiser cannot remove.
    public func zeroize() {
        secureZero(storage.baseAddress!, storage.count)
    }

    /// Whether every byte is zero: tests check that locking zeroed a key.
    package var isZeroed: Bool {
        storage.allSatisfy { $0 == 0 }
    }

    /// A copy of the bytes in a new buffer.
    public func copy() -> SecureBytes {
        withUnsafeBytes { SecureBytes(copying: $0) }
    }

    deinit {
        zeroize()
        _ = munlock(storage.baseAddress!, storage.count)
        #if os(Linux)
        // The pages go back to the allocator: dumpable again, like any other memory.
        _ = madvise(storage.baseAddress!, storage.count, MADV_DODUMP)
        #endif
        storage.deallocate()
    }
}

/// Zeroes `count` bytes at `pointer` with a call the compiler must keep.
public func secureZero(_ pointer: UnsafeMutableRawPointer, _ count: Int) {
    guard count > 0 else { return }
    #if canImport(Darwin)
    _ = memset_s(pointer, count, 0, count)
    #else
    explicit_bzero(pointer, count)
    #endif
}

extension SecureBytes: Equatable {
    /// Compares contents in constant time for equal lengths.
    public static func == (lhs: SecureBytes, rhs: SecureBytes) -> Bool {
        lhs.withUnsafeBytes { a in rhs.withUnsafeBytes { b in ConstantTime.equals(a, b) } }
    }
}
