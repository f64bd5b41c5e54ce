import Foundation
import ObscuraCrypto
import ObscuraImaging
import ObscuraTestSupport
import Testing
@testable import ObscuraCatalog
@testable import ObscuraKit

/// Issue 17 point 2: a still and a movie that share Apple's content identifier become
/// one item, whichever comes first, with both originals kept, read, moved, exported and
/// deleted together.
@Suite struct LivePhotoTests {
    static let identifier = "5D5B1B2E-0C6A-4F3B-9E51-7A2C8D9E0F11"

    func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// A still and its motion in `root`, sharing `identifier`.
    func pair(in root: TestRoot, identifier: String = Self.identifier, stem: String = "IMG_0001") throws -> (still: String, movie: String) {
        let still = root.path + "/\(stem).JPG"
        try Data(TestImages.livePhotoJPEG(identifier: identifier)).write(to: URL(fileURLWithPath: still))
        return (still, try TestImages.livePhotoMovie(in: root.path, identifier: identifier, name: "\(stem).MOV"))
    }

    func motionBytes(_ vault: Vault, _ item: ItemRecord) throws -> [UInt8] {
        let reader = try vault.openCompanion(item)
        return try reader.read(0..<reader.size)
    }

    @Test func theIdentifierIsReadWhereExiftoolReadsIt() throws {
        let root = try TestRoot()
        let (still, movie) = try pair(in: root)
        // A second reader agrees that the crafted MakerNote and the movie's key hold it.
        let exif = String(decoding: try ExternalTool.run("exiftool", ["-s3", "-MakerNotes:MediaGroupUUID", still]), as: UTF8.self)
        #expect(exif.trimmingCharacters(in: .whitespacesAndNewlines) == Self.identifier)
        let keys = String(decoding: try ExternalTool.run("exiftool", ["-s3", "-Keys:ContentIdentifier", movie]), as: UTF8.self)
        #expect(keys.trimmingCharacters(in: .whitespacesAndNewlines) == Self.identifier)

        let photo = try bytes(still)
        #expect(try photo.withUnsafeBytes { try Imaging.probe($0, readingContentIdentifier: true) }.contentIdentifier
                == Self.identifier)
        #expect(try photo.withUnsafeBytes { try Imaging.probe($0) }.contentIdentifier == nil, "read only when asked for")
        #expect(try Video.probe(path: movie).contentIdentifier == Self.identifier)
        let plain = try TestImages.image("jpg", width: 8, height: 8)
        #expect(try plain.withUnsafeBytes { try Imaging.probe($0, readingContentIdentifier: true) }.contentIdentifier == nil)
    }

    @Test func aDamagedMakerNoteIsNoIdentifierAndNoCrash() throws {
        let photo = try TestImages.livePhotoJPEG(identifier: Self.identifier)
        // The EXIF block: after SOI and the APP1 marker and length.
        let length = Int(photo[4]) << 8 | Int(photo[5])
        let exif = Array(photo[6..<(4 + length)])
        #expect(LivePhoto.identifier(exif: exif) == Self.identifier)
        // Every truncation, and every byte set to 0xFF in turn: some other answer or none,
        // never a read outside the block.
        for n in 0..<exif.count { _ = LivePhoto.identifier(exif: Array(exif.prefix(n))) }
        for i in exif.indices {
            var damaged = exif
            damaged[i] = 0xFF
            if let found = LivePhoto.identifier(exif: damaged) { #expect(found.utf8.count <= LivePhoto.maximumLength) }
        }
        #expect(LivePhoto.identifier("  not one\n") == nil)
        // Only ASCII: no Unicode casing or white space makes an identifier of other text.
        #expect(LivePhoto.identifier("stra\u{DF}e") == nil && LivePhoto.identifier("\u{FB01}x") == nil)
        #expect(LivePhoto.identifier("\u{A0}ABC") == nil && LivePhoto.identifier("\u{131}d") == nil)
        #expect(LivePhoto.identifier(" 5d5b1b2e-0c6a-4f3b-9e51-7a2c8d9e0f11\n") == Self.identifier, "the movie's text, normalised")
    }

    @Test func aStillAndItsMotionImportedTogetherAreOneItem() throws {
        let root = try TestRoot()
        let v = try root.newVault()
        let (still, movie) = try pair(in: root)
        let report = try v.importFiles([still, movie])
        #expect(report.imported.count == 1 && report.failures.isEmpty && report.joined.map(\.path) == [movie])
        let item = try v.item(try #require(report.imported.first).id)
        #expect(item.kind == .photo && item.isLivePhoto && item.name == "IMG_0001.JPG")
        #expect(item.companionName == "IMG_0001.MOV" && item.companionMimeType == "video/quicktime")
        #expect(item.companionSize == Int64(try bytes(movie).count) && item.pairKey == nil)
        #expect(item.renditionState == .pending, "the HEVC motion needs a rendition")
        // The still's original and thumbnail, the motion: the movie's own thumbnail went.
        #expect(try root.poolFiles().count == 3)
        #expect(try v.items().count == 1)
        #expect(try motionBytes(v, item) == (try bytes(movie)))
        #expect(throws: VaultError.self) { try v.openMotion(item) }

        let made = try v.makeRenditions { _, _, _, _ in }
        #expect(made.made == 1)
        let ready = try v.item(item.id)
        #expect(ready.renditionState == .ready && ready.renditionId != nil)
        let reader = try v.openMotion(ready)
        let mp4 = try reader.read(0..<reader.size)
        let info = try Video.probe(feeding: { write in try mp4.withUnsafeBytes(write) })
        #expect(info.videoCodec == "h264" && info.width == 320)
        var original = [UInt8]()
        try v.export(ready) { original += $0 }
        #expect(original == (try bytes(still)), "the still is the item's original")
        #expect(try v.verify().problems.isEmpty)

        // A second import of either half is a duplicate, not a second item.
        let again = try v.importFiles([movie, still])
        #expect(again.duplicates.count == 2 && again.imported.isEmpty)

        // Deleted for good, both go.
        try v.deleteItems([item.id])
        #expect(try root.poolFiles().isEmpty)
    }

    @Test func halvesImportedApartPairInEitherOrderInOneFolderOnly() throws {
        // The movie first: a video until its still arrives.
        let a = try TestRoot()
        let va = try a.newVault()
        let (stillA, movieA) = try pair(in: a)
        let video = try #require(try va.importFiles([movieA]).imported.first)
        #expect(video.kind == .video && video.pairKey != nil)
        let photo = try #require(try va.importFiles([stillA]).imported.first)
        #expect(photo.isLivePhoto && photo.companionId == video.mediaId)
        #expect(try va.items().map(\.record.id) == [photo.id], "the movie's own item is gone")
        #expect(try a.poolFiles().count == 3)
        #expect(try motionBytes(va, va.item(photo.id)) == (try bytes(movieA)))

        // The still first: the movie joins it.
        let b = try TestRoot()
        let vb = try b.newVault()
        let (stillB, movieB) = try pair(in: b)
        let first = try #require(try vb.importFiles([stillB]).imported.first)
        #expect(!first.isLivePhoto)
        let report = try vb.importFiles([movieB])
        #expect(report.imported.isEmpty && report.joined == [.init(path: movieB, role: .motion, still: "IMG_0001.JPG")])
        let joined = try vb.item(first.id)
        #expect(joined.isLivePhoto && joined.renditionState == .pending)
        #expect(try vb.items().count == 1 && b.poolFiles().count == 3)

        // Another folder, another identifier, or a trashed still: no pairing.
        let c = try TestRoot()
        let vc = try c.newVault()
        let (stillC, movieC) = try pair(in: c)
        let trips = try vc.createFolder("Trips")
        _ = try vc.importFiles([stillC])
        _ = try vc.importFiles([movieC], into: trips)
        #expect(try vc.items().count == 2 && vc.items().allSatisfy { !$0.record.isLivePhoto })
        let (otherStill, _) = try pair(in: c, identifier: "00000000-0000-4000-8000-000000000001", stem: "IMG_0002")
        _ = try vc.importFiles([otherStill], into: trips)
        #expect(try vc.items().allSatisfy { !$0.record.isLivePhoto })
    }

    @Test func inAProtectedFolderTheMotionIsSealedUnderItsKeyAndMovesWithTheStill() throws {
        let root = try TestRoot()
        let v = try root.newVault()
        let (still, movie) = try pair(in: root)
        let secret = try v.createFolder("Secret", password: pw("fpw"), iterations: testIterations)
        _ = try v.importFiles([movie], into: secret)
        let item = try #require(try v.importFiles([still], into: secret).imported.first)
        #expect(item.isLivePhoto && item.companionName == "IMG_0001.MOV")
        let stored = try #require(try v.catalog.rows(ids: [item.id]).first)
        #expect(stored.companionName == "" && stored.companionMimeType == "" && stored.name == "", "names are sealed")
        #expect(try motionBytes(v, v.item(item.id)) == (try bytes(movie)))

        // Out of the folder: the motion is re-encrypted under the MEK with the still.
        try v.moveItems([item.id], to: nil)
        let moved = try v.item(item.id)
        #expect(moved.isLivePhoto && moved.companionId != item.companionId && moved.folderId == nil)
        #expect(try motionBytes(v, moved) == (try bytes(movie)))
        #expect(try root.poolFiles().count == 3)
        #expect(try v.verify().problems.isEmpty)
    }

    @Test func anExportCarriesTheMotion() throws {
        let a = try TestRoot(), b = try TestRoot()
        let v = try a.newVault()
        let (still, movie) = try pair(in: a)
        let item = try #require(try v.importFiles([still, movie]).imported.first)
        let file = a.path + "/v.obscura"
        try v.exportVault(to: file, password: pw("e"), iterations: testIterations)
        let target = try b.initialized()
        #expect(try target.importVault(from: file, password: pw("e")) == 1)
        let copy = try target.unlock(password: pw("pw"))
        #expect(try motionBytes(copy, copy.item(item.id)) == (try bytes(movie)))
        #expect(try copy.verify().problems.isEmpty)
    }
}
