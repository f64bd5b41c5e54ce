import Foundation
import ObscuraTestSupport
import Testing
@testable import ObscuraImaging

/// Camera RAWs through exiftool: metadata, the largest embedded JPEG, the RAW's
/// orientation applied to it, and damage reported rather than hidden.
@Suite struct RawImageTests {
    /// `bytes` in an unlinked temporary file, open for reading from its start.
    func descriptor(_ bytes: [UInt8]) throws -> Int32 {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("obscura-raw-\(UUID().uuidString)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        return open(path, O_RDONLY)
    }

    func inspect(_ bytes: [UInt8], pixelLimit: Int = Imaging.defaultPixelLimit) throws -> RawImage.Info {
        try RawImage.inspect(.stream { write in try bytes.withUnsafeBytes(write) }, pixelLimit: pixelLimit)
    }

    func probe(_ jpeg: [UInt8]) throws -> ImageInfo { try jpeg.withUnsafeBytes { try Imaging.probe($0) } }

    /// Red on top, blue below: after a quarter turn the sides say which way it went.
    func preview() throws -> [UInt8] { try TestImages.image("jpg", width: 480, height: 360) }

    @Test func aDNGGivesItsSensorSizeDateOrientationAndPreview() throws {
        let jpeg = try preview()
        let dng = TestRaws.dng(width: 640, height: 480, preview: jpeg, orientation: 6, date: "2021:05:06 07:08:09")
        let fd = try descriptor(dng)
        defer { close(fd) }
        let fromFile = try RawImage.inspect(.descriptor(fd))
        let fromStream = try inspect(dng)
        for info in [fromFile, fromStream] {
            #expect(info.width == 640 && info.height == 480, "the sensor's size, not the preview's 480×360")
            #expect(info.orientation == 6)
            #expect(info.takenAt == Date(timeIntervalSince1970: 1_620_284_889))
            let same = info.preview == jpeg
            #expect(same, "the embedded JPEG, byte for byte")
            #expect(info.firstImageIsPicture)
        }
    }

    @Test func thePictureIsTurnedByTheRawsOrientation() throws {
        let info = try inspect(TestRaws.dng(preview: preview(), orientation: 6))
        let thumb = try #require(try RawImage.picture(info, maxSide: 256))
        let shown = try probe(thumb)
        #expect(shown.width == 192 && shown.height == 256, "a quarter turn: portrait")
        #expect(shown.orientation == 1, "the turn is in the pixels")
        // Orientation 6 turns the top (red) to the right and the bottom (blue) to the left.
        let halves = try TestImages.averagedColours(thumb, columns: 2)
        try #require(halves.count == 2 && halves.allSatisfy { $0.count == 3 })
        let (left, right) = (halves[0], halves[1])
        #expect(left[2] > left[0] + 100, "left is blue: \(left)")
        #expect(right[0] > right[2] + 100, "right is red: \(right)")
        // Its own size when no size is asked for.
        #expect(try probe(#require(try RawImage.picture(info, maxSide: nil))).height == 480)
    }

    @Test func theLargestReadableEmbeddedJPEGWins() throws {
        let small = try TestImages.image("jpg", width: 160, height: 120)
        let large = try TestImages.image("jpg", width: 800, height: 600)
        func base64(_ b: [UInt8]) -> String { "base64:" + Data(b).base64EncodedString() }
        let info = try RawImage.info(from: [
            "ThumbnailImage": base64(small), "PreviewImage": base64(large), "OtherImage": base64(Array("not a JPEG".utf8)),
        ], pixelLimit: Imaging.defaultPixelLimit)
        #expect(info.preview?.count == large.count)
        // Over the pixel limit, the next one down.
        let limited = try RawImage.info(from: ["ThumbnailImage": base64(small), "PreviewImage": base64(large)], pixelLimit: 100_000)
        #expect(limited.preview?.count == small.count)
        #expect(throws: ImagingError.tooLarge(width: 800, height: 600, limit: 100_000)) {
            try RawImage.info(from: ["PreviewImage": base64(large)], pixelLimit: 100_000)
        }
    }

    @Test func aRawWithoutPreviewSaysWhetherLibvipsCouldShowIt() throws {
        let converted = try inspect(TestRaws.dng(preview: nil, firstImage: .picture(red: 0, green: 200, blue: 0)))
        #expect(converted.preview == nil && converted.firstImageIsPicture)
        #expect(try RawImage.picture(converted, maxSide: 256) == nil)
        let sensorOnly = try inspect(TestRaws.dng(preview: nil, firstImage: .sensorData))
        #expect(sensorOnly.preview == nil && !sensorOnly.firstImageIsPicture)
        #expect(sensorOnly.width == 640 && sensorOnly.takenAt != nil)
    }

    func isCorrupt(_ body: () throws -> Any) -> Bool {
        do {
            _ = try body()
            return false
        } catch ImagingError.corrupt {
            return true
        } catch {
            return false
        }
    }

    @Test func damageIsReported() throws {
        let jpeg = try preview()
        let dng = TestRaws.dng(preview: jpeg)
        // Cut inside the preview, which the layout puts last.
        #expect(isCorrupt { try inspect(Array(dng.prefix(dng.count - jpeg.count / 2))) })
        // Not a RAW at all.
        #expect(isCorrupt { try inspect((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }) })
    }
}
