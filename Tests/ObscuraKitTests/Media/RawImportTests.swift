import Foundation
import ObscuraCrypto
import ObscuraImaging
import ObscuraTestSupport
import Testing
@testable import ObscuraKit
@testable import ObscuraStore

/// Camera RAW files import as they are, as photos shown through their embedded JPEG
/// preview; one with nothing to show is kept as a file; a damaged one is refused and
/// leaves nothing behind.
@Suite struct RawImportTests {
    func size(_ jpeg: [UInt8]) throws -> (Int, Int) {
        let info = try jpeg.withUnsafeBytes { try Imaging.probe($0) }
        return (info.width, info.height)
    }

    /// Close to `expected` in every channel.
    func near(_ colour: [Int], _ expected: [Int], within tolerance: Int = 24) -> Bool {
        colour.count == 3 && zip(colour, expected).allSatisfy { abs($0 - $1) <= tolerance }
    }

    @Test func aDNGImportsAsAPhotoShownThroughItsPreview() throws {
        let root = try TestRoot()
        let v = try root.newVault()
        defer { v.lock() }
        let src = try ImporterTests.Sources()
        // Red to blue (purple on average); the DNG's first image, which libvips would
        // show, is green: the colours say which picture was used.
        let preview = try TestImages.image("jpg", width: 480, height: 360)
        let dng = TestRaws.dng(width: 640, height: 480, preview: preview, firstImage: .picture(red: 0, green: 200, blue: 0),
                               date: "2021:05:06 07:08:09")
        try src.write("IMG_0001.DNG", dng)

        let report = try v.importFiles([src.path])
        #expect(report.failures.isEmpty, "\(report.failures)")
        let item = try #require(report.imported.first)
        #expect(item.kind == .photo && item.mimeType == "image/x-adobe-dng")
        #expect(item.width == 640 && item.height == 480 && item.orientation == 1)
        #expect(item.takenAt == 1_620_284_889)
        // Stored as it is.
        #expect(try v.read(item, range: 0..<UInt64(dng.count)) == dng)

        let thumb = try #require(try v.thumbnail(item))
        #expect(try size(thumb) == (256, 192))
        let previewColour = try TestImages.averagedColours(preview)[0]
        let thumbColour = try TestImages.averagedColours(thumb)[0]
        #expect(near(thumbColour, previewColour), "thumbnail \(thumbColour), preview \(previewColour)")
        #expect(!near(thumbColour, [0, 200, 0], within: 60), "not the DNG's green first image")

        // The viewer's preview and full image: the embedded JPEG, at most its own size.
        let shown = try #require(try v.preview(item))
        #expect(try size(shown) == (480, 360))
        #expect(near(try TestImages.averagedColours(shown)[0], previewColour))
        #expect(try size(#require(try v.fullImage(item))) == (480, 360))
    }

    @Test func theRawsOrientationTurnsThumbnailAndPreview() throws {
        let root = try TestRoot()
        let v = try root.newVault()
        defer { v.lock() }
        let src = try ImporterTests.Sources()
        try src.write("portrait.dng", TestRaws.dng(preview: try TestImages.image("jpg", width: 480, height: 360), orientation: 6))
        let item = try #require(try v.importFiles([src.path]).imported.first)
        #expect(item.orientation == 6 && item.width == 640 && item.height == 480, "stored size is before turning")
        for jpeg in [try v.thumbnail(item), try v.preview(item)].compactMap({ $0 }) {
            let (w, h) = try size(jpeg)
            #expect(h > w, "portrait")
            let halves = try TestImages.averagedColours(jpeg, columns: 2)
            #expect(halves.count == 2 && halves[0][2] > halves[0][0] && halves[1][0] > halves[1][2],
                    "red (the top) turned to the right: \(halves)")
        }
    }

    @Test func aNikonRawImportsThroughItsJpgFromRaw() throws {
        let root = try TestRoot()
        let v = try root.newVault()
        defer { v.lock() }
        let src = try ImporterTests.Sources()
        try src.write("DSC_0001.NEF", TestRaws.tiffRaw(make: "NIKON CORPORATION", preview: try TestImages.image("jpg", width: 600, height: 400)))
        let item = try #require(try v.importFiles([src.path]).imported.first)
        #expect(item.kind == .photo && item.mimeType == "image/x-nikon-nef" && item.thumbId != nil)
        #expect(item.width == 640 && item.takenAt == 1_641_092_645)
        let (w, h) = try size(#require(try v.thumbnail(item)))
        #expect(w == 256 && (170...171).contains(h))
    }

    @Test func aRawWithNothingToShowIsKeptAsAFile() throws {
        let root = try TestRoot()
        let v = try root.newVault()
        defer { v.lock() }
        let src = try ImporterTests.Sources()
        // Sensor data only, as pidng writes a DNG: no preview, nothing libvips shows.
        let sensorOnly = TestRaws.dng(preview: nil, firstImage: .sensorData)
        try src.write("bare.dng", sensorOnly)
        // A preview-less DNG whose first image is a picture: libvips thumbnails that.
        try src.write("converted.dng", TestRaws.dng(preview: nil, firstImage: .picture(red: 0, green: 200, blue: 0)))
        // A CR3's header and an empty movie box: readable, but nothing in it to show.
        try src.write("stub.cr3", TestRaws.headers["image/x-canon-cr3"]!)
        let report = try v.importFiles([src.path])
        #expect(report.failures.isEmpty)
        let items = Dictionary(uniqueKeysWithValues: report.imported.map { ($0.name, $0) })
        let bare = try #require(items["bare.dng"])
        #expect(bare.kind == .file && bare.thumbId == nil && bare.mimeType == "image/x-adobe-dng")
        #expect(bare.width == 640 && bare.takenAt != nil, "what exiftool read is kept")
        #expect(try v.read(bare, range: 0..<UInt64(sensorOnly.count)) == sensorOnly)
        #expect(items["stub.cr3"]?.kind == .file && items["stub.cr3"]?.mimeType == "image/x-canon-cr3")
        let converted = try #require(items["converted.dng"])
        #expect(converted.kind == .photo)
        let thumb = try #require(try v.thumbnail(converted))
        #expect(near(try TestImages.averagedColours(thumb)[0], [0, 200, 0]))
        #expect(try v.preview(converted) != nil)
    }

    @Test func aDamagedRawIsRefusedAndLeavesNothing() throws {
        let root = try TestRoot()
        let v = try root.newVault()
        defer { v.lock() }
        let src = try ImporterTests.Sources()
        let preview = try TestImages.image("jpg", width: 480, height: 360)
        let dng = TestRaws.dng(preview: preview)
        // Cut halfway through the preview, which the layout puts last.
        let cut = Array(dng.prefix(dng.count - preview.count / 2))
        try src.write("cut.dng", cut)
        // A Fujifilm header followed by noise: exiftool cannot read it at all.
        try src.write("noise.raf", TestRaws.headers["image/x-fuji-raf"]! + (0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
        let report = try v.importFiles([src.path])
        #expect(report.imported.isEmpty)
        let messages = Dictionary(uniqueKeysWithValues: report.failures.map { (($0.path as NSString).lastPathComponent, $0.message) })
        #expect(messages["cut.dng"]?.hasPrefix("not imported: damaged or truncated image") == true, "\(messages)")
        #expect(messages["noise.raf"]?.hasPrefix("not imported: damaged or truncated image") == true, "\(messages)")
        #expect(try root.poolFiles().isEmpty)
        #expect(try FileIO.read(src.path + "/cut.dng") == cut, "the source is untouched")
        #expect(ImportFailure(ImagingError.corrupt("x")).message == "This image is damaged or incomplete, so it was not added.")
    }

    @Test func aPlainTIFFStaysATIFF() throws {
        let root = try TestRoot()
        let v = try root.newVault()
        defer { v.lock() }
        let src = try ImporterTests.Sources()
        try src.write("scan.tif", try TestImages.image("tif", width: 640, height: 480))
        let item = try #require(try v.importFiles([src.path]).imported.first)
        #expect(item.kind == .photo && item.mimeType == "image/tiff" && item.width == 640 && item.thumbId != nil)
    }

    @Test(arguments: [Int.max, 0])
    func anUploadedRawImportsFromMemoryOrSharedMemory(_ secretLimit: Int) throws {
        let root = try TestRoot()
        let v = try root.newVault()
        defer { v.lock() }
        let dng = TestRaws.dng(preview: try TestImages.image("jpg", width: 480, height: 360), orientation: 8)
        let buffer = try UploadBuffer(secretLimit: secretLimit)
        try dng.withUnsafeBytes { try buffer.append($0) }
        guard case let .imported(item) = try v.importUpload(buffer, name: "upload.dng") else {
            Issue.record("the RAW was not imported")
            return
        }
        #expect(item.kind == .photo && item.mimeType == "image/x-adobe-dng" && item.orientation == 8)
        #expect(try size(#require(try v.thumbnail(item))) == (192, 256))
        #expect(try v.read(item, range: 0..<UInt64(dng.count)) == dng)
    }
}
