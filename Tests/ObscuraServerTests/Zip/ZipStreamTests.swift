import Foundation
import ObscuraCrypto
import Testing
@testable import ObscuraServer

/// What ``ZipStream`` writes, read back three ways: by this suite's own strict reader, by
/// Python's `zipfile`, and by Info-ZIP's `unzip -t`.
@Suite struct ZipStreamTests {
    static let utc = TimeZone(identifier: "UTC")!
    /// 2023-07-14 18:32:05 UTC.
    static let moment = Date(timeIntervalSince1970: 1_689_359_525)

    struct File {
        var name: String
        var bytes: [UInt8]
        var modified = ZipStreamTests.moment
    }

    /// Writes `files` as the route does, each in uneven pieces; checks the length the
    /// writer counted and the one it predicted.
    static func archive(_ files: [File], piece: Int = 65_537) throws -> [UInt8] {
        var zip = ZipStream(timeZone: utc)
        var out = [UInt8]()
        for file in files {
            out += try zip.begin(ZipEntry(name: file.name, size: UInt64(file.bytes.count), modified: file.modified))
            var start = 0
            while start < file.bytes.count {
                let end = min(start + piece, file.bytes.count)
                try file.bytes[start..<end].withUnsafeBytes { try zip.update($0) }
                out += file.bytes[start..<end]
                start = end
            }
            out += try zip.end()
        }
        out += try zip.finish()
        #expect(zip.length == UInt64(out.count))
        let entries = files.map { ZipEntry(name: $0.name, size: UInt64($0.bytes.count), modified: $0.modified) }
        #expect(try ZipStream.archiveSize(of: entries, timeZone: utc) == UInt64(out.count))
        return out
    }

    /// Bytes that differ from file to file, the same at every run.
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<count).map { _ in
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
    }

    /// Names a browser's selection can hold: spaces and the characters a URL or a form
    /// encodes specially, other scripts, emoji, and a decomposed accent.
    static let names = [
        "plain.txt", "with space.jpg", "a+b=c&d.png", "100% done.mov", "#tag ?q.heic", "Ελληνικά.txt",
        "日本語の写真.jpg", "😀 party 🎉.gif", "Cafe\u{301} NFD.txt", "empty.bin",
    ]

    /// Python's reading of a ZIP: each entry's name, size, CRC, flags, method, DOS time,
    /// header offset, and (with "data") SHA-256 of its bytes and `testzip()`'s verdict.
    static let pythonReader = """
        import hashlib, json, sys, zipfile
        path, data = sys.argv[1], sys.argv[2] == "data"
        with zipfile.ZipFile(path) as z:
            out = {"bad": z.testzip() if data else None, "entries": []}
            for i in z.infolist():
                e = {"name": i.filename, "size": i.file_size, "crc": i.CRC, "flags": i.flag_bits,
                     "method": i.compress_type, "date": list(i.date_time), "offset": i.header_offset}
                if data:
                    e["sha256"] = hashlib.sha256(z.read(i)).hexdigest()
                else:
                    z.open(i).close()  # reads the local header and checks its name
                out["entries"].append(e)
        print(json.dumps(out))
        """

    static func python(_ path: String, data: Bool) throws -> [String: Any] {
        let run = try runPython(pythonReader, [path, data ? "data" : "headers"])
        try #require(run.status == 0, "\(run.output)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
    }

    static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("obscura-zip-\(UUID().uuidString)-\(name)").path
    }

    @Test func namesAndBytesRoundTrip() throws {
        let files = Self.names.enumerated().map { index, name in
            File(name: name, bytes: name == "empty.bin" ? [] : Self.bytes([1, 1000, 300_000][index % 3], seed: UInt64(index)))
        }
        let archive = try Self.archive(files)

        let reader = try ZipReader(WholeArchive(bytes: archive))
        #expect(!reader.hasZip64End)
        #expect(reader.entries.map(\.name) == Self.names)
        for (entry, file) in zip(reader.entries, files) {
            #expect(try reader.contents(entry) == file.bytes)
            #expect(entry.crc == referenceCRC32(file.bytes))
            #expect(entry.size == UInt64(file.bytes.count))
            #expect(entry.flags == 0x0808 && entry.method == 0)
            #expect(entry.versionNeeded == 20 && entry.versionMadeBy == 0x033F)
            #expect(entry.externalAttributes == 0o100644 << 16)
            #expect(entry.centralZip64Fields == 0 && !entry.localZip64)
            #expect(entry.unixTime == 1_689_359_525)
        }

        let path = Self.temporaryPath("names.zip")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(archive).write(to: URL(fileURLWithPath: path))
        let python = try Self.python(path, data: true)
        #expect(python["bad"] is NSNull)
        let entries = try #require(python["entries"] as? [[String: Any]])
        #expect(entries.map { $0["name"] as? String } == Self.names)
        for (entry, file) in zip(entries, files) {
            #expect(entry["size"] as? Int == file.bytes.count)
            #expect(entry["crc"] as? UInt32 == referenceCRC32(file.bytes))
            #expect(entry["sha256"] as? String == SHA256Hex.of(file.bytes))
            #expect(entry["method"] as? Int == 0)
            // DOS time has two-second steps: 18:32:05 is written 18:32:04.
            #expect(entry["date"] as? [Int] == [2023, 7, 14, 18, 32, 4])
        }

        let unzip = try runTool("/usr/bin/env", ["unzip", "-t", path])
        #expect(unzip.status == 0, "\(unzip.output)")
        #expect(unzip.output.contains("No errors detected"))
    }

    /// 4 GiB and one byte of zeros go through the writer into a sink that keeps only the
    /// records; the archive is then read as a sparse file, its holes standing for the bytes.
    @Test func aFileOf4GiBOrMoreGetsZip64() throws {
        let big: UInt64 = (4 << 30) + 1
        let before = Array("before".utf8), after = Array("after".utf8)
        var zip = ZipStream(timeZone: Self.utc)
        let sink = SparseArchive()
        let entries = [
            ZipEntry(name: "before.txt", size: UInt64(before.count), modified: Self.moment),
            ZipEntry(name: "big.mov", size: big, modified: Self.moment),
            ZipEntry(name: "after.txt", size: UInt64(after.count), modified: Self.moment),
        ]
        func small(_ entry: ZipEntry, _ bytes: [UInt8]) throws {
            sink.keep(try zip.begin(entry))
            try bytes.withUnsafeBytes { try zip.update($0) }
            sink.keep(bytes)
            sink.keep(try zip.end())
        }
        try small(entries[0], before)
        sink.keep(try zip.begin(entries[1]))
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        var left = big
        while left > 0 {
            let step = Int(min(left, UInt64(zeros.count)))
            try zeros[0..<step].withUnsafeBytes { try zip.update($0) }
            sink.skip(UInt64(step))
            left -= UInt64(step)
        }
        sink.keep(try zip.end())
        try small(entries[2], after)
        sink.keep(try zip.finish())
        #expect(sink.count == zip.length)
        #expect(try ZipStream.archiveSize(of: entries, timeZone: Self.utc) == sink.count)

        let reader = try ZipReader(sink)
        #expect(reader.hasZip64End)
        let (first, large, last) = (reader.entries[0], reader.entries[1], reader.entries[2])
        #expect(first.versionNeeded == 20 && first.centralZip64Fields == 0 && !first.localZip64)
        // Sizes in zip64 fields (local and central) and an 8-byte data descriptor.
        #expect(large.size == big && large.localZip64 && large.centralZip64Fields == 2 && large.versionNeeded == 45)
        // A small file past 4 GiB: only its offset needs zip64.
        #expect(last.offset > 0xFFFF_FFFF && !last.localZip64 && last.centralZip64Fields == 1 && last.versionNeeded == 45)
        #expect(last.size == UInt64(after.count) && last.crc == referenceCRC32(after))

        let path = Self.temporaryPath("big.zip")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try sink.writeSparseFile(path)
        let python = try Self.python(path, data: false)
        let listed = try #require(python["entries"] as? [[String: Any]])
        #expect(listed.map { $0["name"] as? String } == ["before.txt", "big.mov", "after.txt"])
        #expect(listed.map { ($0["size"] as? NSNumber)?.uint64Value } == [6, big, 5])
        #expect(listed.map { ($0["offset"] as? NSNumber)?.uint64Value } == reader.entries.map(\.offset))
        // The CRC-32 of the zeros, from Python's zlib, one mebibyte at a time.
        let crc = try runPython("import zlib\nc = 0\nz = bytes(1 << 20)\nfor _ in range(4096): c = zlib.crc32(z, c)\nprint(zlib.crc32(b'\\0', c))", [])
        #expect(crc.output.trimmingCharacters(in: .whitespacesAndNewlines) == String(large.crc))
        #expect(listed[1]["crc"] as? UInt32 == large.crc)
    }

    /// At 0xFFFFFFFF bytes (the all-ones marker itself) an entry takes zip64: a local field
    /// (20 bytes), 8-byte descriptor sizes (8 more) and both sizes in the central field (20).
    @Test func zip64StartsAtTheAllOnesSize() throws {
        func size(_ bytes: UInt64) throws -> UInt64 {
            try ZipStream.archiveSize(of: [ZipEntry(name: "v.mov", size: bytes, modified: Self.moment)], timeZone: Self.utc)
        }
        #expect(try size(0xFFFF_FFFF) - size(0xFFFF_FFFE) == 1 + 20 + 8 + 20)
        #expect(try size(0xFFFF_FFFF + 1) - size(0xFFFF_FFFF) == 1)
    }

    /// 65,535 entries: the count fills its 2-byte field with all ones, so it lives in the
    /// zip64 end record.
    @Test func manyEntriesGetTheZip64EndRecord() throws {
        let count = 0xFFFF
        var zip = ZipStream(timeZone: Self.utc)
        var out = [UInt8]()
        for index in 0..<count {
            out += try zip.begin(ZipEntry(name: "\(index).txt", size: 0, modified: Self.moment))
            out += try zip.end()
        }
        out += try zip.finish()
        let reader = try ZipReader(WholeArchive(bytes: out))
        #expect(reader.hasZip64End && reader.entries.count == count)
        #expect(reader.entries.last?.name == "\(count - 1).txt")

        let path = Self.temporaryPath("many.zip")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(out).write(to: URL(fileURLWithPath: path))
        let python = try Self.python(path, data: false)
        #expect((python["entries"] as? [[String: Any]])?.count == count)

        // One fewer fits the 2-byte field: no zip64 end record.
        var fewer = ZipStream(timeZone: Self.utc)
        var short = [UInt8]()
        for index in 0..<count - 1 {
            short += try fewer.begin(ZipEntry(name: "\(index)", size: 0, modified: Self.moment))
            short += try fewer.end()
        }
        short += try fewer.finish()
        #expect(try !ZipReader(WholeArchive(bytes: short)).hasZip64End)
    }

    @Test func callsOutOfOrderThrow() throws {
        let entry = ZipEntry(name: "a.txt", size: 3, modified: Self.moment)
        let three: [UInt8] = [1, 2, 3]
        var zip = ZipStream(timeZone: Self.utc)
        #expect(throws: ZipError.entryState) { try three.withUnsafeBytes { try zip.update($0) } }
        #expect(throws: ZipError.entryState) { try zip.end() }
        _ = try zip.begin(entry)
        #expect(throws: ZipError.entryState) { try zip.begin(entry) }
        #expect(throws: ZipError.entryState) { try zip.finish() }
        try three[0..<2].withUnsafeBytes { try zip.update($0) }
        // Short: the descriptor would not match the bytes.
        #expect(throws: ZipError.sizeMismatch(expected: 3, written: 2)) { try zip.end() }
        // Long: refused before the bytes are counted.
        #expect(throws: ZipError.sizeMismatch(expected: 3, written: 5)) { try three[0..<3].withUnsafeBytes { try zip.update($0) } }
        try three[2..<3].withUnsafeBytes { try zip.update($0) }
        _ = try zip.end()
        _ = try zip.finish()
        #expect(throws: ZipError.finished) { try zip.begin(entry) }
        #expect(throws: ZipError.finished) { try zip.finish() }

        var named = ZipStream(timeZone: Self.utc)
        let long = ZipEntry(name: String(repeating: "é", count: 40_000), size: 0, modified: Self.moment)
        #expect(throws: ZipError.nameTooLong) { try named.begin(long) }
    }

    @Test func theTimestampFieldIsLeftOutWhenItCannotHoldTheDate() throws {
        let late = Date(timeIntervalSince1970: 5_000_000_000)  // 2128: past Int32 and DOS
        let archive = try Self.archive([File(name: "late.txt", bytes: [1], modified: late)])
        let entry = try #require(try ZipReader(WholeArchive(bytes: archive)).entries.first)
        #expect(entry.unixTime == nil)
        #expect(entry.dosDate == DOSDateTime(late, timeZone: Self.utc).date)
    }
}

/// SHA-256 as lower-case hex, to compare with Python's `hexdigest()`.
enum SHA256Hex {
    static func of(_ bytes: [UInt8]) -> String {
        SHA256Digest.hash(bytes).map { String(format: "%02x", $0) }.joined()
    }
}
