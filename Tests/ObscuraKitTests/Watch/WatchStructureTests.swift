import Foundation
import ObscuraImaging
import ObscuraTestSupport
import Testing
@testable import ObscuraKit
@testable import ObscuraStore

/// The structure check of `obscura watch` (docs/PHONE.md §W2.3): a file of a type phones
/// make is sealed only once it is whole, whatever the writer's pauses; bytes after the end
/// of a JPEG do not matter; anything malformed is "incomplete", never an error.
@Suite struct WatchStructureTests {
    static func verdict(_ bytes: [UInt8]) throws -> WatchStructure.Verdict {
        try WatchStructure.check(size: UInt64(bytes.count)) { range in
            Array(bytes[Int(min(range.lowerBound, UInt64(bytes.count)))..<Int(min(range.upperBound, UInt64(bytes.count)))])
        }
    }

    /// Every cut of `bytes` at the given lengths is incomplete.
    static func expectCutsIncomplete(_ bytes: [UInt8], at lengths: [Int], _ what: String) throws {
        for length in lengths where length < bytes.count {
            #expect(try verdict(Array(bytes.prefix(length))) == .incomplete, "\(what) cut at \(length) of \(bytes.count)")
        }
    }

    /// Lengths spread over a file: its head, a few places inside, the last byte missing.
    static func cuts(_ count: Int) -> [Int] {
        [12, 100, count / 4, count / 2, count * 3 / 4, count - 2, count - 1]
    }

    @Test func aWholeJPEGIsWholeAndEveryCutIsNot() throws {
        let jpeg = try TestImages.detailedJPEG(width: 320, height: 240)
        #expect(try Self.verdict(jpeg) == .whole)
        try Self.expectCutsIncomplete(jpeg, at: Self.cuts(jpeg.count), "baseline JPEG")
    }

    @Test func aProgressiveJPEGIsWalkedThroughItsScans() throws {
        let jpeg = try ExternalTool.run("/usr/bin/convert", ["-seed", "3", "-size", "200x150", "plasma:fractal", "-interlace", "JPEG", "jpg:-"])
        // A progressive JPEG has several SOS segments, with tables between them.
        let scans = Self.markers(jpeg, 0xDA).count
        #expect(scans > 1, "ImageMagick made a progressive JPEG")
        #expect(try Self.verdict(jpeg) == .whole)
        // Cut just after the first scan's data: a marker segment, not the end.
        let secondTables = try #require(Self.markers(jpeg, 0xC4).first { $0 > Self.markers(jpeg, 0xDA)[0] })
        try Self.expectCutsIncomplete(jpeg, at: [secondTables, secondTables + 5] + Self.cuts(jpeg.count), "progressive JPEG")
    }

    @Test func aWholeThumbnailInsideAPP1IsNotTheEnd() throws {
        let thumbnail = try TestImages.image("jpg", width: 32, height: 24)
        let main = try TestImages.detailedJPEG(width: 320, height: 240)
        let payload = Array("Exif".utf8) + [0, 0] + thumbnail
        let app1 = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        let jpeg = Array(main.prefix(2)) + app1 + Array(main.dropFirst(2))
        #expect(try Self.verdict(jpeg) == .whole)
        // Cut right after the thumbnail's own EOI: a scan for FF D9 would call it whole.
        let afterThumbnail = 2 + 4 + 6 + thumbnail.count
        try Self.expectCutsIncomplete(jpeg, at: [afterThumbnail, afterThumbnail + 40], "JPEG with an EXIF thumbnail")
    }

    @Test func bytesAfterTheEOIDoNotMatter() throws {
        let jpeg = try TestImages.detailedJPEG(width: 160, height: 120)
        // A Samsung-style trailer, then a Motion Photo's movie cut short.
        var trailer = Array("SEFHxxxxSEFT".utf8)
        trailer += [0, 0, 0, 0x18] + Array("ftypmp42".utf8)
        trailer += [UInt8](repeating: 7, count: 100)
        #expect(try Self.verdict(jpeg + trailer) == .whole)
    }

    @Test func restartMarkersAndFillBytesContinueTheScan() throws {
        let jpeg = try TestImages.detailedJPEG(width: 64, height: 48)
        let sos = try #require(Self.markers(jpeg, 0xDA).first)
        let headerLength = Int(jpeg[sos + 2]) << 8 | Int(jpeg[sos + 3])
        let dataStart = sos + 2 + headerLength
        // A restart marker and fill bytes put in the entropy-coded data: still one scan.
        var marked = jpeg
        marked.insert(contentsOf: [0xFF, 0xD3, 0xFF, 0xFF, 0xD5], at: dataStart + 10)
        #expect(try Self.verdict(marked) == .whole)
        try Self.expectCutsIncomplete(marked, at: [dataStart + 12, dataStart + 13], "JPEG with restart markers")
    }

    @Test func aPNGIsWholeWithItsIENDLast() throws {
        let png = try TestImages.image("png", width: 300, height: 200)
        #expect(try Self.verdict(png) == .whole)
        try Self.expectCutsIncomplete(png, at: Self.cuts(png.count), "PNG")
        #expect(try Self.verdict(png + [0]) == .incomplete, "bytes after IEND: not the file that was written")
    }

    @Test func aMovieIsWholeWithItsIndexAndBoxesThatTileIt() throws {
        let root = try TestRoot()
        let mp4 = try FileIO.read(try TestImages.video(in: root.path, seconds: 1))
        #expect(try Self.verdict(mp4) == .whole)
        try Self.expectCutsIncomplete(mp4, at: Self.cuts(mp4.count), "MP4")
        let mov = try FileIO.read(try TestImages.hevcVideo(in: root.path, seconds: 1))
        #expect(try Self.verdict(mov) == .whole, "a QuickTime file with its index last")
        try Self.expectCutsIncomplete(mov, at: Self.cuts(mov.count), "MOV")
    }

    @Test func aRecordingWithAPlaceholderMdatAndNoIndexIsIncomplete() throws {
        var ftyp: [UInt8] = [0, 0, 0, 20] + Array("ftypisom".utf8)
        ftyp += [0, 0, 2, 0] + Array("isom".utf8)
        let free: [UInt8] = [0, 0, 0, 8] + Array("free".utf8)
        let samples = [UInt8](repeating: 9, count: 5000)
        // ffmpeg stopped mid-recording: an mdat of size 0 ("to the end") and no moov.
        let recording: [UInt8] = ftyp + free + [0, 0, 0, 0] + Array("mdat".utf8) + samples
        #expect(try Self.verdict(recording) == .incomplete)
        let growing: [UInt8] = ftyp + [0, 0, 0x20, 0] + Array("mdat".utf8) + samples
        #expect(try Self.verdict(growing) == .incomplete, "an mdat whose stated size runs past the end")
    }

    @Test func aHEIFIsWholeOnlyWithItsExtentsInside() throws {
        let heic = try FileIO.read(Self.fixture("gradient.heic"))
        #expect(try Self.verdict(heic) == .whole)
        try Self.expectCutsIncomplete(heic, at: Self.cuts(heic.count), "HEIC")
        // Cut inside the last box, whose size is then fixed: the boxes tile the file, but
        // an iloc extent runs past its end.
        let last = try #require(Self.topLevel(heic).last)
        #expect(last.type == "mdat")
        var cut = Array(heic.prefix(heic.count - (heic.count - last.start) / 2))
        let size = UInt32(cut.count - last.start)
        cut.replaceSubrange(last.start..<last.start + 4, with: (0..<4).map { UInt8(size >> (24 - 8 * $0) & 0xFF) })
        #expect(try Self.verdict(cut) == .incomplete)
    }

    @Test func otherFilesAreUnchecked() throws {
        #expect(try Self.verdict(Array("just some text, long enough".utf8)) == .unchecked)
        #expect(try Self.verdict(Array(repeating: 0xAB, count: 4096)) == .unchecked)
    }

    /// Malformed input is never an error: random bytes behind each type's first bytes,
    /// and single-byte changes of whole files.
    @Test func malformedInputIsAVerdictNotAnError() throws {
        var generator = SystemRandomNumberGenerator()
        let heif: [UInt8] = [0, 0, 0, 24] + Array("ftypheic".utf8)
        let movie: [UInt8] = [0, 0, 0, 8] + Array("moov".utf8)
        let heads: [[UInt8]] = [[0xFF, 0xD8, 0xFF], WatchStructure.pngSignature, heif, movie]
        for head in heads {
            for length in [0, 5, 40, 700] {
                let bytes = head + (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                _ = try Self.verdict(bytes)
            }
        }
        let heic = try FileIO.read(Self.fixture("gradient.heic"))
        let png = try TestImages.image("png", width: 40, height: 30)
        for file in [heic, png] {
            for _ in 0..<200 {
                var changed = file
                changed[Int.random(in: 0..<file.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                _ = try Self.verdict(changed)
            }
        }
    }

    /// Where the marker `FF code` appears in `jpeg`.
    static func markers(_ jpeg: [UInt8], _ code: UInt8) -> [Int] {
        (0..<(jpeg.count - 1)).filter { jpeg[$0] == 0xFF && jpeg[$0 + 1] == code }
    }

    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/" + name).path
    }

    /// The top-level boxes of an ISO file: type and start.
    static func topLevel(_ bytes: [UInt8]) -> [(type: String, start: Int)] {
        var boxes: [(String, Int)] = []
        var at = 0
        while at + 8 <= bytes.count {
            let size = Int(bytes[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            boxes.append((String(decoding: bytes[at + 4..<at + 8], as: UTF8.self), at))
            guard size >= 8 else { break }
            at += size
        }
        return boxes
    }
}
