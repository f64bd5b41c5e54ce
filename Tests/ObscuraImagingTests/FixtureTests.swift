import Foundation
import Testing
@testable import ObscuraImaging
import ObscuraTestSupport

/// The committed images in Tests/Fixtures (made by Tests/Fixtures/make-fixtures): they
/// check the decoders without ImageMagick at test time.
@Suite struct FixtureTests {
    struct Expected: Sendable, CustomTestStringConvertible {
        var file: String
        var format: String
        var orientation = 1
        var takenAt: Date?
        var testDescription: String { file }
    }

    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    static let expected: [Expected] = [
        Expected(file: "gradient.jpg", format: "jpeg"),
        Expected(file: "gradient.png", format: "png"),
        Expected(file: "gradient.webp", format: "webp"),
        Expected(file: "gradient.gif", format: "gif"),
        Expected(file: "gradient.tif", format: "tiff"),
        Expected(file: "gradient.heic", format: "heif"),
        Expected(file: "camera-orientation6.jpg", format: "jpeg", orientation: 6,
                 takenAt: Date(timeIntervalSince1970: 1_689_359_525)),  // 2023-07-14 18:32:05 UTC
    ]

    static func load(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: fixtures.appendingPathComponent(name)))
    }

    @Test(arguments: expected)
    func probeReadsTheHeader(_ e: Expected) throws {
        let info = try Self.load(e.file).withUnsafeBytes { try Imaging.probe($0) }
        #expect(info == ImageInfo(width: 64, height: 48, orientation: e.orientation, format: e.format, takenAt: e.takenAt))
    }

    @Test(arguments: expected)
    func thumbnailIsAnUprightJPEG(_ e: Expected) throws {
        let thumb = try Self.load(e.file).withUnsafeBytes { try Imaging.thumbnail($0, maxSide: 32) }
        #expect(thumb.prefix(3) == [0xFF, 0xD8, 0xFF])
        let info = try thumb.withUnsafeBytes { try Imaging.probe($0) }
        #expect(info.format == "jpeg")
        #expect(info.orientation == 1, "EXIF is stripped once the pixels are rotated")
        #expect(info.takenAt == nil, "metadata is stripped")
        // Orientation 6 turns the 64x48 landscape into a portrait.
        let (w, h) = e.orientation == 6 ? (24, 32) : (32, 24)
        #expect(info.width == w && info.height == h)
    }

    @Test func smallImagesAreNotEnlarged() throws {
        let thumb = try Self.load("gradient.png").withUnsafeBytes { try Imaging.thumbnail($0, maxSide: 256) }
        let info = try thumb.withUnsafeBytes { try Imaging.probe($0) }
        #expect(info.width == 64 && info.height == 48)
    }

    /// Issue 16, point 14: a JPEG that libvips would decode only in part (cut at a third,
    /// or with its scan damaged in the middle) used to be stored with a thumbnail grey
    /// below the damage; it is refused as damaged.
    @Test func aJPEGDamagedHalfWayIsRefused() throws {
        let jpeg = try TestImages.detailedJPEG(width: 800, height: 600)
        #expect(try jpeg.withUnsafeBytes { try Imaging.thumbnail($0) }.count > 0)
        let cut = Array(jpeg.prefix(jpeg.count / 3))
        var garbled = jpeg
        // Damage that libjpeg meets as bad data, not as a bad marker: it warns ("corrupt
        // JPEG data") and paints the rest grey, which libvips's fail_on=error lets through.
        for i in 0..<512 { garbled[jpeg.count / 2 + i] = UInt8((i * 97 + 13) % 256) }
        for (name, bytes) in [("cut", cut), ("garbled", garbled)] {
            #expect(throws: ImagingError.self, "\(name)") {
                _ = try bytes.withUnsafeBytes { try Imaging.thumbnail($0, maxSide: Imaging.previewSize) }
            }
            #expect(throws: ImagingError.self, "\(name)") {
                _ = try bytes.withUnsafeBytes { try Imaging.thumbnail($0) }
            }
        }
    }

    @Test func damagedFixturesFailCleanly() throws {
        let jpeg = try Self.load("gradient.jpg")
        // The header survives, the pixels do not: probe succeeds, thumbnail reports damage.
        let truncated = Array(jpeg.prefix(jpeg.count - 120))
        #expect(try truncated.withUnsafeBytes { try Imaging.probe($0) }.width == 64)
        #expect {
            try truncated.withUnsafeBytes { try Imaging.thumbnail($0) }
        } throws: { error in
            guard case let ImagingError.corrupt(why) = error else { return false }
            return !why.isEmpty
        }
        // Cut inside the header: nothing to recognise.
        for cut in [1, 2, 10, 30] {
            #expect(throws: ImagingError.unsupported) {
                try Array(jpeg.prefix(cut)).withUnsafeBytes { try Imaging.probe($0) }
            }
        }
    }

    @Test func pixelsNeverSpillToDisk() {
        // libvips decodes images it cannot stream (WebP, for one) into a temporary file
        // when they exceed this many bytes; that file would be plaintext on disk.
        #expect(Imaging.discThreshold >= 1 << 40)
    }
}
