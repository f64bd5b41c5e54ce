#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// A fixed-size buffer for key material that zeroes its bytes when released.
///
/// Keys, passwords and other secrets live here rather than in `String`, `Array` or
/// `Data`, whose storage may be copied or freed without being cleared. The pages are
/// locked into memory where the system allows it, so that secrets stay out of swap.
public final class SecureBytes: @unchecked Sendable {
    // @unchecked: the buffer is written only through `withUnsafeMutableBytes` and
    // `zeroize`, and callers do not share a SecureBytes across threads while writing.
    private let storage: UnsafeMutableRawBufferPointer

    /// The number of bytes held.
    public var count: Int { storageCount }

    /// Creates a zero-filled buffer of `count` bytes.
    public init(count: Int) {
        precondition(count >= 0, "SecureBytes: negative count")
        // One byte at least, so that the base address is never nil.
        storage = .allocate(byteCount: max(count, 1), alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        storageCount = count
        _ = mlock(storage.baseAddress!, storage.count)
    }

    private let storageCount: Int

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

    /// Whether every byte is zero (used by tests and by lock checks).
    public var isZeroed: Bool {
        storage.allSatisfy { $0 == 0 }
    }

    /// A copy of the bytes in a new buffer.
    public func copy() -> SecureBytes {
        withUnsafeBytes { SecureBytes(copying: $0) }
    }

    deinit {
        zeroize()
        _ = munlock(storage.baseAddress!, storage.count)
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
