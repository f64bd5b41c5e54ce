import Foundation
import ObscuraTestSupport
import Testing
@testable import ObscuraCatalog
@testable import ObscuraKit

/// Types come from the first bytes alone, camera RAWs included.
@Suite struct ContentSnifferTests {
    func sniff(_ bytes: [UInt8]) -> (kind: ItemKind, mimeType: String) {
        ContentSniffer.sniff(Array(bytes.prefix(ContentSniffer.prefixLength)))
    }

    @Test(arguments: TestRaws.headers.keys.sorted())
    func rawFormatsToldByTheirHeaders(_ mimeType: String) {
        let sniffed = sniff(TestRaws.headers[mimeType]!)
        #expect(sniffed.kind == .photo && sniffed.mimeType == mimeType)
    }

    @Test(arguments: ["IIRO", "IIRS", "MMOR"])
    func olympusHeadersOfBothByteOrders(_ magic: String) {
        #expect(sniff(Array(magic.utf8) + [0x08, 0, 0, 0]) == (.photo, "image/x-olympus-orf"))
    }

    @Test func aCR3IsNoLongerTakenForAnMP4() {
        #expect(sniff(TestRaws.headers["image/x-canon-cr3"]!).mimeType == "image/x-canon-cr3")
        var mp4 = TestRaws.headers["image/x-canon-cr3"]!
        mp4.replaceSubrange(8..<12, with: Array("isom".utf8))
        #expect(sniff(mp4) == (.video, "video/mp4"))
    }

    @Test func tiffBasedRawsAreToldByTheirFirstDirectory() throws {
        let jpeg = try TestImages.image("jpg", width: 64, height: 48)
        #expect(sniff(TestRaws.dng(preview: jpeg)) == (.photo, "image/x-adobe-dng"))
        #expect(sniff(TestRaws.dng(preview: nil, firstImage: .sensorData)) == (.photo, "image/x-adobe-dng"))
        #expect(sniff(TestRaws.tiffRaw(make: "NIKON CORPORATION", preview: jpeg)) == (.photo, "image/x-nikon-nef"))
        #expect(sniff(TestRaws.tiffRaw(make: "SONY", preview: jpeg)) == (.photo, "image/x-sony-arw"))
        // The same layout from another maker is a TIFF: only libvips decides more.
        #expect(sniff(TestRaws.tiffRaw(make: "Obscura", preview: jpeg)) == (.photo, "image/tiff"))
    }

    @Test func ordinaryTIFFsStayTIFFs() throws {
        #expect(sniff(try TestImages.image("tif", width: 64, height: 48)) == (.photo, "image/tiff"))
        // A Nikon picture without sensor data in SubIFDs (a scanner's, say).
        #expect(sniff(TestRaws.plainTIFF(make: "NIKON CORPORATION")) == (.photo, "image/tiff"))
        // Big-endian TIFF with a directory pointing past the prefix: still a TIFF.
        #expect(sniff([0x4D, 0x4D, 0x00, 0x2A, 0x7F, 0xFF, 0xFF, 0xFF]) == (.photo, "image/tiff"))
    }

    @Test func aDirectoryCutByThePrefixDoesNotCrash() throws {
        let dng = TestRaws.dng(preview: nil)
        for length in [8, 9, 10, 21, 50, 100] {
            _ = ContentSniffer.sniff(Array(dng.prefix(length)))
        }
        // Entries claiming huge counts and far offsets are read only as far as they lie.
        var wild = TestRaws.plainTIFF(make: "SONY")
        wild.replaceSubrange(8..<10, with: [0xFF, 0xFF])
        #expect(sniff(wild).mimeType == "image/tiff")
    }
}
