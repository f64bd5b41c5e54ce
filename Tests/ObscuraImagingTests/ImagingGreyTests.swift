import Foundation
import ObscuraTestSupport
import Testing
@testable import ObscuraImaging

/// `Imaging.grey`, OCR's input (docs/SEARCH.md §S2.3, §S2.5): upright, at most the preview
/// size, one byte per pixel, transparency on white, drawn formats drawn large enough.
@Suite struct ImagingGreyTests {
    @Test func aPhotoIsShrunkUprightToGrey() throws {
        // Stored 2000×1000 with EXIF orientation 6: shown 1000×2000.
        let jpeg = try TestImages.cameraJPEG(width: 2000, height: 1000, date: "2024:05:01 10:00:00", orientation: 6)
        let grey = try jpeg.withUnsafeBytes { try Imaging.grey($0) }
        #expect(grey.width == 720 && grey.height == 1440)
        #expect(grey.pixels.count == grey.width * grey.height)
    }

    @Test func aSmallPictureIsNotEnlarged() throws {
        let png = try TestImages.image("png", width: 300, height: 200)
        let grey = try png.withUnsafeBytes { try Imaging.grey($0) }
        #expect(grey.width == 300 && grey.height == 200)
    }

    @Test func transparencyBecomesWhite() throws {
        let png = try ExternalTool.run("/usr/bin/convert", ["-size", "40x30", "xc:none", "png32:-"])
        let grey = try png.withUnsafeBytes { try Imaging.grey($0) }
        #expect(grey.pixels.count == 40 * 30)
        #expect(grey.pixels.allSatisfy { $0 == 255 })
    }

    @Test func aPDFPageIsDrawnAtThePreviewSize() throws {
        // An A4 page in landscape: 842 × 595 points, drawn 1440 wide.
        let pdf = TestImages.pdf(["A line"])
        let grey = try pdf.withUnsafeBytes { try Imaging.grey($0) }
        #expect(grey.width == 1440)
        #expect(abs(grey.height - 1018) <= 1)
    }

    @Test func tooManyPixelsAreRefusedBeforeDecoding() throws {
        let png = try TestImages.image("png", width: 400, height: 300)
        #expect(throws: ImagingError.tooLarge(width: 400, height: 300, limit: 100_000)) {
            _ = try png.withUnsafeBytes { try Imaging.grey($0, pixelLimit: 100_000) }
        }
    }
}
