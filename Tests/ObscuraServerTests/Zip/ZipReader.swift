import Foundation
@testable import ObscuraServer

/// The bytes of an archive under test, read at any offset.
protocol ArchiveBytes {
    var count: UInt64 { get }
    func read(at offset: UInt64, count: Int) throws -> [UInt8]
}

/// An archive held whole.
struct WholeArchive: ArchiveBytes {
    let bytes: [UInt8]
    var count: UInt64 { UInt64(bytes.count) }
    func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard offset + UInt64(count) <= UInt64(bytes.count) else { throw ZipReadError("read past the end at \(offset)") }
        return Array(bytes[Int(offset)..<Int(offset) + count])
    }
}

/// An archive of which only the records were kept, each at its offset: the entries' bytes
/// were counted and dropped. Reading an entry's bytes is an error.
final class SparseArchive: ArchiveBytes {
    private(set) var segments: [(offset: UInt64, bytes: [UInt8])] = []
    private(set) var count: UInt64 = 0

    /// Keeps a record the writer handed out.
    func keep(_ bytes: [UInt8]) {
        segments.append((count, bytes))
        count += UInt64(bytes.count)
    }

    /// Counts bytes that went through the writer without keeping them.
    func skip(_ n: UInt64) { count += n }

    func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        for segment in segments where segment.offset <= offset && offset + UInt64(count) <= segment.offset + UInt64(segment.bytes.count) {
            let start = Int(offset - segment.offset)
            return Array(segment.bytes[start..<start + count])
        }
        throw ZipReadError("no record kept at \(offset)")
    }

    /// Writes the records into a sparse file of the archive's length: the holes stand for
    /// the entries' bytes (all zeros in the tests that use it), and take no disk space.
    func writeSparseFile(_ path: String) throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        for segment in segments {
            try handle.seek(toOffset: segment.offset)
            try handle.write(contentsOf: segment.bytes)
        }
        try handle.truncate(atOffset: count)
    }
}

struct ZipReadError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A second, independent reading of what ``ZipStream`` writes, strict about everything the
/// writer promises (APPNOTE.TXT sections as in ``ZipFormat``): the end records, zip64
/// where a field overflows and nowhere else, every central record against its local header
/// and data descriptor, and entries laid end to end with nothing between them.
struct ZipReader {
    struct Entry {
        var name: String
        var flags: UInt16
        var method: UInt16
        var versionMadeBy: UInt16
        var versionNeeded: UInt16
        var dosTime: UInt16
        var dosDate: UInt16
        var crc: UInt32
        var size: UInt64
        var offset: UInt64
        var externalAttributes: UInt32
        /// From the extended timestamp field, when there is one.
        var unixTime: Int32?
        /// Whether the central record has a zip64 field, and which of its fields it holds.
        var centralZip64Fields: Int
        /// Whether the local header has a zip64 field.
        var localZip64: Bool
        /// Where the entry's bytes start.
        var dataOffset: UInt64
    }

    let entries: [Entry]
    /// Whether the archive ends with the zip64 end record and locator.
    let hasZip64End: Bool
    let source: any ArchiveBytes

    init(_ source: any ArchiveBytes) throws {
        self.source = source
        let endOffset = source.count - UInt64(ZipFormat.endSize)
        var end = Cursor(try source.read(at: endOffset, count: ZipFormat.endSize))
        try end.expect32(ZipFormat.endSignature, "end of central directory")
        try end.expect16(0, "disk number")
        try end.expect16(0, "central directory disk")
        let count16 = end.u16(), total16 = end.u16()
        let size32 = end.u32(), offset32 = end.u32()
        try end.expect16(0, "comment length")
        guard count16 == total16 else { throw ZipReadError("entry counts differ") }

        var count = UInt64(count16), directorySize = UInt64(size32), directoryOffset = UInt64(offset32)
        var directoryEnd = endOffset
        let locatorOffset = endOffset >= UInt64(ZipFormat.zip64LocatorSize) ? endOffset - UInt64(ZipFormat.zip64LocatorSize) : nil
        var signature = Cursor(try locatorOffset.map { try source.read(at: $0, count: 4) } ?? [0, 0, 0, 0])
        if let locatorOffset, signature.u32() == ZipFormat.zip64LocatorSignature {
            hasZip64End = true
            var locator = Cursor(try source.read(at: locatorOffset, count: ZipFormat.zip64LocatorSize))
            locator.skip(4)
            try locator.expect32(0, "zip64 end disk")
            let zip64Offset = locator.u64()
            try locator.expect32(1, "disks")
            guard zip64Offset + UInt64(ZipFormat.zip64EndSize) == locatorOffset else { throw ZipReadError("zip64 end record misplaced") }
            var record = Cursor(try source.read(at: zip64Offset, count: ZipFormat.zip64EndSize))
            try record.expect32(ZipFormat.zip64EndSignature, "zip64 end record")
            try record.expect64(44, "zip64 end record size")
            record.skip(4)  // made by, needed
            try record.expect32(0, "disk")
            try record.expect32(0, "central directory disk")
            let here = record.u64(), all = record.u64()
            guard here == all else { throw ZipReadError("zip64 entry counts differ") }
            let size64 = record.u64(), offset64 = record.u64()
            // 4.4.1.4: a 16/32-bit field holds the value, or all ones when it does not fit.
            guard count16 == UInt16(min(all, 0xFFFF)), size32 == UInt32(min(size64, 0xFFFF_FFFF)),
                  offset32 == UInt32(min(offset64, 0xFFFF_FFFF)) else { throw ZipReadError("end record disagrees with zip64") }
            (count, directorySize, directoryOffset) = (all, size64, offset64)
            directoryEnd = zip64Offset
        } else {
            hasZip64End = false
            guard count16 < 0xFFFF, size32 < 0xFFFF_FFFF, offset32 < 0xFFFF_FFFF else { throw ZipReadError("overflow without zip64") }
        }
        guard directoryOffset + directorySize == directoryEnd else { throw ZipReadError("central directory size wrong") }

        var entries: [Entry] = []
        var directory = Cursor(try source.read(at: directoryOffset, count: Int(directorySize)))
        for _ in 0..<count { entries.append(try Self.centralRecord(&directory)) }
        guard directory.atEnd else { throw ZipReadError("bytes after the central directory") }

        // Local headers, bytes and descriptors, end to end from offset 0.
        var expected: UInt64 = 0
        for index in entries.indices {
            guard entries[index].offset == expected else { throw ZipReadError("gap before entry \(index)") }
            expected = try Self.checkLocal(&entries[index], in: source)
        }
        guard expected == directoryOffset else { throw ZipReadError("gap before the central directory") }
        self.entries = entries
    }

    /// The bytes of `entry` (a whole archive only).
    func contents(_ entry: Entry) throws -> [UInt8] {
        try source.read(at: entry.dataOffset, count: Int(entry.size))
    }

    private static func centralRecord(_ c: inout Cursor) throws -> Entry {
        try c.expect32(ZipFormat.centralHeaderSignature, "central header")
        let madeBy = c.u16(), needed = c.u16(), flags = c.u16(), method = c.u16()
        let time = c.u16(), date = c.u16(), crc = c.u32()
        let compressed32 = c.u32(), size32 = c.u32()
        let nameLength = Int(c.u16()), extraLength = Int(c.u16())
        try c.expect16(0, "comment length")
        try c.expect16(0, "disk")
        try c.expect16(0, "internal attributes")
        let external = c.u32(), offset32 = c.u32()
        guard let name = String(bytes: c.bytes(nameLength), encoding: .utf8) else { throw ZipReadError("name not UTF-8") }
        guard compressed32 == size32 else { throw ZipReadError("stored sizes differ") }
        var size = UInt64(size32), offset = UInt64(offset32), zip64Fields = 0, unixTime: Int32?
        var extra = Cursor(c.bytes(extraLength))
        while !extra.atEnd {
            let id = extra.u16(), length = Int(extra.u16())
            var field = Cursor(extra.bytes(length))
            switch id {
            case ZipFormat.zip64ExtraID:
                // 4.5.3: only the overflowing fields, in order.
                if size32 == 0xFFFF_FFFF {
                    size = field.u64()
                    guard field.u64() == size else { throw ZipReadError("zip64 sizes differ") }
                    zip64Fields += 2
                }
                if offset32 == 0xFFFF_FFFF { offset = field.u64(); zip64Fields += 1 }
                guard field.atEnd else { throw ZipReadError("zip64 field holds more than it should") }
            case ZipFormat.timestampExtraID:
                try field.expect8(1, "timestamp flags")
                unixTime = Int32(bitPattern: field.u32())
            default:
                throw ZipReadError("unexpected extra field \(id)")
            }
        }
        if zip64Fields == 0 && (size32 == 0xFFFF_FFFF || offset32 == 0xFFFF_FFFF) { throw ZipReadError("all ones without zip64") }
        if size >= 0xFFFF_FFFF && size32 != 0xFFFF_FFFF { throw ZipReadError("size not in zip64") }
        return Entry(
            name: name, flags: flags, method: method, versionMadeBy: madeBy, versionNeeded: needed, dosTime: time,
            dosDate: date, crc: crc, size: size, offset: offset, externalAttributes: external, unixTime: unixTime,
            centralZip64Fields: zip64Fields, localZip64: false, dataOffset: 0)
    }

    /// Checks the local header and data descriptor of `entry`; returns where the next
    /// record starts.
    private static func checkLocal(_ entry: inout Entry, in source: any ArchiveBytes) throws -> UInt64 {
        var c = Cursor(try source.read(at: entry.offset, count: ZipFormat.localHeaderSize))
        try c.expect32(ZipFormat.localHeaderSignature, "local header")
        try c.expect16(entry.versionNeeded, "version needed")
        try c.expect16(entry.flags, "flags")
        try c.expect16(entry.method, "method")
        try c.expect16(entry.dosTime, "time")
        try c.expect16(entry.dosDate, "date")
        try c.expect32(0, "local CRC (bit 3)")
        let compressed = c.u32(), size = c.u32()
        let nameLength = Int(c.u16()), extraLength = Int(c.u16())
        let tail = try source.read(at: entry.offset + UInt64(ZipFormat.localHeaderSize), count: nameLength + extraLength)
        guard String(decoding: tail[0..<nameLength], as: UTF8.self) == entry.name else { throw ZipReadError("local name differs") }
        var extra = Cursor(Array(tail[nameLength...]))
        var localTime: Int32?
        while !extra.atEnd {
            let id = extra.u16(), length = Int(extra.u16())
            var field = Cursor(extra.bytes(length))
            switch id {
            case ZipFormat.zip64ExtraID:
                // 4.5.3: both sizes, zero under bit 3.
                guard length == 16, field.u64() == 0, field.u64() == 0 else { throw ZipReadError("local zip64 field") }
                entry.localZip64 = true
            case ZipFormat.timestampExtraID:
                try field.expect8(1, "timestamp flags")
                localTime = Int32(bitPattern: field.u32())
            default:
                throw ZipReadError("unexpected local extra field \(id)")
            }
        }
        guard localTime == entry.unixTime else { throw ZipReadError("timestamps differ") }
        let sizeField: UInt32 = entry.localZip64 ? 0xFFFF_FFFF : 0
        guard compressed == sizeField, size == sizeField else { throw ZipReadError("local sizes not \(sizeField)") }
        guard entry.localZip64 == (entry.size >= 0xFFFF_FFFF) else { throw ZipReadError("local zip64 where it is not needed, or none") }
        entry.dataOffset = entry.offset + UInt64(ZipFormat.localHeaderSize + nameLength + extraLength)
        let descriptorOffset = entry.dataOffset + entry.size
        let descriptorSize = entry.localZip64 ? ZipFormat.zip64DataDescriptorSize : ZipFormat.dataDescriptorSize
        var d = Cursor(try source.read(at: descriptorOffset, count: descriptorSize))
        try d.expect32(ZipFormat.dataDescriptorSignature, "data descriptor")
        try d.expect32(entry.crc, "descriptor CRC")
        if entry.localZip64 {
            try d.expect64(entry.size, "descriptor compressed size")
            try d.expect64(entry.size, "descriptor size")
        } else {
            try d.expect32(UInt32(entry.size), "descriptor compressed size")
            try d.expect32(UInt32(entry.size), "descriptor size")
        }
        return descriptorOffset + UInt64(descriptorSize)
    }
}

/// Little-endian reads over a record.
struct Cursor {
    private let bytes: [UInt8]
    private var at = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var atEnd: Bool { at == bytes.count }
    mutating func skip(_ n: Int) { at += n }
    mutating func bytes(_ n: Int) -> [UInt8] {
        defer { at += n }
        return Array(bytes[at..<at + n])
    }
    private mutating func le<T: FixedWidthInteger>(_: T.Type) -> T {
        var value: T = 0
        for i in 0..<MemoryLayout<T>.size { value |= T(bytes[at + i]) << (8 * i) }
        at += MemoryLayout<T>.size
        return value
    }
    mutating func u16() -> UInt16 { le(UInt16.self) }
    mutating func u32() -> UInt32 { le(UInt32.self) }
    mutating func u64() -> UInt64 { le(UInt64.self) }
    mutating func expect8(_ value: UInt8, _ what: String) throws {
        let got = le(UInt8.self)
        guard got == value else { throw ZipReadError("\(what): \(got), expected \(value)") }
    }
    mutating func expect16(_ value: UInt16, _ what: String) throws {
        let got = u16()
        guard got == value else { throw ZipReadError("\(what): \(got), expected \(value)") }
    }
    mutating func expect32(_ value: UInt32, _ what: String) throws {
        let got = u32()
        guard got == value else { throw ZipReadError("\(what): \(got), expected \(value)") }
    }
    mutating func expect64(_ value: UInt64, _ what: String) throws {
        let got = u64()
        guard got == value else { throw ZipReadError("\(what): \(got), expected \(value)") }
    }
}

/// CRC-32 bit by bit from its definition (APPNOTE 4.4.7), to check zlib's against.
func referenceCRC32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}

/// Runs `python3 -c script` with `arguments`; its status and what it printed.
func runPython(_ script: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    try runTool("/usr/bin/env", ["python3", "-c", script] + arguments)
}
