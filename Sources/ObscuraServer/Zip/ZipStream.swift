import Foundation

/// Writes a ZIP archive of stored (uncompressed) files as it streams (APPNOTE.TXT; the
/// constants and their sections are in ``ZipFormat``). It never sees an entry's bytes
/// whole: the caller sends them itself and passes each piece through ``update(_:)`` for
/// its CRC-32 and count, and the writer hands back only the records around them. What it
/// keeps is one small central directory record per entry, so memory grows with the number
/// of files, never with their size.
///
/// Layout, entry by entry: a local header with CRC and sizes zero (general-purpose bit 3),
/// the bytes, a data descriptor with the CRC and sizes; then the central directory, and the
/// zip64 end records when a count, size or offset outgrows its field. Entry sizes are
/// declared up front, so an entry of 4 GiB or more gets its zip64 local field (and 8-byte
/// descriptor sizes) before its first byte, and ``archiveSize(of:timeZone:)`` knows the
/// archive's length before it starts.
///
/// Calls go `begin`, `update`..., `end` for each entry, then `finish` once; any other
/// order throws ``ZipError``, and a thrown error leaves an archive that must be abandoned.
struct ZipStream {
    /// What the central directory needs of a written entry.
    private struct Record {
        var name: [UInt8]
        var modified: DOSDateTime
        /// The modification time for the extended-timestamp field, when it fits its 4 bytes.
        var unixTime: Int32?
        var crc: UInt32 = 0
        var size: UInt64
        /// Where its local header starts.
        var offset: UInt64

        /// Whether the sizes outgrow their 4-byte fields (and so are in the zip64 field).
        var zip64Size: Bool { size >= ZipFormat.max32 }
        /// Whether the local header's offset outgrows its 4-byte field.
        var zip64Offset: Bool { offset >= ZipFormat.max32 }
        var versionNeeded: UInt16 { zip64Size || zip64Offset ? ZipFormat.versionNeededZip64 : ZipFormat.versionNeeded }
    }

    /// The entry being written.
    private struct OpenEntry {
        var record: Record
        var crc = CRC32()
        var written: UInt64 = 0
    }

    /// Every entry's DOS date and time is this zone's wall-clock time (APPNOTE 4.4.6 has
    /// no zone); the extended timestamp carries the exact moment beside it.
    let timeZone: TimeZone
    /// Bytes of the archive produced so far: the records handed back and the bytes passed
    /// through ``update(_:)``.
    private(set) var length: UInt64 = 0
    private var open: OpenEntry?
    private var records: [Record] = []
    private var isFinished = false

    /// A writer at the start of an empty archive.
    init(timeZone: TimeZone = .current) {
        self.timeZone = timeZone
    }

    /// Starts `entry`; returns its local file header (APPNOTE 4.3.7), to send before the
    /// entry's bytes.
    mutating func begin(_ entry: ZipEntry) throws -> [UInt8] {
        guard !isFinished else { throw ZipError.finished }
        guard open == nil else { throw ZipError.entryState }
        let name = Array(entry.name.utf8)
        guard name.count <= ZipFormat.maximumNameLength else { throw ZipError.nameTooLong }
        let record = Record(
            name: name, modified: DOSDateTime(entry.modified, timeZone: timeZone),
            unixTime: Self.unixTime(entry.modified), size: entry.size, offset: length)
        var extra = [UInt8]()
        if record.zip64Size {
            // 4.5.3: a local zip64 field holds both sizes; zero here, as bit 3 wants them
            // (4.4.4), and their real values follow in the 8-byte data descriptor.
            Self.appendExtraHeader(ZipFormat.zip64ExtraID, size: 16, to: &extra)
            extra.appendLittleEndian(UInt64(0))
            extra.appendLittleEndian(UInt64(0))
        }
        Self.appendTimestamp(record, to: &extra)
        // 4.4.4: with bit 3, CRC and sizes are zero; all ones send a reader to zip64.
        let sizeField: UInt32 = record.zip64Size ? UInt32(ZipFormat.max32) : 0
        var header = [UInt8]()
        header.reserveCapacity(ZipFormat.localHeaderSize + name.count + extra.count)
        header.appendLittleEndian(ZipFormat.localHeaderSignature)
        header.appendLittleEndian(record.versionNeeded)
        header.appendLittleEndian(Self.flags)
        header.appendLittleEndian(ZipFormat.methodStored)
        header.appendLittleEndian(record.modified.time)
        header.appendLittleEndian(record.modified.date)
        header.appendLittleEndian(UInt32(0))  // CRC-32
        header.appendLittleEndian(sizeField)  // compressed size
        header.appendLittleEndian(sizeField)  // uncompressed size
        header.appendLittleEndian(UInt16(name.count))
        header.appendLittleEndian(UInt16(extra.count))
        header += name
        header += extra
        open = OpenEntry(record: record)
        length += UInt64(header.count)
        return header
    }

    /// Counts and checksums `bytes` of the open entry, which the caller sends itself.
    mutating func update(_ bytes: UnsafeRawBufferPointer) throws {
        guard var entry = open else { throw ZipError.entryState }
        let written = entry.written + UInt64(bytes.count)
        // Past the declared size the local header (zip64 or not) would be wrong: stop now.
        guard written <= entry.record.size else {
            throw ZipError.sizeMismatch(expected: entry.record.size, written: written)
        }
        entry.crc.update(bytes)
        entry.written = written
        open = entry
        length += UInt64(bytes.count)
    }

    /// Ends the open entry; returns its data descriptor (APPNOTE 4.3.9), to send after its
    /// bytes. Throws when fewer bytes came than the entry declared.
    mutating func end() throws -> [UInt8] {
        guard var entry = open else { throw ZipError.entryState }
        guard entry.written == entry.record.size else {
            throw ZipError.sizeMismatch(expected: entry.record.size, written: entry.written)
        }
        entry.record.crc = entry.crc.value
        var descriptor = [UInt8]()
        descriptor.appendLittleEndian(ZipFormat.dataDescriptorSignature)
        descriptor.appendLittleEndian(entry.record.crc)
        // 4.3.9.2: 8-byte sizes exactly when the local header has a zip64 field.
        if entry.record.zip64Size {
            descriptor.appendLittleEndian(entry.record.size)
            descriptor.appendLittleEndian(entry.record.size)
        } else {
            descriptor.appendLittleEndian(UInt32(entry.record.size))
            descriptor.appendLittleEndian(UInt32(entry.record.size))
        }
        records.append(entry.record)
        open = nil
        length += UInt64(descriptor.count)
        return descriptor
    }

    /// Ends the archive; returns the central directory (APPNOTE 4.3.12), the zip64 end
    /// record and locator when needed (4.3.14, 4.3.15), and the end record (4.3.16).
    mutating func finish() throws -> [UInt8] {
        guard !isFinished else { throw ZipError.finished }
        guard open == nil else { throw ZipError.entryState }
        isFinished = true
        let directoryOffset = length
        var out = [UInt8]()
        for record in records { Self.appendCentralHeader(record, to: &out) }
        let directorySize = UInt64(out.count)
        let count = UInt64(records.count)
        // 4.4.1.4: a field too small holds all ones and the zip64 record the value.
        if count >= ZipFormat.max16 || directorySize >= ZipFormat.max32 || directoryOffset >= ZipFormat.max32 {
            let zip64EndOffset = directoryOffset + directorySize
            out.appendLittleEndian(ZipFormat.zip64EndSignature)
            out.appendLittleEndian(ZipFormat.zip64EndRemainder)
            out.appendLittleEndian(ZipFormat.versionMadeBy)
            out.appendLittleEndian(ZipFormat.versionNeededZip64)
            out.appendLittleEndian(UInt32(0))  // number of this disk
            out.appendLittleEndian(UInt32(0))  // disk where the central directory starts
            out.appendLittleEndian(count)  // entries on this disk
            out.appendLittleEndian(count)  // entries in all
            out.appendLittleEndian(directorySize)
            out.appendLittleEndian(directoryOffset)
            out.appendLittleEndian(ZipFormat.zip64LocatorSignature)
            out.appendLittleEndian(UInt32(0))  // disk with the zip64 end record
            out.appendLittleEndian(zip64EndOffset)
            out.appendLittleEndian(UInt32(1))  // disks in all
        }
        out.appendLittleEndian(ZipFormat.endSignature)
        out.appendLittleEndian(UInt16(0))  // number of this disk
        out.appendLittleEndian(UInt16(0))  // disk where the central directory starts
        out.appendLittleEndian(UInt16(min(count, ZipFormat.max16)))
        out.appendLittleEndian(UInt16(min(count, ZipFormat.max16)))
        out.appendLittleEndian(UInt32(min(directorySize, ZipFormat.max32)))
        out.appendLittleEndian(UInt32(min(directoryOffset, ZipFormat.max32)))
        out.appendLittleEndian(UInt16(0))  // comment length
        length += UInt64(out.count)
        return out
    }

    /// The exact length of the archive of `entries`, before any of it is written: the
    /// same records, built without their bytes (so a `Content-Length` can be sent).
    static func archiveSize(of entries: [ZipEntry], timeZone: TimeZone = .current) throws -> UInt64 {
        var dry = ZipStream(timeZone: timeZone)
        for entry in entries {
            _ = try dry.begin(entry)
            dry.open?.written = entry.size
            dry.length += entry.size
            _ = try dry.end()
        }
        _ = try dry.finish()
        return dry.length
    }

    // MARK: Records

    private static let flags = ZipFormat.flagDataDescriptor | ZipFormat.flagUTF8

    private static func appendCentralHeader(_ record: Record, to out: inout [UInt8]) {
        var extra = [UInt8]()
        // 4.5.3: in the central directory, only the fields whose slot holds all ones, in
        // this order; a stored entry's two sizes are the same.
        var zip64 = [UInt8]()
        if record.zip64Size {
            zip64.appendLittleEndian(record.size)  // uncompressed
            zip64.appendLittleEndian(record.size)  // compressed
        }
        if record.zip64Offset { zip64.appendLittleEndian(record.offset) }
        if !zip64.isEmpty {
            appendExtraHeader(ZipFormat.zip64ExtraID, size: UInt16(zip64.count), to: &extra)
            extra += zip64
        }
        appendTimestamp(record, to: &extra)
        let size = UInt32(min(record.size, ZipFormat.max32))
        out.appendLittleEndian(ZipFormat.centralHeaderSignature)
        out.appendLittleEndian(ZipFormat.versionMadeBy)
        out.appendLittleEndian(record.versionNeeded)
        out.appendLittleEndian(flags)
        out.appendLittleEndian(ZipFormat.methodStored)
        out.appendLittleEndian(record.modified.time)
        out.appendLittleEndian(record.modified.date)
        out.appendLittleEndian(record.crc)
        out.appendLittleEndian(size)  // compressed
        out.appendLittleEndian(size)  // uncompressed
        out.appendLittleEndian(UInt16(record.name.count))
        out.appendLittleEndian(UInt16(extra.count))
        out.appendLittleEndian(UInt16(0))  // comment length
        out.appendLittleEndian(UInt16(0))  // disk where the entry starts
        out.appendLittleEndian(UInt16(0))  // internal attributes
        out.appendLittleEndian(ZipFormat.externalAttributes)
        out.appendLittleEndian(UInt32(min(record.offset, ZipFormat.max32)))
        out += record.name
        out += extra
    }

    private static func appendExtraHeader(_ id: UInt16, size: UInt16, to extra: inout [UInt8]) {
        extra.appendLittleEndian(id)
        extra.appendLittleEndian(size)
    }

    /// The extended timestamp (APPNOTE 4.6.1), the same in local and central headers.
    private static func appendTimestamp(_ record: Record, to extra: inout [UInt8]) {
        guard let time = record.unixTime else { return }
        appendExtraHeader(ZipFormat.timestampExtraID, size: ZipFormat.timestampExtraDataSize, to: &extra)
        extra.append(ZipFormat.timestampFlagModified)
        extra.appendLittleEndian(time)
    }

    /// Whole seconds since 1970, when they fit the timestamp field's signed 4 bytes.
    private static func unixTime(_ moment: Date) -> Int32? {
        let seconds = moment.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, seconds >= Double(Int32.min), seconds <= Double(Int32.max) else { return nil }
        return Int32(seconds)
    }
}
