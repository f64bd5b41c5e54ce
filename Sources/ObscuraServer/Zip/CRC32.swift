import CZlib

/// CRC-32 as ZIP uses it (APPNOTE 4.4.7: polynomial 0xEDB88320, reflected, initial and
/// final value all ones), computed as bytes stream past. zlib's `crc32` does the work.
struct CRC32 {
    /// The checksum of everything given so far.
    private(set) var value: UInt32 = 0

    /// An empty checksum.
    init() {}

    /// Adds `bytes` to the checksum.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var base = bytes.baseAddress else { return }
        var left = bytes.count
        // zlib's length is a C `uInt` (32 bits): feed it in pieces it can take.
        while left > 0 {
            let step = min(left, Int(UInt32.max >> 1))
            value = UInt32(crc32(uLong(value), base.assumingMemoryBound(to: Bytef.self), uInt(step)))
            base += step
            left -= step
        }
    }
}
