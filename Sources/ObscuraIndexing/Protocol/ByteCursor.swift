import ObscuraCrypto

/// Reads a payload front to back; every read checks the bounds and throws
/// ``IndexerError/violation(_:)`` past the end, so a short payload never traps.
struct ByteCursor {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Bytes not read yet.
    var remaining: Int { bytes.count - offset }

    mutating func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { throw IndexerError.violation("a payload cut short") }
        defer { offset += size }
        return bytes.readBigEndian(T.self, at: offset)
    }

    mutating func float() throws -> Float { Float(bitPattern: try integer(UInt32.self)) }

    mutating func take(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, remaining >= count else { throw IndexerError.violation("a payload cut short") }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func rest() -> ArraySlice<UInt8> {
        defer { offset = bytes.count }
        return bytes[offset...]
    }

    /// Throws unless every byte was read: a length inconsistent with its fields.
    func end() throws {
        guard remaining == 0 else { throw IndexerError.violation("\(remaining) bytes past a payload's fields") }
    }
}
