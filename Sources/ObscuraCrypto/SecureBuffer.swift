/// A growable buffer for a secret whose length is not known before it is read, such as a
/// password typed at a terminal or piped to standard input.
///
/// Its storage is a ``SecureBytes``, locked into memory and zeroed when released. When
/// it must grow, the bytes move into a larger one and the old one is zeroed at once,
/// before anything else can reuse its memory: an `Array` that grows by `append` frees
/// each old storage with the secret still in it.
public final class SecureBuffer {
    private var storage: SecureBytes
    /// The number of bytes appended so far.
    public private(set) var count = 0

    /// An empty buffer with room for `capacity` bytes before it first grows.
    public init(capacity: Int = 1024) {
        storage = SecureBytes(count: max(capacity, 1))
    }

    /// The storage in use now, so tests can see that an outgrown one was zeroed.
    package var currentStorage: SecureBytes { storage }

    /// Appends one byte, doubling the storage when it is full.
    public func append(_ byte: UInt8) {
        if count == storage.count {
            let larger = SecureBytes(count: storage.count * 2)
            larger.withUnsafeMutableBytes { dst in
                storage.withUnsafeBytes { dst.copyMemory(from: $0) }
            }
            storage.zeroize()
            storage = larger
        }
        storage.withUnsafeMutableBytes { $0[count] = byte }
        count += 1
    }

    /// The last byte appended, if any.
    public var last: UInt8? {
        count == 0 ? nil : storage.withUnsafeBytes { $0[count - 1] }
    }

    /// Removes the last byte (zeroing it).
    public func removeLast() {
        precondition(count > 0, "SecureBuffer: removeLast on an empty buffer")
        count -= 1
        storage.withUnsafeMutableBytes { $0[count] = 0 }
    }

    /// The bytes appended so far, in a ``SecureBytes`` of exactly that length; the buffer
    /// is zeroed and emptied.
    public func take() -> SecureBytes {
        let out = storage.withUnsafeBytes { SecureBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        storage.zeroize()
        count = 0
        return out
    }
}
