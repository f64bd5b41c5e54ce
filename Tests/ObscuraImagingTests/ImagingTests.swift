import Dispatch
import Foundation
import ObscuraTestSupport
import Testing
@testable import ObscuraImaging

@Suite struct ImagingTests {
    func probe(_ bytes: [UInt8], limit: Int = Imaging.defaultPixelLimit) throws -> ImageInfo {
        try bytes.withUnsafeBytes { try Imaging.probe($0, pixelLimit: limit) }
    }

    func thumbnail(_ bytes: [UInt8], limit: Int = Imaging.defaultPixelLimit) throws -> [UInt8] {
        try bytes.withUnsafeBytes { try Imaging.thumbnail($0, pixelLimit: limit) }
    }

    @Test func cameraJPEGMetadata() throws {
        let jpeg = try TestImages.cameraJPEG(width: 400, height: 300, date: "2023:07:14 18:32:05", orientation: 6)
        let info = try probe(jpeg)
        #expect(info.width == 400 && info.height == 300)
        #expect(info.format == "jpeg")
        #expect(info.orientation == 6)
        #expect(info.takenAt == Date(timeIntervalSince1970: 1_689_359_525))
    }

    @Test func thumbnailsAreUprightJPEGs() throws {
        let landscape = try thumbnail(TestImages.cameraJPEG(width: 4000, height: 3000, date: "2023:07:14 18:32:05", orientation: 1))
        #expect(landscape.prefix(2) == [0xFF, 0xD8])
        let l = try probe(landscape)
        #expect(l.width == 256 && l.height == 192)
        // Orientation 6: stored landscape, shown rotated 90°: the thumbnail is portrait.
        let rotated = try probe(thumbnail(TestImages.cameraJPEG(width: 4000, height: 3000, date: "2023:07:14 18:32:05", orientation: 6)))
        #expect(rotated.width == 192 && rotated.height == 256)
        #expect(rotated.orientation == 1, "metadata is stripped, the pixels are rotated")
    }

    @Test(arguments: [("png", "png"), ("webp", "webp"), ("gif", "gif"), ("tif", "tiff"), ("heic", "heif")])
    func formats(_ ext: String, _ format: String) throws {
        let bytes = try TestImages.image(ext, width: 640, height: 480)
        let info = try probe(bytes)
        #expect(info.format == format)
        #expect(info.width == 640 && info.height == 480)
        #expect(try probe(thumbnail(bytes)).width == 256)
    }

    @Test func badInputsFailCleanly() throws {
        #expect(throws: ImagingError.unsupported) { try probe([]) }
        #expect(throws: ImagingError.unsupported) { try probe((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }) }
        let jpeg = try TestImages.image("jpg", width: 800, height: 600)
        #expect(throws: ImagingError.self) { try thumbnail(Array(jpeg.prefix(jpeg.count / 3))) }
    }

    @Test func pixelLimitIsCheckedBeforeDecoding() throws {
        let jpeg = try TestImages.image("jpg", width: 400, height: 300)
        #expect(throws: ImagingError.tooLarge(width: 400, height: 300, limit: 100_000)) { try probe(jpeg, limit: 100_000) }
        #expect(throws: ImagingError.tooLarge(width: 400, height: 300, limit: 100_000)) { try thumbnail(jpeg, limit: 100_000) }
    }

    @Test func parallelThumbnails() throws {
        let jpeg = try TestImages.image("jpg", width: 1600, height: 1200)
        let ok = Counter()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            if let t = try? jpeg.withUnsafeBytes({ try Imaging.thumbnail($0) }), t.prefix(2) == [0xFF, 0xD8] { ok.add() }
        }
        #expect(ok.value == 8)
    }

    @Test func exifDateParsing() {
        #expect(Imaging.exifDate("2023:07:14 18:32:05 (2023:07:14 18:32:05, ASCII, 20 bytes)") == Date(timeIntervalSince1970: 1_689_359_525))
        #expect(Imaging.exifDate("0000:00:00 00:00:00") == nil)
        #expect(Imaging.exifDate("") == nil)
    }

    @Test func videoProbeAndPoster() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("obscura-video-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try TestImages.video(in: dir)
        let info = try Video.probe(path: path)
        #expect(info.width == 320 && info.height == 240)
        #expect(abs((info.duration ?? 0) - 2) < 0.2)
        let poster = try Video.poster(path: path)
        #expect(try probe(poster).width == 256)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["clip.mp4"], "no temporary file left")
        #expect(throws: ImagingError.self) { try Video.probe(path: dir + "/missing.mp4") }
        #expect(info.takenAt == nil, "a movie that names no time has no capture time")
    }

    /// Issue 40, point 13: a phone's movie lands on the day it was taken. An Android-style
    /// MP4 carries `creation_time` (UTC); an iPhone's MOV Apple's creation date, its
    /// local time with the zone, whose digits are read as a photo's EXIF time is.
    @Test func aMoviesCaptureTimeIsReadAsPhonesWriteIt() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("obscura-video-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let july20 = Date(timeIntervalSince1970: 1_721_484_191)   // 2024-07-20 14:03:11 UTC
        let android = try TestImages.video(in: dir, seconds: 1, name: "VID_20240720.mp4",
                                           metadata: ["creation_time": "2024-07-20T14:03:11Z"])
        #expect(try Video.probe(path: android).takenAt == july20)
        let iphone = try TestImages.video(in: dir, seconds: 1, name: "IMG_0042.MOV", metadata: [
            "creation_time": "2024-07-20T12:03:11Z", "com.apple.quicktime.creationdate": "2024-07-20T14:03:11+0200",
        ])
        #expect(try Video.probe(path: iphone).takenAt == july20, "Apple's local time wins, read as EXIF times are")
        let epoch = try TestImages.video(in: dir, seconds: 1, name: "zero.mp4", metadata: ["creation_time": "1970-01-01T00:00:00Z"])
        #expect(try Video.probe(path: epoch).takenAt == nil, "a muxer's zero time is no capture time")
        #expect(Video.isoWallClock("2024-13-20T14:03:11Z") == nil)
        #expect(Video.isoWallClock("2024-07-20") == nil)
        #expect(Video.isoWallClock("2024-07-20 14:03:11") == july20)
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func add() { lock.withLock { n += 1 } }
    var value: Int { lock.withLock { n } }
}
