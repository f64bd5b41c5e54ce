/// The constants of the ZIP format this server writes, each beside the section of PKWARE's
/// APPNOTE.TXT (".ZIP File Format Specification", version 6.3.10) that defines it.
/// Only what a streamed archive of stored files needs: no compression, no encryption, one
/// disk.
enum ZipFormat {
    // MARK: Record signatures

    /// 4.3.7: local file header.
    static let localHeaderSignature: UInt32 = 0x0403_4b50
    /// 4.3.9.3: data descriptor (the signature is optional there; every reader accepts it,
    /// and some need it to find the descriptor at all).
    static let dataDescriptorSignature: UInt32 = 0x0807_4b50
    /// 4.3.12: central directory file header.
    static let centralHeaderSignature: UInt32 = 0x0201_4b50
    /// 4.3.14: zip64 end of central directory record.
    static let zip64EndSignature: UInt32 = 0x0606_4b50
    /// 4.3.15: zip64 end of central directory locator.
    static let zip64LocatorSignature: UInt32 = 0x0706_4b50
    /// 4.3.16: end of central directory record.
    static let endSignature: UInt32 = 0x0605_4b50

    // MARK: Fixed record sizes (bytes before any name or extra field)

    /// 4.3.7: local file header.
    static let localHeaderSize = 30
    /// 4.3.9.1: data descriptor with its signature and 4-byte sizes.
    static let dataDescriptorSize = 16
    /// 4.3.9.1, 4.3.9.2: data descriptor with its signature and 8-byte (zip64) sizes.
    static let zip64DataDescriptorSize = 24
    /// 4.3.12: central directory file header.
    static let centralHeaderSize = 46
    /// 4.3.14: zip64 end of central directory record (no extensible data).
    static let zip64EndSize = 56
    /// 4.3.14.1: its "size of zip64 end of central directory record" field counts neither
    /// the signature nor the field itself.
    static let zip64EndRemainder: UInt64 = 44
    /// 4.3.15: zip64 end of central directory locator.
    static let zip64LocatorSize = 20
    /// 4.3.16: end of central directory record (no comment).
    static let endSize = 22

    // MARK: Field values

    /// 4.4.2.2, 4.4.2.3: "version made by": upper byte 3 (UNIX: the external attributes
    /// carry a mode), lower byte 63 (this specification, 6.3, the first with UTF-8 names).
    static let versionMadeBy: UInt16 = 3 << 8 | 63
    /// 4.4.3.2: "version needed to extract" for a plain stored entry with a data descriptor.
    static let versionNeeded: UInt16 = 20
    /// 4.4.3.2: 4.5, for an entry or archive that uses the zip64 extensions.
    static let versionNeededZip64: UInt16 = 45
    /// 4.4.4, bit 3: CRC-32 and sizes are zero in the local header and follow the data in
    /// a data descriptor, since they are known only once the bytes went out.
    static let flagDataDescriptor: UInt16 = 1 << 3
    /// 4.4.4, bit 11 (and appendix D): the file name is UTF-8.
    static let flagUTF8: UInt16 = 1 << 11
    /// 4.4.5: compression method 0, stored (no compression).
    static let methodStored: UInt16 = 0
    /// 4.4.15: external attributes of a "made by UNIX" entry: the mode in the upper 16 bits,
    /// here a regular file, rw-r--r--, so that unzip does not fall back on its umask.
    static let externalAttributes: UInt32 = 0o100644 << 16

    // MARK: Limits (4.4.1.4: a field too small holds all ones, and zip64 holds the value)

    /// The largest size or offset a 4-byte field may hold; this value itself means "see
    /// the zip64 record", so a real value this large goes to zip64 too.
    static let max32: UInt64 = 0xFFFF_FFFF
    /// The largest entry count a 2-byte field may hold, likewise.
    static let max16: UInt64 = 0xFFFF
    /// 4.4.10, 4.4.11: a name is at most 65,535 bytes.
    static let maximumNameLength = 0xFFFF

    // MARK: Extra fields (4.5)

    /// 4.5.3: zip64 extended information extra field; in a local header it holds both
    /// sizes, in the central directory only the fields whose 4-byte slot holds all ones,
    /// in the order uncompressed size, compressed size, local header offset.
    static let zip64ExtraID: UInt16 = 0x0001
    /// 4.6.1 (Info-ZIP's "extended timestamp", layout in Info-ZIP's extrafld.txt): the
    /// modification time in seconds since 1970, UTC, which the DOS time (local, no zone)
    /// cannot say; flag bit 0 = modification time present.
    static let timestampExtraID: UInt16 = 0x5455
    /// Its data: one flag byte and the 4-byte time, in local and central headers alike.
    static let timestampExtraDataSize: UInt16 = 5
    static let timestampFlagModified: UInt8 = 1
    /// 4.5.1: an extra field's header: 2-byte id, 2-byte data size.
    static let extraHeaderSize = 4
}

/// Little-endian integer coding, ZIP's byte order (APPNOTE 4.4.1.1).
extension Array where Element == UInt8 {
    /// Appends `value` in little-endian byte order.
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
