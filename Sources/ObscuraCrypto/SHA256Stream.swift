import Crypto

/// Incremental SHA-256 over streamed data (content hashes for duplicate detection).
public struct SHA256Stream: Sendable {
    private var hasher = SHA256()

    /// Creates an empty hash state.
    public init() {}

    /// Feeds `bytes`.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) { hasher.update(bufferPointer: bytes) }

    /// The 32-byte digest of everything fed.
    public func finalize() -> [UInt8] { Array(hasher.finalize()) }
}
