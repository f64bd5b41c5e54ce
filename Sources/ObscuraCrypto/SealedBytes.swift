import Foundation

/// Sealed output owned by value and handed on without copying: a range of a buffer that
/// CryptoKit allocated (ciphertext ‖ tag of a combined box), or bytes a format writes in
/// the clear (headers). Holds no secret, so it needs no zeroing.
public struct SealedBytes: Sendable {
    private let storage: Data
    private let start: Int

    /// The bytes of `storage` from offset `start` on.
    public init(_ storage: Data, from start: Int = 0) {
        precondition(start >= 0 && start <= storage.count, "SealedBytes: start out of range")
        self.storage = storage
        self.start = start
    }

    /// Plain bytes, copied once.
    public init(_ bytes: [UInt8]) { self.init(Data(bytes)) }

    /// The number of bytes.
    public var count: Int { storage.count - start }

    /// Calls `body` with the bytes; the pointer is valid only inside `body`.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[start...])) }
    }
}
