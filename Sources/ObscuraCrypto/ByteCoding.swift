/// Big-endian integer coding, the byte order of every Obscura format (docs/FORMAT.md §1).
extension Array where Element == UInt8 {
    // @inlinable: specialised in the modules that decode formats; as a generic call
    // across modules, decoding a container's maps (millions of fields) took seconds.
    /// Appends `value` in big-endian byte order.
    @inlinable
    public mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    /// Reads a big-endian integer at `offset`; the caller has checked the bounds.
    @inlinable
    public func readBigEndian<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        var value: T = 0
        for i in 0..<MemoryLayout<T>.size {
            value = (value << 8) | T(self[offset + i])
        }
        return value
    }
}
