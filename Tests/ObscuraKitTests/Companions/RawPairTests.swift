import Foundation
import ObscuraImaging
import ObscuraTestSupport
import Testing
@testable import ObscuraKit

/// Issue 17 point 3: a camera RAW and the JPEG the camera wrote with it (the same name
/// but for the extension, the same capture time) show as one item, the JPEG's, with both
/// kept; in one import or two, in either order.
@Suite struct RawPairTests {
    func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// A JPEG named `name` in `root`, `width` wide, whose EXIF capture time is `date`,
    /// written by exiftool.
    func jpeg(_ root: TestRoot, _ name: String, width: Int = 96, date: String) throws -> String {
        let path = root.path + "/" + name
        try Data(TestImages.image("jpg", width: width, height: 72)).write(to: URL(fileURLWithPath: path))
        _ = try ExternalTool.run("exiftool", ["-q", "-overwrite_original", "-DateTimeOriginal=" + date, path])
        return path
    }

    /// A DNG named `name` in `root`, its sensor `width` wide (so that DNGs of one date
    /// differ), taken at `date`.
    func dng(_ root: TestRoot, _ name: String, width: Int = 64, date: String?) throws -> String {
        let path = root.path + "/" + name
        let preview = try TestImages.image("jpg", width: 64, height: 48)
        try Data(TestRaws.dng(width: width, height: 48, preview: preview, date: date)).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aRawAndItsJpegImportedTogetherAreOneItem() throws {
        let root = try TestRoot()
        let v = try root.newVault()
        let raw = try dng(root, "DSC_0001.DNG", date: "2022:03:04 05:06:07")
        let still = try jpeg(root, "DSC_0001.JPG", date: "2022:03:04 05:06:07")
        let report = try v.importFiles([raw, still])
        #expect(report.imported.count == 1 && report.joined == [.init(path: raw, role: .raw, still: "DSC_0001.JPG")] && report.failures.isEmpty)
        let item = try v.item(try #require(report.imported.first).id)
        #expect(item.kind == .photo && item.name == "DSC_0001.JPG" && item.companionRole == .raw)
        #expect(item.companionName == "DSC_0001.DNG" && item.companionMimeType == "image/x-adobe-dng")
        #expect(item.renditionState == nil && !item.isLivePhoto && item.pairKey == nil)
        #expect(try root.poolFiles().count == 3, "the JPEG and its thumbnail, the RAW; the RAW's thumbnail went")
        let reader = try v.openCompanion(item)
        #expect(try reader.read(0..<reader.size) == (try bytes(raw)))
        #expect(try v.verify().problems.isEmpty)
        // Either half again is a duplicate.
        #expect(try v.importFiles([raw]).duplicates == [raw])
    }

    @Test func halvesApartPairInEitherOrderAndOnlyWhenNameAndTimeAgree() throws {
        let root = try TestRoot()
        let v = try root.newVault()
        // The RAW first, then its JPEG in a later import.
        let raw = try dng(root, "IMG_1.DNG", date: "2022:03:04 05:06:07")
        #expect(try v.importFiles([raw]).imported.first?.pairKey != nil)
        let still = try #require(try v.importFiles([try jpeg(root, "IMG_1.JPG", date: "2022:03:04 05:06:07")]).imported.first)
        #expect(try still.companionRole == .raw && v.items().count == 1)

        // Another time, another name, no time at all: three pairs that are not.
        _ = try v.importFiles([try dng(root, "IMG_2.DNG", width: 66, date: "2022:03:04 05:06:07"),
                               try jpeg(root, "IMG_2.JPG", date: "2022:03:04 05:06:08")])
        _ = try v.importFiles([try dng(root, "IMG_3.DNG", width: 68, date: "2022:03:04 05:06:07"),
                               try jpeg(root, "IMG_4.JPG", width: 98, date: "2022:03:04 05:06:07")])
        let undated = root.path + "/IMG_5.JPG"
        try Data(TestImages.image("jpg", width: 8, height: 8)).write(to: URL(fileURLWithPath: undated))
        _ = try v.importFiles([try dng(root, "IMG_5.DNG", width: 70, date: nil), undated])
        #expect(try v.items().count == 7)
        #expect(try v.items().filter { $0.record.companionId != nil }.count == 1)
    }

    @Test func theStemIsTheNameBeforeItsLastDotInASCIILowerCase() {
        func stem(_ name: String) -> String { String(decoding: Vault.pairStem(name), as: UTF8.self) }
        #expect(stem("IMG_0001.JPG") == "img_0001" && stem("A.B.C.jpg") == "a.b.c")
        #expect(stem("noext") == "noext" && stem(".hidden") == ".hidden" && stem("x.") == "x")
        // No Unicode casing: a capital I with a dot stays what it is.
        #expect(stem("\u{130}MG.jpg") == "\u{130}mg")
    }

    @Test func aFavouriteStillStaysOneWhenItsRawJoins() throws {
        let root = try TestRoot()
        let v = try root.newVault()
        let still = try #require(try v.importFiles([try jpeg(root, "F.JPG", date: "2022:03:04 05:06:07")]).imported.first)
        _ = try v.setFavorite(still.id, true)
        _ = try v.importFiles([try dng(root, "F.DNG", date: "2022:03:04 05:06:07")])
        let paired = try v.item(still.id)
        #expect(paired.companionRole == .raw && paired.favorite)
    }
}
